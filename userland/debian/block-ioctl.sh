#!/bin/bash
# The block-device ioctls blockdev asks (BLKGETSIZE64, BLKGETSIZE,
# BLKSSZGET, BLKPBSZGET, BLKBSZGET, BLKROGET, BLKFLSBUF, BLKRRPART),
# HDIO_GETGEO (sfdisk -g), /sys/block/vdc's attributes, O_DIRECT reads
# and writes (aligned, and misaligned: EINVAL), fsync of the device.
D=/dev/vdc
blockdev --getsize64 --getsz --getsize --getss --getpbsz --getbsz --getro --getiomin --getioopt --getalignoff $D
blockdev --flushbufs $D; echo "flushbufs: $?"
blockdev --rereadpt $D; echo "rereadpt: $?"
# The root disk is mounted whole (no partitions).
blockdev --rereadpt /dev/vda 2>&1; echo "rereadpt of the mounted root disk: $?"
sfdisk -g $D
for f in size ro removable dev range ext_range capability queue/logical_block_size queue/physical_block_size queue/rotational queue/hw_sector_size queue/minimum_io_size; do
    echo "$f: $(cat /sys/block/vdc/$f)"
done
grep -E '^(MAJOR|MINOR|DEVNAME|DEVTYPE)=' /sys/block/vdc/uevent
echo "class: $(cat /sys/class/block/vdc/dev) $(basename "$(readlink /sys/class/block/vdc)")"
echo "by number: $(basename "$(readlink /sys/dev/block/$(cat /sys/block/vdc/dev))")"
printf 'kevlar block test\n' > buf; truncate -s 4096 buf
dd if=buf of=$D bs=4096 seek=3 oflag=direct status=none; echo "direct write: $?"
dd if=$D bs=4096 skip=3 count=1 iflag=direct status=none | head -c 17; echo
dd if=$D of=/dev/null bs=100 count=1 iflag=direct status=none 2>&1 | sed 's/^dd: //'; echo "misaligned direct read: ${PIPESTATUS[0]}"
dd if=buf of=$D bs=1000 count=1 oflag=direct status=none 2>&1 | sed 's/^dd: //'
dd if=buf of=$D bs=4096 seek=5 conv=fsync status=none; echo "fsync: $?"
dd if=$D of=back bs=4096 skip=5 count=1 status=none; cmp back buf && echo "read back"
dd if=$D of=/dev/null bs=512 skip=$(( $(blockdev --getsz $D) )) count=1 status=none; echo "past the end: $?"
exit 0
