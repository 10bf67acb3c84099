#!/bin/sh
# wc: lines, words, bytes; stdin and files; totals.
printf 'one two three\nfour five\n\nsix\n' > t
wc -l < t
wc -w < t
wc -c < t
wc t
wc -l t
printf 'no newline' | wc -l
printf '' | wc -c
seq 1 1000 > s
wc -l s t
head -c 123456 /dev/zero | wc -c
printf 'tab\tsep  words\n' | wc -w
exit 0
