#!/bin/sh
# xargs -P: commands run in parallel (up to N at once); every one runs
# exactly once and xargs waits for all; a failure in one gives status 123.
seq 1 20 | xargs -P 4 -n 1 sh -c 'echo "job $0" > "out.$0"'
echo "status: $?"
ls out.* | wc -l
cat out.* | sort -n -k2 | tr '\n' ' '; echo
seq 1 8 | xargs -P 3 -n 2 sh -c 'echo "$0+$1=$(($0 + $1))"' | sort -n
seq 1 6 | xargs -P 2 -n 1 sh -c '[ "$0" != 4 ]'; echo "one failed: $?"
seq 1 4 | xargs -P 4 -I {} sh -c 'sleep 0.{}; echo done {}' | sort
exit 0
