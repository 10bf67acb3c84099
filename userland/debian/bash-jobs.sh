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
bash -c '(sleep 0.5; exit 9) & (exit 2) & wait -n; echo "first to finish: $?"; wait; echo "then: $?"'
exit 0
