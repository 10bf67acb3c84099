#!/bin/sh
# cmp and diff: identical, differing and missing files (no timestamps printed).
printf 'one\ntwo\nthree\nfour\n' > a
printf 'one\n2\nthree\nfour\nfive\n' > b
cp a c
cmp a c; echo "cmp same: $?"
cmp a b; echo "cmp differ: $?"
cmp -s a b; echo "cmp -s: $?"
cmp a missing 2>/dev/null; echo "cmp missing: $?"
diff a c; echo "diff same: $?"
diff a b; echo "diff differ: $?"
diff -u a b | tail -n +3
mkdir d1 d2; echo x > d1/f; echo y > d2/f; echo z > d1/only
diff -r d1 d2; echo "diff -r: $?"
exit 0
