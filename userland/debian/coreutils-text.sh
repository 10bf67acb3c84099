#!/bin/bash
# Text tools: sort (-n, -k, -t, -u, -r), uniq -c, cut, tr, wc, head/tail,
# seq, paste, join, comm, tac, nl, fold, expand, rev.
printf 'pear 3\napple 10\nfig 2\napple 1\nkiwi 10\n' > fruit
sort fruit | head -2
sort -k2,2n -k1,1 fruit
sort -t' ' -k2 -nr fruit | head -1
cut -d' ' -f1 fruit | sort | uniq -c
cut -c1-3 fruit | sort -u | tr '\n' ' '; echo
tr 'a-z' 'A-Z' < fruit | tr -d ' 0-9' | tr -s 'P'
wc -l -w -c < fruit
seq 1 20 | tail -3 | tr '\n' ' '; echo
seq -s, 0 5 25; seq -w 8 11 | tr '\n' ' '; echo
seq 1 10000 | tail -n +9998
head -c 5 fruit; echo
printf 'b 2\na 1\n' | sort > x; printf 'a A\nb B\n' > y; join x y
printf 'a\nb\nc\n' > p; printf 'b\nc\nd\n' > q; comm p q | cat -A
seq 3 | tac | paste -sd- -
printf 'one\ntwo\n' | nl -ba
echo abcdefghij | fold -w 4
printf 'a\tb\n' | expand -t 4 | cat -A
echo hello | rev
exit 0
