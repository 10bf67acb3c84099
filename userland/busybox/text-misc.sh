#!/bin/sh
# Small text applets: paste, nl, rev, fold, expand, tac.
printf '1\n2\n3\n' > n; printf 'a\nb\nc\n' > l
paste n l
paste -d, n l
paste -s n
nl n
printf 'hello\nworld\n' | rev
echo "abcdefghijklmnopqrstuvwxyz" | fold -w 10
printf 'x\ty\n' | expand -t 4 | od -An -c
tac n
exit 0
