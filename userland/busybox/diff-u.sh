#!/bin/sh
# diff: unified output with labels (no timestamps), context sizes, -q, -s,
# -b/-w/-i, -N for a missing file, -r over directories; statuses 0/1/2.
printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n' > a
printf 'one\n2\nthree\nfour\nfive\nsix\nseven\neight\n' > b
diff -L a -L b a b; echo "status: $?"
diff -U 0 -L a -L b a b; echo "status: $?"
diff -U 1 -L a -L b a b; echo "status: $?"
diff a a; echo "same: $?"
diff -q a b; echo "-q: $?"
diff -s a a; echo "-s: $?"
printf 'a  b\nC\n' > w1; printf 'a b\nc\n' > w2
diff -q w1 w2 >/dev/null; echo "plain: $?"
diff -b -i w1 w2; echo "-b -i: $?"
printf 'ab\nc\n' > w3; diff -w -i w1 w3; echo "-w -i: $?"
diff -N -L empty -L a missing a | head -n 4; echo
diff a missing 2>/dev/null; echo "missing: $?"
mkdir d1 d2; echo x > d1/same; echo x > d2/same; echo y > d1/ch; echo z > d2/ch; echo o > d1/only
diff -r d1 d2 > r.out; echo "-r: $?"; grep -v '^[-+][-+][-+] ' r.out
exit 0
