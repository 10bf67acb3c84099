#!/bin/bash
# diffutils: diff (normal, -u with labels, -r, -q, -i, -w), statuses, cmp
# (-l, -s), diff3, sdiff.
printf 'a\nb\nc\nd\n' > x; printf 'a\nB\nc\nd\ne\n' > y
diff x y; echo "status: $?"
diff -u --label old --label new x y
diff -i <(echo Hello) <(echo hello) && echo "-i equal"
diff -w <(echo 'a  b') <(echo 'a b') && echo "-w equal"
mkdir -p d1 d2; echo 1 > d1/f; echo 2 > d2/f; echo only > d1/g
diff -r d1 d2; echo "-r status: $?"
diff -q x y; echo "-q status: $?"
cmp x y; echo "cmp status: $?"; cmp -l x y 2>&1 | head -3
cmp -s x x && echo "cmp -s equal"
printf 'a\nb\nc\n' > o; printf 'a\nB\nc\n' > m1; printf 'a\nb\nC\n' > m2
diff3 -m m1 o m2
exit 0
