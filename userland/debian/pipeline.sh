#!/bin/bash
# Many processes at once: a pipeline of 30 cats, a long mixed pipeline,
# sort spilling to temporary files (-S) and merging, a fan-out of
# background pipelines, xargs -P.
seq 1 5000 | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat \
  | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | cat | md5sum | cut -c1-32
seq 1 20000 | awk '{ print $1 % 97 }' | sort -n | uniq -c | sort -k1,1nr -k2,2n | head -3
seq 1 30000 | sed 's/^/k/' | sort -S 64K -T . -r | tail -2
for i in 1 2 3 4 5 6 7 8; do (seq 1 $((i * 500)) | grep -c 7 > c.$i) & done; wait
cat c.* | tr '\n' ' '; echo
seq 1 40 | xargs -n 5 -P 4 echo | wc -l
yes hello | head -n 20000 | tr -d '\n' | wc -c
exit 0
