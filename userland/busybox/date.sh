#!/bin/sh
# date at fixed epochs (UTC): formats of -d @N; the clock itself is not printed.
date -u -d @0
date -u -d @0 '+%Y-%m-%d %H:%M:%S %a %b %j'
date -u -d @86399 '+%F %T'
date -u -d @1234567890 '+%s %A %B %d %y'
date -u -d @2147483648 '+%Y-%m-%d %H:%M:%S'
date -u -d '2000-02-29 12:34:56' '+%s'
date -u -d @951827696 '+%u %w %U %e'
now=$(date +%s); [ "$now" -gt 1600000000 ] && echo "clock after 2020: yes" || echo "clock after 2020: no"
date -u -d @0 -R 2>/dev/null
date -u -d @0 -I 2>/dev/null
exit 0
