#!/bin/sh
# ls orderings that depend on file metadata: -t by mtime (fixed dates),
# -tr, -S by size, -Sr, -c with -t, -u with -t (atime), and -l times.
export TZ=UTC
printf '1' > small; printf '12345' > big; printf '123' > mid
touch -d '2003-01-01 00:00:00' small; touch -d '2001-01-01 00:00:00' big; touch -d '2002-01-01 00:00:00' mid
ls -t | tr '\n' ' '; echo
ls -tr | tr '\n' ' '; echo
ls -S | tr '\n' ' '; echo
ls -Sr | tr '\n' ' '; echo
touch -a -d '2010-01-01' big; touch -a -d '2009-01-01' mid; touch -a -d '2008-01-01' small
ls -tu | tr '\n' ' '; echo
ls -ln --full-time small 2>/dev/null | awk '{print $6, $7}' || true
ls -ln small | awk '{print $1, $5, $6, $7, $8, $9}'
exit 0
