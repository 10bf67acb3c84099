#!/bin/sh
# nl: numbering all lines or non-empty ones, widths, separators, start and
# increment.
printf 'one\n\ntwo\nthree\n' > f
nl f
nl -b a f
nl -b n f
nl -w 2 -s ': ' f
nl -v 10 -i 5 -b a f
cat f | nl -s '|'
exit 0
