#!/bin/sh
# Signal traps: kill -USR1 $$ runs the handler before the next command;
# ignored and default dispositions; exit status 128+N of a killed child.
trap 'echo got USR1' USR1
echo before
kill -USR1 $$
echo after
trap 'echo got USR2; n=$((n + 1))' USR2
n=0
kill -USR2 $$; kill -USR2 $$
echo "usr2 count: $n"
trap - USR1
sh -c 'kill -USR1 $$; echo not reached'; echo "default USR1: $?"
sh -c 'kill -TERM $$; echo not reached'; echo "default TERM: $?"
sh -c 'trap "" TERM; kill -TERM $$; echo survived ignored TERM'; echo "status: $?"
sh -c 'trap "echo handled; exit 4" HUP; kill -HUP $$; echo no'; echo "status: $?"
sh -c 'kill -9 $$'; echo "KILL: $?"
# A background shell with a trap: wait until it says the trap is set.
sh -c 'trap "echo child got USR1; exit 0" USR1; : > ready; while :; do sleep 0.05; done' &
pid=$!
i=0; while [ ! -f ready ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -USR1 $pid
wait $pid; echo "child status: $?"
trap
exit 0
