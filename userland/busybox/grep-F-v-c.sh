#!/bin/sh
# grep -F (fixed strings, metacharacters literal), -v, -c, -x, -i, -m,
# -h/-H with several files, -s on missing files, statuses 0/1/2.
printf 'a.b\naxb\n[x]\nA.B\n*star\n' > f
printf 'a.b again\nnothing\n' > g
echo "-- regex ."; grep 'a.b' f
echo "-- -F ."; grep -F 'a.b' f
echo "-- -F ["; grep -F '[x]' f
echo "-- -F *"; grep -F '*' f
echo "-- -v -c"; grep -v -c 'a' f
echo "-- -c files"; grep -c 'a.b' f g
echo "-- -x -F"; grep -x -F 'a.b' f g
echo "-- -i -F"; grep -i -F 'a.b' f
echo "-- -m 1"; grep -m 1 b f
echo "-- -h"; grep -h again f g
echo "-- -H"; grep -H '\[' f
echo "-- status"; grep -q zzz f; echo "no match: $?"
grep -q 'a' f; echo "match: $?"
grep a missing 2>/dev/null; echo "missing: $?"
grep -s a missing; echo "-s missing: $?"
exit 0
