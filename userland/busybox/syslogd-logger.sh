#!/bin/sh
# syslogd and logger talk over an AF_UNIX datagram socket: syslogd binds
# /dev/log (a socket node, mode 0666), logger connects to it and sends one
# datagram per message, which syslogd writes to its log file with the
# priority and tag; the node stays after syslogd ends.
log="$PWD/messages"
syslogd -n -O "$log" &
pid=$!
i=0
while [ ! -S /dev/log ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -S /dev/log ] && echo "/dev/log is a socket"
stat -c '%F %a' /dev/log
ls -l /dev/log | cut -c1
logger -t kevlar-test "hello from logger"
logger -t kevlar-test -p user.err "an error"
echo "a line from a pipe" | logger -t kevlar-pipe
logger -t kevlar-test -p local3.info "another facility"
i=0
while [ "$(grep -c kevlar- "$log" 2>/dev/null)" != 4 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill $pid
wait $pid 2>/dev/null
grep -o '[a-z0-9]*\.[a-z]* kevlar-[a-z]*: .*' "$log"
[ -S /dev/log ] && echo "node left behind"
rm -f /dev/log
exit 0
