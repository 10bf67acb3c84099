#!/bin/sh
# free, uptime and friends read /proc: their layouts (not their numbers).
free | head -1
free | awk 'NR == 2 { print $1, NF } NR == 3 { print $1, NF }'
free -m | awk 'NR == 2 { print $1, ($2 > 0 ? "total > 0" : "no total") }'
uptime | grep -c 'load average'
awk '{ print NF }' /proc/uptime
awk '{ print NF }' /proc/loadavg
grep -c '^MemTotal: ' /proc/meminfo
grep -c '^processor' /proc/cpuinfo | awk '{ print ($1 >= 1 ? "cpus listed" : "no cpus") }'
head -1 /proc/stat | awk '{ print $1, NF }'
cat /proc/sys/kernel/ostype
sysctl kernel.ostype
exit 0
