#!/bin/sh
# wait on several background jobs: each status in the order asked,
# one job held until a file appears while another ends, a pid already
# reaped and one that is not a child, and `wait` with no operand after all have ended.
sh -c 'exit 3' & a=$!
sh -c 'exit 4' & b=$!
sh -c 'exit 5' & c=$!
wait $c; echo "c: $?"
wait $a; echo "a: $?"
wait $b; echo "b: $?"
wait $a; echo "a again: $?"
sh -c 'while [ ! -f release ]; do sleep 0.05; done; exit 7' & slow=$!
sh -c 'exit 6' & fast=$!
wait $fast; echo "fast: $?"
kill -0 $slow && echo "slow still running"
: > release
wait $slow; echo "slow: $?"
wait 12345678 2>/dev/null; echo "not a child: $?"
for i in 1 2 3; do (sleep 0.$i; exit $i) & done
wait; echo "wait all: $?"
(exit 9) & wait $!; echo "\$!: $?"
exit 0
