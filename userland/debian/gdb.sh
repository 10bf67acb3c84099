#!/bin/bash
# Debian's gdb (gdb-minimal) over ptrace and /proc on programs built with
# Debian's gcc (userland/debian/progs): a breakpoint at a function, run,
# a backtrace, a register, a variable, a hardware watchpoint that fires, a
# hardware breakpoint (hbreak), steps, continuing to the exit; then a
# program with two more threads and `info threads`; attaching to a
# running program (gdb -p). What legitimately
# varies is filtered: pids and thread ids (LWP), thread pointers, where a
# waiting thread is inside the C library, the order the threads exit (and
# the `[New process N]` gdb sometimes prints when the threads of the
# threaded program end around its main thread's exit, on either kernel).
cd /contracts/debian-progs || exit 1
filter() {
    sed -E -e 's/process [0-9]+/process N/' \
        -e 's/Thread 0x[0-9a-f]+ \(LWP [0-9]+\)/Thread T (LWP N)/' \
        -e '/^[* ] +[0-9]+ +Thread/s/("gdb-threads") .*/\1/' \
        -e '/^([* ] +[0-9]+ +Thread| +Id +Target Id)/s/ +/ /g' \
        -e '/^\[Thread T \(LWP N\) exited\]$/d' \
        -e '/^\[New process N\]$/d'
}
gdb -batch -nx \
    -ex 'break square' -ex run -ex bt -ex 'info registers rip' -ex 'print x' \
    -ex 'delete' -ex 'watch counter' -ex continue -ex 'print counter' \
    -ex 'delete' -ex 'hbreak square' -ex continue -ex 'print x' \
    -ex step -ex step -ex 'info registers rip' \
    -ex 'delete' -ex continue \
    ./gdb-target 2>&1 | filter
echo "gdb status: ${PIPESTATUS[0]}"
gdb -batch -nx \
    -ex 'break all_started' -ex run -ex 'info threads' -ex 'thread 1' -ex bt \
    -ex 'delete' -ex continue \
    ./gdb-threads 2>&1 | filter
echo "gdb status: ${PIPESTATUS[0]}"
# Attaching to a running process (gdb -p): stop it at a breakpoint, change
# a variable, detach; it runs on and ends as the change makes it. Where it
# was when gdb attached varies, so only gdb's stop and after are compared.
./gdb-attach > /tmp/gdb-attach.out &
pid=$!
for i in $(seq 100); do
    grep -q running /tmp/gdb-attach.out && break
    sleep 0.1
done
gdb -batch -nx -p $pid -ex 'break tick' -ex continue -ex 'bt 1' \
    -ex 'print ticks > 0' -ex 'set var stop = 1' -ex 'delete' -ex detach 2>&1 |
    grep -E '^(Breakpoint|#0|12\s|\$|\[Inferior|\[Thread debugging|Using host)' |
    sed -E -e 's/at 0x[0-9a-f]+:/at ADDR:/' | filter
echo "gdb status: ${PIPESTATUS[0]}"
wait $pid
echo "program status: $?"
cat /tmp/gdb-attach.out
rm -f /tmp/gdb-attach.out
exit 0
