#!/bin/sh
# top in batch mode reads /proc/stat, meminfo, loadavg and every
# /proc/PID: its summary lines and columns (not the numbers).
top -b -n 1 > top.txt; echo "top: $?"
head -3 top.txt | cut -d: -f1
sed -n 4p top.txt | tr -s ' ' | sed 's/^ //'
grep -c ' top -b -n 1$' top.txt
exit 0
