#!/bin/sh
# paste: columns from several files (uneven lengths), -d with one and
# several delimiters, -s serial, - for stdin used twice.
printf '1\n2\n3\n' > n; printf 'a\nb\n' > l; printf 'x\ny\nz\nw\n' > m
paste n l m
paste -d, n l m
paste -d ':;' n l m
paste -s n l m
paste -s -d+ n
seq 1 6 | paste - -
seq 1 5 | paste -d' ' - - -
exit 0
