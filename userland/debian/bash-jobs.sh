#!/bin/bash
# Background jobs and wait: $!, wait for each status, wait -n, PIPESTATUS,
# pipefail, a subshell's exit status, many concurrent jobs.
(exit 3) & a=$!
(sleep 0.2; exit 4) & b=$!
wait $a; echo "a: $?"
wait $b; echo "b: $?"
true | false | true; echo "PIPESTATUS: ${PIPESTATUS[*]}"
set -o pipefail; false | true; echo "pipefail: $?"; set +o pipefail
for i in $(seq 1 20); do (echo "$i" > job.$i) & done
wait
cat job.* | sort -n | tr '\n' ' '; echo
# The slow job waits on a FIFO that is written only after `wait -n` has
# returned. The fast job exits only once this shell sleeps (in `wait -n`, the
# next thing it does): a job that ends before `wait -n` starts is reaped and
# forgotten by bash at the command boundary, and `wait -n` would then wait for
# the slow job forever.
mkfifo jobs.fifo
bash -c '(read -r _ < jobs.fifo; exit 9) &
  (st=; until [ "$st" = S ]; do read -r _ _ st _ < /proc/$$/stat; done; exit 2) &
  wait -n; echo "first to finish: $?"; echo go > jobs.fifo; wait; echo "then: $?"'
exit 0
