#!/bin/sh
# Background jobs: $! names the job, wait returns its status, killed jobs
# report 128+signal, wait with no arguments waits for all.
# (wait's stderr is dropped after a kill: whether the shell prints the job's
# "Terminated"-style line depends on whether the job died before `wait` began,
# a race between CPUs that Linux and Kevlar may resolve either way.)
(exit 5) &
p=$!
wait $p; echo "wait status: $?"
sleep 0.2 &
wait $!; echo "sleep status: $?"
sleep 10 &
p=$!
kill $p
wait $p 2>/dev/null; echo "killed by TERM: $?"
sleep 10 &
p=$!
kill -KILL $p
wait $p 2>/dev/null; echo "killed by KILL: $?"
sleep 10 &
p=$!
kill -0 $p && echo "kill -0 on a live job: ok"
kill -HUP $p; wait $p 2>/dev/null; echo "killed by HUP: $?"
(sleep 0.1; echo first-job) > j1 &
(sleep 0.2; echo second-job) > j2 &
wait
cat j1 j2
echo "bad pid wait: $(wait 99999 2>/dev/null; echo $?)"
sh -c 'sleep 0.1; exit 3' & q=$!
wait $q; echo "sh exit 3: $?"
exit 0
