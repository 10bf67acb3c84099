#!/bin/bash
# ls -l with fixed times (touch -d), modes, a symlink, a hard link count,
# sorting by time and size, -1, -a, -F, -R; only files, never directory sizes.
mkdir d
printf 'abcdef' > a; printf '1234567890' > b; ln b b2; ln -s a sym; mkdir d/sub; touch d/sub/x
chmod 751 a; chmod 4755 b
touch -d '2001-02-03 04:05:06' a; touch -d '2010-06-07 08:09:10' b; touch -h -d '2005-01-01 00:00:00' sym
ls -l --time-style=long-iso a b b2 sym
ls -lt --time-style=+%Y a b | awk '{print $1, $6, $7}'
ls -S a b
ls -1 -a | grep -v '^\.\.\?$'
ls -F
ls -R d
ls -l --time-style=full-iso a | awk '{print $6, $7, $8}'
exit 0
