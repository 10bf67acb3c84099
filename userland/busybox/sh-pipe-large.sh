#!/bin/sh
# Larger amounts of data through pipes and files: nothing lost or reordered.
head -c 1048576 /dev/zero | wc -c
seq 1 30000 | md5sum
seq 1 30000 > f; md5sum f
seq 1 30000 | cat | cat | md5sum
cat f f f | wc -l
seq 1 5000 | sort -rn | sort -n | md5sum
yes 0123456789 | head -n 20000 | tr -d '\n' | wc -c
(seq 1 3000; seq 3001 6000) | wc -l
exit 0
