#!/bin/bash
# Traps: EXIT in a subshell, ERR, a signal handler run for kill -USR1 $$,
# a child's SIGTERM status, ignored signals inherited, trap -p.
( trap 'echo "subshell exit trap"' EXIT; echo "in subshell" )
trap 'echo "ERR trap (status $?)"' ERR
false
trap - ERR
trap 'echo "got USR1"' USR1
kill -USR1 $$
echo "after USR1"
sleep 10 & pid=$!
kill -TERM $pid
wait $pid; echo "killed child status: $?"
trap '' INT
bash -c 'trap -p INT'
trap - INT
trap 'echo "main exit trap"' EXIT
trap -p EXIT
exit 0
