#!/bin/sh
# sleep: fractional and zero durations return 0; a sleep can be interrupted
# by a signal from another process.
# (wait's stderr is dropped after a kill: whether the shell prints the job's
# "Terminated"-style line depends on whether the job died before `wait` began,
# a race between CPUs that Linux and Kevlar may resolve either way.)
sleep 0.1; echo "sleep 0.1: $?"
sleep 0; echo "sleep 0: $?"
sleep 0.05 0.05; echo "sleep two args: $?"
sleep 1s 2>/dev/null; echo "sleep 1s: $?"
sleep bogus 2>/dev/null; echo "sleep bogus: $?"
sleep 5 &
p=$!
( sleep 0.2; kill -TERM $p ) &
wait $p 2>/dev/null; echo "interrupted sleep: $?"
wait
exit 0
