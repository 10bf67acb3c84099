#!/bin/sh
# cmp: the first difference, -l listing every differing byte, -s status
# only, -n limits, skips, EOF on the shorter file, stdin as one operand.
printf 'abcdefgh\nline2\n' > a
printf 'abcXefgY\nline2\n' > b
printf 'abcdefgh\n' > short
cmp a a; echo "same: $?"
cmp a b; echo "differ: $?"
cmp -l a b; echo "-l: $?"
cmp -s a b; echo "-s: $?"
cmp -n 3 a b; echo "-n 3: $?"
cmp a short; echo "EOF: $?"
cmp a b 4 4; echo "skip 4: $?"
cat a | cmp - a; echo "stdin: $?"
cmp a missing 2>/dev/null; echo "missing: $?"
exit 0
