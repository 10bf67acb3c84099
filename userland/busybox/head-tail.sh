#!/bin/sh
# head and tail: -n, -c, +N, several files, defaults of 10 lines.
seq 1 20 > n
head n | tr '\n' ' '; echo
head -n 3 n | tr '\n' ' '; echo
head -c 5 n | od -An -c
tail n | tr '\n' ' '; echo
tail -n 2 n | tr '\n' ' '; echo
tail -n +18 n | tr '\n' ' '; echo
tail -c 6 n | tr '\n' ' '; echo
seq 1 3 > m
head -n 1 n m
tail -n 1 n m
seq 30000 | head -n 2
seq 30000 | tail -n 2
head -n 0 n; echo "head -n 0: $?"
printf 'a\nb\nc' | tail -n 1; echo
exit 0
