#!/bin/sh
# du on files: -k for sizes that take 0, 1 and 2 pages, a sparse file
# (no blocks), -c totals, and -s over a tree of such files.
printf '' > empty
printf 'x' > one
head -c 4096 /dev/zero > page
head -c 4097 /dev/zero > page-and-one
truncate -s 1048576 sparse
for f in empty one page page-and-one sparse; do du -k "$f"; done
du -c -k one page | tail -n 1
mkdir t; cp one page t
du -s -k t/one t/page
stat -c '%s %b %n' empty one page page-and-one sparse
exit 0
