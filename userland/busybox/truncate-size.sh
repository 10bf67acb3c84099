#!/bin/sh
# File sizes: truncate grows and shrinks, holes read as zeros, stat -c %s, wc -c.
echo hello > f
truncate -s 100 f; stat -c %s f
tail -c 95 f | tr '\0' 'z' | wc -c
truncate -s 3 f; cat f; echo
truncate -s 0 f; stat -c %s f
truncate -s 1M big; stat -c %s big; wc -c < big
od -An -c big | head -n 2
printf 'abc' > g; printf 'de' >> g; stat -c %s g; cat g; echo
exit 0
