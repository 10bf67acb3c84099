#!/bin/sh
# du -s and du -a on a tree of files with known sizes (whole 4 KiB blocks).
mkdir -p tree/a tree/b
dd if=/dev/zero of=tree/a/f1 bs=4096 count=1 2>/dev/null
dd if=/dev/zero of=tree/a/f2 bs=4096 count=2 2>/dev/null
dd if=/dev/zero of=tree/b/f3 bs=4096 count=4 2>/dev/null
du -s tree/a/f1 tree/a/f2 tree/b/f3
du -ak tree | sort -k2
du -sk tree
exit 0
