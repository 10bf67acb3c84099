#!/bin/sh
# expand and unexpand tabs with default and given stops; fold at a width,
# at spaces (-s), and by bytes.
printf 'a\tb\tc\n\tx\n12345678\ty\n' > t
expand t | tr ' ' .
expand -t 4 t
printf '        eight\n    four\n' | unexpand | od -c | head -n 2
printf '        eight\n  mid        spaces\n' | unexpand -a | od -c | head -n 3
echo 'the quick brown fox jumps over the lazy dog' > s
fold -w 10 s
fold -s -w 10 s
printf 'abcdefghijklmnop\n' | fold -w 5
fold -b -w 7 s
exit 0
