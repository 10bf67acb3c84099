#!/bin/sh
# Jobs in a script: `set -m` without a terminal turns job control off
# again (as on Linux: no controlling tty), yet background jobs are
# listed by `jobs` and addressed as %1, %2, %% by wait and kill.
# (wait's stderr is dropped after a kill: whether the shell prints the job's
# "Terminated"-style line depends on whether the job died before `wait` began,
# a race between CPUs that Linux and Kevlar may resolve either way.)
set -m 2>/dev/null
case $- in *m*) echo "job control on";; *) echo "job control off";; esac
sleep 10 &
sleep 10 &
(exit 3) &
p3=$!
wait $p3; echo "job 3: $?"
jobs
kill %1; wait %1 2>/dev/null; echo "wait %1: $?"
jobs
kill -KILL %2; wait %2 2>/dev/null; echo "wait %2: $?"
jobs
sleep 10 &
kill %%; wait %% 2>/dev/null; echo "kill %%: $?"
kill %9 2>/dev/null; echo "no such job: $?"
jobs; echo "end"
exit 0
