#!/bin/sh
# Large amounts of data through pipes and files: nothing lost or reordered.
head -c 4194304 /dev/zero | wc -c
seq 1 200000 | md5sum
seq 1 200000 > f; md5sum f
seq 1 200000 | cat | cat | md5sum
cat f f f | wc -l
seq 1 50000 | sort -rn | sort -n | md5sum; seq 1 50000 | sort -rn | sort -n | tail -n 1
yes 0123456789 | head -n 100000 | tr -d '\n' | wc -c
(seq 1 3000; seq 3001 6000) | wc -l
exit 0
