#!/bin/sh
# Reading a disk through its block-device node (the suite's ext2 image on
# /dev/vda, before ext2-disk.sh writes to it): its size from the BLK*
# ioctls, the ext2 superblock's magic and volume UUID read at byte offsets
# that are not sector-aligned, lseek to the end, a read past the end.
# Linux needs its virtio modules (see ext2-disk.sh).
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
    [ -f /lib/modules/oracle/$m.ko ] && insmod /lib/modules/oracle/$m.ko 2>/dev/null
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
echo "size64: $(blockdev --getsize64 /dev/vda)"
echo "sectors: $(blockdev --getsz /dev/vda)"
echo "sector size: $(blockdev --getss /dev/vda)"
echo "read-only: $(blockdev --getro /dev/vda)"
echo "magic: $(dd if=/dev/vda bs=1 skip=1080 count=2 2>/dev/null | od -An -tx1 | tr -d ' ')"
echo "uuid: $(dd if=/dev/vda bs=1 skip=1128 count=16 2>/dev/null | od -An -tx1 | tr -d ' \n')"
echo "first sector bytes: $(dd if=/dev/vda bs=512 count=1 2>/dev/null | wc -c)"
echo "block 1 equals bytes 1024-2047: $(dd if=/dev/vda bs=1024 skip=1 count=1 2>/dev/null | md5sum | cut -c1-8) $(dd if=/dev/vda bs=512 skip=2 count=2 2>/dev/null | md5sum | cut -c1-8)"
echo "past the end: $(dd if=/dev/vda bs=512 skip=16384 count=1 2>/dev/null | wc -c)"
echo "last sector: $(dd if=/dev/vda bs=512 skip=16383 count=1 2>/dev/null | wc -c)"
stat -c '%F %t:%T %s' /dev/vda
exit 0
