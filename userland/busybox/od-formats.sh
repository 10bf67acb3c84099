#!/bin/sh
# od output formats on fixed bytes: -t x1/x2/x4/u1/d2/o1/c, -A x/d/n
# address bases, -N and -j to limit and skip, -v and repeated lines (*).
printf '\001\002\003\004ABCD\377\376\375\374abcdefgh' > b
od -A x -t x1 b
od -A d -t u1 -N 6 b
od -A n -t x2 -N 8 b
od -A n -t x4 -N 8 b
od -A n -t d2 -j 8 -N 4 b
od -A o -t o1 -j 4 -N 4 b
od -A n -t c -j 12 b
od -b -N 4 b
head -c 64 /dev/zero > z
od -A x -t x1 z
od -v -A x -t x1 -N 32 z
exit 0
