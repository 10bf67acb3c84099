#!/bin/sh
# The page cache of a disk file system (ext2 on the virtio disk): shared
# mappings of a disk file across processes, msync, SIGBUS past the end,
# private mappings, /proc/meminfo's Cached and Dirty moving, drop_caches,
# and what mappings stored reaching the disk (unmount, mount again).
# Leaves the disk as it found it (contract:busybox/ext2-e2fsck checks it).
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk crc16 crc32c_generic mbcache jbd2 ext4; do
    [ -f /lib/modules/oracle/$m.ko ] && insmod /lib/modules/oracle/$m.ko 2>/dev/null
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
D=/tmp/pagecache
mkdir -p $D
mount -t ext2 /dev/vda $D && echo mounted
echo "-- shared"
mmap-file shared $D/shared.bin
echo "-- sigbus"
mmap-file sigbus $D/bus.bin
echo "-- private"
mmap-file private $D/private.bin
echo "-- meminfo"
field() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
for k in Cached Dirty Writeback Mapped; do
    grep -q "^$k: *[0-9]* kB$" /proc/meminfo && echo "$k: present"
done
# Linux's counters are per CPU and folded lazily (up to about 1 MiB off
# at -smp 2), so the files are 4 MiB and the thresholds half that.
dd if=/dev/zero of=$D/read.bin bs=64k count=64 2>/dev/null
sync
echo 1 > /proc/sys/vm/drop_caches && echo "drop_caches 1: ok"
echo 0 > /proc/sys/vm/drop_caches 2>/dev/null || echo "drop_caches 0: refused"
c0=$(field Cached)
cat $D/read.bin > /dev/null
c1=$(field Cached)
[ $((c1 - c0)) -ge 2048 ] && echo "Cached grew by the file read"
rm $D/read.bin
sync
d0=$(field Dirty)
dd if=/dev/zero of=$D/dirty.bin bs=64k count=64 2>/dev/null
d1=$(field Dirty)
[ $((d1 - d0)) -ge 2048 ] && echo "Dirty grew by the file written"
sync
d2=$(field Dirty)
[ $((d1 - d2)) -ge 2048 ] && echo "Dirty fell after sync"
rm $D/dirty.bin
echo "-- mounted again"
cd / && umount $D && echo unmounted
mount -t ext2 /dev/vda $D && echo mounted
echo "shared.bin: $(stat -c %s $D/shared.bin) bytes, $(dd if=$D/shared.bin bs=1 skip=4096 count=5 2>/dev/null) $(dd if=$D/shared.bin bs=1 skip=8000 count=5 2>/dev/null)"
echo "bus.bin: $(stat -c %s $D/bus.bin) bytes, $(dd if=$D/bus.bin bs=1 count=3 2>/dev/null) $(dd if=$D/bus.bin bs=1 skip=4096 count=1 2>/dev/null)"
echo "private.bin: $(cat $D/private.bin)"
rm $D/shared.bin $D/bus.bin $D/private.bin
umount $D && echo unmounted
