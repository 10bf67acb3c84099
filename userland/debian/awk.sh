#!/bin/bash
# awk (Debian's default, mawk): fields and -F, arrays and for-in (sorted by
# sort), printf, BEGIN/END, NR/NF, split, sub/gsub, substr, index, math, -v.
printf 'alice 30 paris\nbob 25 rome\ncarol 35 paris\n' > p
awk '{ s += $2 } END { print "sum", s, "avg", s / NR }' p
awk '$3 == "paris" { print $1 }' p
awk '{ c[$3]++ } END { for (k in c) print k, c[k] }' p | sort
awk -F: '{ print NF, $1 }' <<< "a:b:c"
awk 'BEGIN { printf "%5.2f|%-4s|%03d|%x\n", 3.14159, "ab", 7, 255 }'
awk 'BEGIN { n = split("x,y,z", a, ","); print n, a[3] }'
echo "foo bar foo" | awk '{ gsub(/foo/, "baz"); print; print substr($0, 5, 3), index($0, "bar"), length($0) }'
awk -v k=3 'BEGIN { print k * 2, int(7 / 2), 2 ^ 10, sqrt(16) }'
seq 1 5 | awk 'NR % 2 { printf "%s ", $1 } END { print "" }'
awk 'BEGIN { "echo from-cmd" | getline x; print x; print toupper("up") tolower("DOWN") }'
ls -l /usr/bin/awk | awk '{ print $NF }'
exit 0
