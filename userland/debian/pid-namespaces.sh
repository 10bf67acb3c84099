#!/bin/bash
# PID namespaces with util-linux: `unshare -fp --mount-proc` runs a shell
# as PID 1 of a new namespace with its own /proc (ps sees only the
# namespace), the numbers count from 1, getppid of the namespace's init is
# 0, its own SIGKILL does not end it, the outside /proc is untouched;
# nsenter joins a namespace by its init's pid and the joined process gets
# the next number; killing the init from outside ends every process of
# the namespace.
mkdir -p /mnt/pidns || exit 1
mount -t tmpfs none /mnt/pidns || exit 1
unshare -fp --mount-proc sh -c '
  echo "pid in namespace: $$"
  echo "ppid in namespace: $PPID"
  readlink /proc/self
  sleep 30 & sleep 30 &
  echo /proc/[0-9]*
  ps -e -o pid=,comm= > /mnt/pidns/ps
  cat /mnt/pidns/ps
  grep -E "^(Pid|PPid):" /proc/1/status
  awk "/^NSpid:/ { print NF - 1 }" /proc/self/status
  kill -9 1; echo "init survived its own SIGKILL: $?"
'
echo "unshare: $?"
mkfifo /mnt/pidns/ready
unshare -fp --mount-proc sh -c 'sleep 60 & echo > /mnt/pidns/ready; wait' &
outer=$!
read < /mnt/pidns/ready
init=$(pgrep -P $outer)
sleeper=$(pgrep -P $init sleep)
echo "init's number inside: $(awk '/^NSpid:/ { print $NF }' /proc/$init/status)"
echo "sleeper's number inside: $(awk '/^NSpid:/ { print $NF }' /proc/$sleeper/status)"
echo "levels: $(awk '/^NSpid:/ { print NF - 1 }' /proc/$sleeper/status)"
nsenter --target $init --pid sh -c 'echo "joined with pid $$"'
kill -9 $init
wait $outer
echo "unshare ended: $?"
kill -0 $sleeper 2>/dev/null && echo "sleeper still alive" || echo "sleeper gone"
umount /mnt/pidns
rmdir /mnt/pidns
echo done
