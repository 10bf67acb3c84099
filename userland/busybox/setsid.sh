#!/bin/sh
# setsid: the command runs as a new session and process-group leader, so a
# signal to its group (kill -0 -PID) reaches it; without setsid a child's
# pid names no group; TERM sent to the new group ends it.
# (wait's stderr is dropped after a kill: whether the shell prints the job's
# "Terminated"-style line depends on whether the job died before `wait` began,
# a race between CPUs that Linux and Kevlar may resolve either way.)
setsid sh -c 'kill -0 -$$ && echo "own group exists"'
sh -c 'kill -0 -$$ 2>/dev/null && echo "unexpected group" || echo "no group of its own"'
setsid sh -c 'kill -TERM -$$ 2>/dev/null; echo not reached' & p=$!
wait $p 2>/dev/null; echo "group TERM: $?"
exit 0
