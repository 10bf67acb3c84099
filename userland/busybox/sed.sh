#!/bin/sh
# sed: s///, s///g, -n with p, d, line and regex addresses, ranges, $, -e, -i, y, a/i.
seq 1 6 > n
printf 'foo bar foo\nbaz foo\nqux\n' > t
sed 's/foo/X/' t
sed 's/foo/X/g' t
sed -n '2p' n
sed -n '2,4p' n | tr '\n' ' '; echo
sed '3d' n | tr '\n' ' '; echo
sed '2,5d' n | tr '\n' ' '; echo
sed -n '$p' n
sed -n '/baz/p' t
sed '/foo/d' t
sed -n '/foo/!p' t
sed -e 's/a/A/g' -e 's/o/0/g' t
sed 's/\(b..\)/[\1]/g' t
sed -E 's/(o+)/<\1>/' t
sed 'y/abc/ABC/' t
sed '1i\
header' n | head -n 2
sed '$a\
footer' n | tail -n 2
sed -n '/[135]/p' n | tr '\n' ' '; echo
cp t t2; sed -i 's/qux/QUUX/' t2; cat t2
sed = t | head -n 4
sed 's/o/0/2' t
sed -n 's/bar/BAR/p' t
echo "a/b/c" | sed 's|/|:|g'
exit 0
