#!/bin/sh
# mount and df read /proc/mounts; a tmpfs mounted with a size shows with
# it and its usage, and goes away with umount.
mount | grep ' on /proc '
mount | grep ' on /tmp '
mkdir m
mount -t tmpfs -o size=1m tmpfs m; echo "mount: $?"
mount | grep -c "on $(pwd)/m type tmpfs (rw,relatime,size=1024k"
df m | tail -1 | awk '{ print $1, $2, $3, $4, $5 }'
dd if=/dev/zero of=m/data bs=1k count=100 2>/dev/null
df -k m | tail -1 | awk '{ print $2, $3, $4 }'
df | head -1
umount m; echo "umount: $?"
mount | grep -c "$(pwd)/m"
mount -t proc proc m && ls m | grep -c '^self$'
umount m
mount -t sysfs sysfs m && cat m/class/mem/null/dev
umount m
mount -t no-such-type none m 2>/dev/null; echo "unknown type: $?"
exit 0
