#!/bin/sh
# Small text applets: paste, nl, rev, fold, comm, expand, tac, split.
printf '1\n2\n3\n' > n; printf 'a\nb\nc\n' > l
paste n l
paste -d, n l
paste -s n
nl n
printf 'hello\nworld\n' | rev
echo "abcdefghijklmnopqrstuvwxyz" | fold -w 10
printf 'a\nb\nd\n' > c1; printf 'b\nc\nd\n' > c2
comm c1 c2 | sed 's/\t/<TAB>/g'
comm -12 c1 c2
printf 'x\ty\n' | expand -t 4 | od -An -c
tac n
seq 1 10 > ten; split -l 4 ten part; ls part*; cat partab
exit 0
