#!/bin/bash
# mount --rbind with util-linux: the mounts below the source come along
# (findmnt lists each copy under its own parent), an unbindable one stays
# out, a copy of a shared mount is its peer, `mount -o remount,ro` of the
# file system makes every mount of it read-only (findmnt's VFS-OPTIONS and
# FS-OPTIONS columns), and umount -l takes the whole copied tree.
mkdir -p /mnt/rb || exit 1
mount -t tmpfs none /mnt/rb || exit 1
mkdir -p /mnt/rb/src/a /mnt/rb/src/b /mnt/rb/dst /mnt/rb/plain
mount -t tmpfs tmpa /mnt/rb/src/a
mkdir /mnt/rb/src/a/deep
mount -t tmpfs tmpdeep /mnt/rb/src/a/deep
mount -t tmpfs tmpb /mnt/rb/src/b
mount --make-unbindable /mnt/rb/src/b
mount --make-shared /mnt/rb/src/a
mount --bind /mnt/rb/src /mnt/rb/plain
findmnt -n -R -o TARGET,FSTYPE,PROPAGATION /mnt/rb/plain
mount --rbind /mnt/rb/src /mnt/rb/dst
findmnt -n -R -o TARGET,FSTYPE,PROPAGATION /mnt/rb/dst
findmnt -n -o TARGET,SOURCE /mnt/rb/dst/a/deep
# each copy's parent is the copy above it
findmnt -n -l -o ID,TARGET -R /mnt/rb/dst > /mnt/rb/ids
findmnt -n -l -o PARENT,TARGET -R /mnt/rb/dst | while read -r parent target; do
    above=$(awk -v p="$parent" '$1 == p {print $2}' /mnt/rb/ids)
    echo "$target under ${above:-outside}"
done
mkdir /mnt/rb/src/a/p
mount -t tmpfs tmpp /mnt/rb/src/a/p
findmnt -n -o TARGET,SOURCE /mnt/rb/dst/a/p
mount -o remount,ro /mnt/rb/src/a
findmnt -n -o TARGET,VFS-OPTIONS,FS-OPTIONS /mnt/rb/dst/a | sed 's/,size=[^,]*//; s/,nr_inodes=[^,]*//'
touch /mnt/rb/dst/a/file 2>&1 | sed 's/^touch: //'
mount -o remount,rw /mnt/rb/src/a
touch /mnt/rb/dst/a/file && echo "writable again"
umount /mnt/rb/dst 2>/dev/null || echo "umount of the tree's root: busy"
umount -l /mnt/rb/dst
findmnt -n -R /mnt/rb/dst || echo "copies gone"
findmnt -n -o TARGET /mnt/rb/src/a/deep || echo "the peer's deep gone too"
umount -l /mnt/rb
rmdir /mnt/rb
echo done
