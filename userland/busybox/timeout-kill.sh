#!/bin/sh
# timeout and the kill applet: a process killed after its time limit; kill -l names.
timeout 1 sleep 5; echo "timeout status: $?"
timeout 5 true; echo "finished in time: $?"
timeout -s KILL 1 sleep 5; echo "timeout -s KILL: $?"
sleep 5 &
p=$!
/bin/kill -TERM $p; echo "kill applet: $?"
wait $p 2>/dev/null; echo "waited: $?"
/bin/kill -0 99999 2>/dev/null; echo "kill missing pid: $?"
kill -l 15; kill -l 9; kill -l USR1
exit 0
