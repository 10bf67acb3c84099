#!/bin/sh
# grep -E: alternation, groups, + ? {n,m}, anchors, bracket classes and
# POSIX classes; basic regexes with \( \) back-references.
printf 'cat\ncaat\ncaaat\nct\ndog\nhotdog\ncat9\n9cat\nab ab\nabab\n' > w
echo "-- a+"; grep -E 'ca+t$' w
echo "-- a?"; grep -E '^ca?t$' w
echo "-- {2,3}"; grep -E 'ca{2,3}t' w
echo "-- alt"; grep -E '^(cat|dog)$' w
echo "-- group+"; grep -E '^(ab)+$' w
echo "-- class"; grep -E '[[:digit:]]' w
echo "-- neg"; grep -E '^[^c]' w
echo "-- word"; grep -E '\<dog\>' w
echo "-- backref"; grep '^\(ab\) \1$' w
echo "-- egrep"; egrep -c 'a{3}' w
echo "-- -e -e"; grep -E -e '^ct$' -e '^dog$' w
echo "-- -f"; printf 'hot\n^ct\n' > pats; grep -f pats w
exit 0
