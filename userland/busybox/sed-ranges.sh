#!/bin/sh
# sed -n with line and regex ranges, $, negation, q,
# =, address,+N, 0,/re/, and c/i/a on ranges.
seq 1 12 > n
sed -n '3,5p' n | tr '\n' ' '; echo
sed -n '/^4$/,/^6$/p' n | tr '\n' ' '; echo
sed -n '$p' n
sed -n '10,$!p' n | tr '\n' ' '; echo
sed -n '/7/,+2p' n | tr '\n' ' '; echo
sed -n '0,/1/p' n | tr '\n' ' '; echo
sed '4q' n | tr '\n' ' '; echo
sed -n '/5/=' n
sed '2,11c\
middle' n | tr '\n' ' '; echo
sed -n '/^1/{/0/!p}' n | tr '\n' ' '; echo
sed '3,$d' n | tr '\n' ' '; echo
sed -e '1i\' -e 'head' -e '$a\' -e 'tail' n | sed -n '1p;$p'
exit 0
