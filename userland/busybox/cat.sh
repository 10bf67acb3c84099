#!/bin/sh
# cat: files in order, - for stdin, -n, missing files, binary bytes intact.
printf 'one\ntwo\n' > a
printf 'three\n' > b
printf 'no newline' > c
cat a b
cat a - b <<END
from stdin
END
cat c; echo
cat -n a b
cat missing a 2>&1; echo "status: $?"
printf '\000\001\377' > bin; cat bin bin | od -An -tx1
cat < a
cat a a a a | wc -l
cat /dev/null; echo "empty: $?"
exit 0
