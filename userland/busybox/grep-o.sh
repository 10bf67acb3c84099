#!/bin/sh
# grep -o: every match on a line printed alone, with -n, -i, -E, and -c
# counting lines not matches.
printf 'one fish two fish\nred fish blue fish\nno match\nFISH\n' > f
grep -o fish f
grep -on fish f
grep -oi fish f | sort | uniq -c
grep -oE '[a-z]+ fish' f
grep -c fish f
echo "ab12cd345ef6" | grep -oE '[0-9]+'
echo "aaa" | grep -o 'a*'
exit 0
