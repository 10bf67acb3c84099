#!/bin/sh
# ps, pidof, kill and killall find processes through /proc: a background
# sleep is listed with its command, state and parent, found by name, and
# gone once killed.
sleep 30 &
s=$!
sleep 30 &
t=$!
# Wait until both children have exec'd sleep.
i=0
while [ "$(pidof sleep | wc -w)" -lt 2 ] && [ $i -lt 100 ]; do usleep 20000; i=$((i + 1)); done
echo "sleeps listed by ps: $(ps -o pid,comm | grep -c ' sleep$')"
ps -o pid,ppid,comm,args | awk -v p=$s -v me=$$ '$1 == p { print "comm:", $3, "args:", $4, $5, "parent is the shell:", ($2 == me ? "yes" : "no") }'
ps -o pid,stat | awk -v p=$s '$1 == p { print "state:", substr($2, 1, 1) }'
echo "pidof finds both: $(pidof sleep | wc -w)"
pidof no-such-program; echo "pidof missing: $?"
kill -STOP $s
i=0
while [ "$(ps -o pid,stat | awk -v p=$s '$1 == p { print substr($2, 1, 1) }')" != T ] && [ $i -lt 100 ]; do usleep 20000; i=$((i + 1)); done
ps -o pid,stat | awk -v p=$s '$1 == p { print "after SIGSTOP:", substr($2, 1, 1) }'
kill -CONT $s
kill $s
# ash reports "Terminated" on stderr if the job dies while `wait` waits
# for it, but not if it was reaped before: that depends on timing.
wait $s 2>/dev/null; echo "killed sleep status: $?"
echo "sleeps left: $(ps -o comm | grep -c '^sleep$')"
killall sleep; echo "killall status: $?"
wait $t 2>/dev/null; echo "second sleep status: $?"
killall sleep 2>/dev/null; echo "killall with none left: $?"
echo "ps shows itself: $(ps -o comm | grep -c '^ps$')"
ps | head -1
exit 0
