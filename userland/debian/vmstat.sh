#!/bin/bash
# procps' vmstat over /proc/stat, /proc/meminfo and /proc/vmstat: the shape
# of `vmstat 1 2` (its two header lines, two lines of 17 numbers), of the
# wide, active/inactive and MB forms; `vmstat -s` (the labels, each with a
# number); the columns that are percentages add up to about 100. No
# values are printed: they depend on the machine and the moment.
set -u
shape() {
    awk 'NR <= 2 { print "  " $0; next }
         { n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) n++
           print "  data line: " NF " fields, " n " numbers" }' | sed 's/ \+/ /g'
}
echo "vmstat 1 2:"; vmstat 1 2 | shape; echo "  status ${PIPESTATUS[0]}"
echo "vmstat -w 1 1:"; vmstat -w 1 1 | shape
echo "vmstat -a 1 1:"; vmstat -a 1 1 | shape
echo "vmstat -S M 1 1:"; vmstat -S M 1 1 | shape
# us + sy + id + wa + st (columns 13-17) is 100, give or take rounding.
vmstat 1 2 | awk 'NR > 2 { s = $13 + $14 + $15 + $16 + $17; print "  cpu columns sum to 100 (+-2): " (s >= 98 && s <= 102 ? "yes" : "no " s) }'
echo "vmstat -s:"
vmstat -s | awk '{ n = $1 ~ /^[0-9]+$/; $1 = ""; print " " $0 (n ? "" : " (not a number)") }'
vmstat -s | awk '$2 == "K" && $4 == "memory" { m[$3] = $1 } END { print "used + free <= total: " (m["used"] + m["free"] <= m["total"] ? "yes" : "no") }'
echo "vmstat -f: $(vmstat -f | sed 's/^ *[0-9]* //')"
vmstat 0 1 >/dev/null 2>&1; echo "vmstat 0: status $?"
vmstat -d >/dev/null 2>&1; echo "vmstat -d: status $?"
exit 0
