#!/bin/bash
# The mqueue file system with ordinary tools: mount -t mqueue (as
# systemd's dev-mqueue.mount does), findmnt and stat -f naming it, touch
# making a queue, ls -l of the root and the queue, cat of its state line,
# chmod, rm removing it, umount.
d=/tmp/mqueue-sh
mkdir -p "$d"
mount -t mqueue none "$d" && echo mounted
findmnt -n -o FSTYPE,OPTIONS "$d"
stat -f -c 'type %T' "$d"
stat -c '%A %U %G' "$d"
touch "$d/q1" && echo touched
ls "$d"
stat -c '%A %s %U' "$d/q1"
cat "$d/q1"
chmod 600 "$d/q1" && stat -c '%A' "$d/q1"
rm "$d/q1" && echo removed
ls -A "$d" | wc -l
umount "$d" && echo unmounted
rmdir "$d"
exit 0
