#!/bin/sh
# awk arrays: counting with associative arrays, split(), delete, `in`,
# multi-dimensional keys, length() of an array; sorted where order is free.
printf 'red apple\ngreen pear\nred cherry\nyellow banana\ngreen apple\nred apple\n' > fruit
awk '{ n[$1]++ } END { for (k in n) print k, n[k] }' fruit | sort
awk '{ n[$2] = n[$2] " " $1 } END { for (k in n) print k ":" n[k] }' fruit | sort
awk 'BEGIN { c = split("a:b::d", p, ":"); print c; for (i = 1; i <= c; i++) print i, "[" p[i] "]" }'
awk 'BEGIN { a["x"]; a["y"] = 1; delete a["x"]; print ("x" in a), ("y" in a), length(a) }'
awk 'BEGIN { m[1,2] = "one-two"; for (k in m) { split(k, i, SUBSEP); print i[1], i[2], m[k] } }'
awk '!seen[$0]++' fruit
awk '{ s[NR] = $0 } END { for (i = NR; i > 0; i--) print s[i] }' fruit
awk 'BEGIN { n = split("3 1 2", v); for (i = 1; i <= n; i++) t += v[i]; print "total", t }'
exit 0
