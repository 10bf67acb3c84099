#!/bin/sh
# bzip2/bunzip2/bzcat round trips: files, stdin to stdout, -k, -t, levels,
# and errors on corrupt input.
seq 1 20000 > data; cp data orig
bzip2 data; ls
bunzip2 data.bz2; cmp data orig && echo "round trip"
bzip2 -k data; ls data data.bz2
bzip2 -t data.bz2; echo "-t: $?"
bzcat data.bz2 | md5sum
md5sum < orig
bzip2 -1 -c orig | bzip2 -d -c | cmp - orig && echo "-1 ok"
printf 'small input' | bzip2 | bzcat; echo
head -c 50 data.bz2 > cut.bz2; bzcat cut.bz2 >/dev/null 2>&1; echo "truncated: $?"
exit 0
