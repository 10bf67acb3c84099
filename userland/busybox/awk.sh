#!/bin/sh
# awk: fields, NF/NR, -F, sums, printf, BEGIN/END, conditions, functions, arrays (sorted).
printf 'alice 30 100\nbob 25 250\ncarol 35 75\n' > d
awk '{print $1}' d
awk '{print $NF, NF}' d
awk '{s += $3} END {print "sum:", s}' d
awk '$2 > 28 {print $1}' d
awk '{printf "%-6s|%5d|%6.2f\n", $1, $2, $3 / 3}' d
awk -F: '{print $2}' <<END
a:b:c
d:e:f
END
awk 'BEGIN {x = 7; y = 2; print x / y, x % y, x * y, int(x / y), -x}'
awk 'BEGIN {print length("hello"), substr("hello", 2, 3), index("hello", "ll"), toupper("up")}'
awk 'BEGIN {n = split("a,b,c", arr, ","); print n, arr[1], arr[3]}'
awk '{c[$2 > 28 ? "old" : "young"]++} END {for (k in c) print k, c[k]}' d | sort
awk 'NR == 2' d
awk 'END {print NR}' d
awk '{ $2 = $2 * 2; print }' d
awk 'function sq(v) { return v * v } BEGIN { print sq(12) }'
echo "a b c" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i; print "" }'
seq 1 100 | awk '{ s += $1 } END { print s, s / NR }'
awk 'BEGIN { printf "%c%c%c\n", 75, 101, 118; printf "%x %o %e\n", 255, 8, 12345.678 }'
echo "x=1;y=2" | awk -F';' '{ split($2, p, "="); print p[2] }'
awk 'BEGIN { s = "foo bar foo"; gsub(/foo/, "baz", s); print s }'
exit 0
