#!/bin/sh
# ext4 on a virtio-blk disk (/dev/vdb: the files of userland/busybox-disk/
# on an image tools/contracts.py makes with `mke2fs -t ext4`, Debian's
# default features: extents, 64bit, flex_bg, metadata_csum, a journal...):
# the image's journal holds a committed transaction (new bytes for
# hello.txt, as a crash would leave them), so the first mount replays it;
# then read, write, sync, unmount, mount again and check, clean up.
# After Kevlar's run the host checks the disk with `e2fsck -fn`
# (contract:busybox/ext4-e2fsck). Linux needs its modules; Kevlar has it
# built in, so there insmod fails, quietly.
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk crc16 crc32c_generic mbcache jbd2 ext4; do
    [ -f /lib/modules/oracle/$m.ko ] && insmod /lib/modules/oracle/$m.ko 2>/dev/null
done
i=0
while [ ! -b /dev/vdb ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vdb ] && echo "/dev/vdb is a block device"
echo "filesystems: $(grep -w ext4 /proc/filesystems | tr -d '\t')"
D=/tmp/disk4
mkdir -p $D
mount -t ext4 /dev/vdb $D && echo mounted
awk -v d=$D '$2 == d { split($4, o, ","); print "mounts:", $1, $3, o[1] }' /proc/mounts
stat -f -c 'statfs: type %t, block size %S, blocks %b, free %f, available %a, inodes %c, free inodes %d, name max %l' $D
cat $D/hello.txt
wc -l < $D/dir/lines.txt
echo "link -> $(readlink $D/dir/link): $(cat $D/dir/link)"
md5sum $D/big.bin | cut -d' ' -f1
stat -c '%n %s %a %F %h %b' $D/big.bin $D/dir $D/dir/link $D/hello.txt
echo "root: $(ls -a $D | sort | tr '\n' ' ')"

echo "-- writing"
echo written > $D/new.txt
mkdir $D/newdir
seq 1 30000 > $D/newdir/seq.txt
cp $D/big.bin $D/newdir/big-copy
mv $D/hello.txt $D/newdir/hello-moved
ln $D/new.txt $D/new-hardlink
ln -s newdir/seq.txt $D/seq-link
ln -s "$(printf 'long/%.0s' $(seq 1 20))target" $D/slow-link
i=0
while [ $i -lt 120 ]; do : > $D/newdir/entry-with-a-long-name-$i; i=$((i + 1)); done
rm $D/dir/lines.txt
rmdir $D/newdir 2>/dev/null || echo "rmdir of a full directory fails"
truncate -s 1000 $D/newdir/big-copy
dd if=/dev/zero of=$D/sparse bs=1 count=1 seek=5368709120 2>/dev/null
chmod 640 $D/new.txt
touch -d '2020-01-02 03:04:05' $D/new.txt
echo stamped > $D/stamped
stat -c %y $D/stamped > /tmp/stamped-mtime
chown 12:34 $D/new-hardlink
sync
cd / && umount $D && echo unmounted
grep -c " $D " /proc/mounts

echo "-- mounted again"
mount -t ext4 /dev/vdb $D && echo mounted
cat $D/new.txt $D/new-hardlink
stat -c '%n %s %a %h %u:%g %y' $D/new.txt
[ "$(md5sum < $D/newdir/seq.txt)" = "$(seq 1 30000 | md5sum)" ] && echo "seq.txt intact"
tail -1 $D/seq-link
[ "$(stat -c %y $D/stamped)" = "$(cat /tmp/stamped-mtime)" ] && echo "mtime with nanoseconds kept"
readlink $D/slow-link
stat -c '%n %s %b' $D/newdir/big-copy $D/sparse
head -c 1000 $D/big.bin | cmp - $D/newdir/big-copy && echo "big-copy is the first 1000 bytes"
cat $D/newdir/hello-moved
ls $D/newdir | wc -l
echo "dir: $(ls -a $D/dir | sort | tr '\n' ' ')"
rm -r $D/newdir $D/seq-link $D/sparse $D/slow-link
rm $D/new-hardlink $D/stamped
echo "root: $(ls -a $D | sort | tr '\n' ' ')"
umount $D && echo unmounted
