#!/bin/bash
# procps over /proc: ps -o for this shell and its children, ps aux's header
# and a child's line, pgrep/pkill by name, ps -p of a stopped and a zombie
# child, free's header; no pids, times or memory sizes are printed.
ps -o comm= -p $$
ps -o user=,stat=,comm= -p $$ | sed 's/ \+/ /g'
sleep 30 & s=$!
[ "$(ps -o ppid= -p $s | tr -d ' ')" = "$$" ] && echo "ppid of child is this shell"
ps -o args= -p $s
ps aux | head -1 | awk '{ print $1, $2, $3, $4, $11 }'
ps aux | awk -v p=$s '$2 == p { print $1, $8, $11, $12 }'
pgrep -x sleep >/dev/null && echo "pgrep found sleep"
kill -STOP $s; sleep 0.2; ps -o stat= -p $s
kill -CONT $s
pkill -x sleep; wait $s; echo "sleep status after pkill: $?"
bash -c 'exit 0' & z=$!; sleep 0.3; ps -o stat=,comm= -p $z; wait $z
ps -e -o comm= | grep -cx init
free -b | head -1 | awk '{ print $1, $2, $3 }'
uptime >/dev/null && echo "uptime ran"
exit 0
