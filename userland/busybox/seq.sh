#!/bin/sh
# seq: ranges, steps, negative steps, -s, -w, empty ranges.
seq 5 | tr '\n' ' '; echo
seq 3 7 | tr '\n' ' '; echo
seq 2 3 14 | tr '\n' ' '; echo
seq 10 -3 1 | tr '\n' ' '; echo
seq -s , 1 5
seq -w 8 11 | tr '\n' ' '; echo
seq 0.5 0.5 2 | tr '\n' ' '; echo
seq 5 1; echo "empty range: $?"
seq 3 -1 -2 | tr '\n' ' '; echo
seq 30000 | tail -n 1
exit 0
