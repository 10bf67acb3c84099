#!/bin/sh
# ls -ln with fixed times: mode strings, link counts, numeric owners, sizes, dates.
printf 'hello' > five
printf '%0100d' 0 > hundred
: > empty
touch -d '2000-01-02 03:04:05' five hundred empty
chmod 600 five; chmod 751 hundred; chmod 4755 empty
ln five hard
ln -s five soft
touch -h -d '2001-02-03 04:05:06' soft 2>/dev/null
ls -ln five hundred empty hard
ls -ln --full-time five 2>/dev/null | sed 's/  */ /g'
ls -lnd soft | sed 's/ [A-Z][a-z][a-z] .* soft/ <date> soft/'
exit 0
