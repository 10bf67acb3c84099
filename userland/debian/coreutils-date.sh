#!/bin/bash
# date and friends at fixed times, in UTC: -d @N, formats, date arithmetic,
# parsing, touch -d / stat %Y round trip, TZ=UTC0 and a POSIX TZ string.
date -u -d @0
date -u -d @1234567890 '+%Y-%m-%d %H:%M:%S %A %j %U %s'
date -u -d '2024-02-28 12:00 +1 day' +%F
date -u -d '2000-01-01' +%s
date -u -R -d @86400
TZ=UTC0 date -d @0 +%Z%z
TZ=EST5EDT,M3.2.0,M11.1.0 date -d @1700000000 '+%F %T %Z'
touch -d '1999-12-31 23:59:59 UTC' f; stat -c %Y f
date -u -d "@$(stat -c %Y f)" --iso-8601=seconds
now=$(date +%s); [ "$now" -gt 1600000000 ] && echo "clock is past 2020"
exit 0
