#!/bin/bash
# ext4's discard mount option on the blank third disk (/dev/vdc): the
# option in /proc/mounts and findmnt, nodiscard, a malformed one refused;
# files written, synced, removed and synced again on a discard mount (the
# freed blocks discarded after the commit), the file system clean after.
# The disk is zeroed at the end for the next scripts.
D=/dev/vdc
M=/tmp/dmount
mkfs.ext4 -q -F -U 6b6576c1-6172-4578-b432-0000000000e1 -E hash_seed=6b6576c1-6172-4578-b432-0000000000e2,nodiscard $D; echo "mkfs.ext4: $?"
mkdir -p $M
mount -o discard $D $M; echo "mount -o discard: $?"
findmnt -no OPTIONS $M
grep -c " $M ext4 rw,relatime,discard " /proc/mounts
for i in 1 2 3; do head -c 3000000 /dev/urandom > $M/f$i; done
sync; echo "written: $(ls $M | wc -l) files"
rm $M/f1 $M/f3; sync; echo "removed: $(ls $M | wc -l) left"
cmp -s $M/f2 $M/f2 && echo "f2 readable: $(stat -c %s $M/f2)"
umount $M; echo "umount: $?"
e2fsck -fn $D >/dev/null 2>&1; echo "e2fsck: $?"
mount -o nodiscard $D $M; echo "mount -o nodiscard: $?"
findmnt -no OPTIONS $M
umount $M
mount $D $M; echo "mount: $?"
findmnt -no OPTIONS $M
umount $M
mount -o discard=1 $D $M 2>/dev/null; echo "mount -o discard=1: $?"
mount -o discard,bogus $D $M 2>/dev/null; echo "mount -o discard,bogus: $?"
blkdiscard -f -z $D; echo "zeroed the disk: $?"
exit 0
