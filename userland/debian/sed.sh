#!/bin/bash
# GNU sed: substitution with flags and groups, -E, addresses and ranges,
# -n with p, d, hold space, a/i/c, y, -i in place, multiple -e, -z.
seq 1 10 > n
sed -n '3,5p' n | tr '\n' ' '; echo
sed '2,9d' n | tr '\n' ' '; echo
echo "hello world" | sed 's/o/0/g; s/\(h\)\(e\)/\2\1/'
echo "2024-01-15" | sed -E 's/([0-9]+)-([0-9]+)-([0-9]+)/\3.\2.\1/'
sed -n '/4/,/6/{s/^/> /;p}' n
sed -n '1!G;h;$p' n | tr '\n' ' '; echo
printf 'a\nb\n' | sed -e '1i\top' -e '$a\bottom' -e 's/b/B/'
echo abc | sed 'y/abc/xyz/'
cp n m; sed -i 's/^1$/one/;/^[2-9]$/d' m; cat m | tr '\n' ' '; echo
printf 'x\0y\0' | sed -z 's/^/-/' | tr '\0' '\n'
echo "a.b.c" | sed 's/\./\n/2'
sed -n '$=' n
exit 0
