#!/bin/sh
# head and tail by bytes and from the start: -c N, tail -c +N, tail -n +N,
# head -n -N (all but the last N), a last line without a newline, headers
# for several files, and tail on a pipe.
seq 1 10 > n
printf 'abcdefghij' > b
head -c 4 b; echo
tail -c 3 b; echo
tail -c +8 b; echo
head -c -3 b; echo
tail -n +8 n | tr '\n' ' '; echo
head -n -7 n | tr '\n' ' '; echo
tail -n 2 b; echo
head -n 2 n b
tail -n 1 -q n n
seq 1 100000 | tail -n 2 | tr '\n' ' '; echo
seq 1 100000 | tail -c 7
head -c 0 n | wc -c
exit 0
