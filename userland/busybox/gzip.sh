#!/bin/sh
# gzip/gunzip/zcat round trips: compressed data decompresses to the same bytes.
seq 1 20000 > data
cp data orig
gzip data
[ -f data.gz ] && [ ! -e data ] && echo "gzip replaced the file"
gunzip data.gz
cmp data orig && echo "round trip identical"
gzip -c data > c.gz
zcat c.gz | cmp - orig && echo "zcat identical"
gunzip -c c.gz | wc -l
gzip -t c.gz && echo "gzip -t ok"
head -c 100000 /dev/zero | gzip -9 | gunzip | wc -c
printf '' | gzip | gunzip | wc -c
echo "not gzip" > fake.gz; gunzip -t fake.gz 2>/dev/null; echo "bad data: $?"
seq 1 20000 | gzip -1 | gzip -d | md5sum
cat c.gz c.gz > two.gz; zcat two.gz | wc -l
exit 0
