#!/bin/sh
# gzip options: -c to stdout, -d, -k keeps the input, -t tests, -f, the
# .gz name and the mode kept, concatenated members, levels all decompress
# the same, errors for corrupt data and a missing file.
umask 022
seq 1 5000 > data; cp data orig; chmod 640 data
gzip data; ls; stat -c '%a %n' data.gz
gzip -d data.gz; cmp data orig && echo "-d same"; stat -c '%a %n' data
gzip -k data; ls data data.gz
gzip -t data.gz; echo "-t: $?"
gzip data 2>/dev/null; echo "exists: $?"
gzip -f data; echo "-f: $?"; ls
for l in 1 6 9; do gzip -$l -c orig | gunzip -c | cmp - orig && echo "level $l ok"; done
echo first | gzip -c > cat.gz; echo second | gzip -c >> cat.gz; zcat cat.gz
head -c 30 data.gz > cut.gz; gunzip -c cut.gz >/dev/null 2>&1; echo "truncated: $?"
echo plain > p; gunzip -c p >/dev/null 2>&1; echo "not gzip: $?"
gzip -c missing 2>/dev/null; echo "missing: $?"
printf '' | gzip -c | gunzip -c | wc -c
exit 0
