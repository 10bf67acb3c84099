#!/bin/sh
# ext2 on a virtio-blk disk (the image tools/contracts.py builds from
# userland/busybox-disk/): mount it, read what the host put there, write,
# sync, unmount, mount again and check, clean up. After Kevlar's run the
# host checks the disk with `e2fsck -fn` (contract:busybox/ext2-e2fsck).
# Linux needs its modules (the image carries them, and ext4 mounts ext2);
# Kevlar has all of it built in, so there insmod fails, quietly.
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk crc16 crc32c_generic mbcache jbd2 ext4; do
    [ -f /lib/modules/oracle/$m.ko ] && insmod /lib/modules/oracle/$m.ko 2>/dev/null
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vda ] && echo "/dev/vda is a block device"
echo "filesystems: $(grep -w ext2 /proc/filesystems | tr -d '\t')"
D=/tmp/disk
mkdir -p $D
mount -t ext2 /dev/vda $D && echo mounted
awk -v d=$D '$2 == d { split($4, o, ","); print "mounts:", $1, $3, o[1] }' /proc/mounts
cat $D/hello.txt
wc -l < $D/dir/lines.txt
tail -1 $D/dir/lines.txt
echo "link -> $(readlink $D/dir/link): $(cat $D/dir/link)"
md5sum $D/big.bin | cut -d' ' -f1
stat -c '%n %s %a %F %h' $D/big.bin $D/dir $D/dir/link $D/hello.txt
echo "root: $(ls -a $D | sort | tr '\n' ' ')"

echo "-- writing"
echo written > $D/new.txt
mkdir $D/newdir
seq 1 30000 > $D/newdir/seq.txt
cp $D/big.bin $D/newdir/big-copy
mv $D/hello.txt $D/newdir/hello-moved
ln $D/new.txt $D/new-hardlink
ln -s newdir/seq.txt $D/seq-link
rm $D/dir/lines.txt
rmdir $D/newdir 2>/dev/null || echo "rmdir of a full directory fails"
truncate -s 1000 $D/newdir/big-copy
chmod 640 $D/new.txt
touch -d '2020-01-02 03:04:05' $D/new.txt
chown 12:34 $D/new-hardlink
sync
cd / && umount $D && echo unmounted
grep -c " $D " /proc/mounts

echo "-- mounted again"
mount -t ext2 /dev/vda $D && echo mounted
cat $D/new.txt $D/new-hardlink
stat -c '%n %s %a %h %u:%g %Y' $D/new.txt
[ "$(md5sum < $D/newdir/seq.txt)" = "$(seq 1 30000 | md5sum)" ] && echo "seq.txt intact"
tail -1 $D/seq-link
stat -c '%n %s' $D/newdir/big-copy
head -c 1000 $D/big.bin | cmp - $D/newdir/big-copy && echo "big-copy is the first 1000 bytes"
cat $D/newdir/hello-moved
echo "newdir: $(ls $D/newdir | sort | tr '\n' ' ')"
echo "dir: $(ls -a $D/dir | sort | tr '\n' ' ')"
rm -r $D/newdir $D/seq-link
rm $D/new-hardlink
echo "root: $(ls -a $D | sort | tr '\n' ' ')"
umount $D && echo unmounted
