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
# returned, so which job finishes first does not depend on timing.
mkfifo jobs.fifo
bash -c '(read -r _ < jobs.fifo; exit 9) & (exit 2) & wait -n; echo "first to finish: $?"; echo go > jobs.fifo; wait; echo "then: $?"'
exit 0
