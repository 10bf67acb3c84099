#!/bin/sh
# sleep in the background: the job is alive while it sleeps, wait returns
# 0 once it is done, several sleeps end in their own time, and a killed
# sleep reports the signal.
# (wait's stderr is dropped after a kill: whether the shell prints the job's
# "Terminated"-style line depends on whether the job died before `wait` began,
# a race between CPUs that Linux and Kevlar may resolve either way.)
sleep 0.3 & p=$!
kill -0 $p && echo "running"
wait $p 2>/dev/null; echo "wait: $?"
kill -0 $p 2>/dev/null || echo "gone after wait"
sleep 10 & long=$!
sleep 0.1 & short=$!
wait $short 2>/dev/null; echo "short: $?"
kill -0 $long && echo "long still running"
kill $long; wait $long 2>/dev/null; echo "long killed: $?"
(sleep 0.2; echo "from background") &
wait; echo "all done"
sleep 0; echo "sleep 0: $?"
sleep -1 2>/dev/null; echo "sleep -1: $?"
exit 0
