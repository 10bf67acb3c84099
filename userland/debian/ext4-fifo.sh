#!/bin/bash
# FIFOs and device nodes on the ext4 scratch disk: their inodes are freed
# when the last name goes and nothing holds them (statfs's free inode count
# comes back), and an unlinked FIFO still open keeps working until closed.
# Kevlar once kept every FIFO's inode referenced after its last close, so
# removing it left an orphan that a power-off left on the disk ("Deleted
# inode has zero dtime" for e2fsck).
set -u
d=/mnt/fifo
rm -rf $d; mkdir $d; cd $d
free() { stat -f -c %d .; }
before=$(free)
mkfifo p
( echo through the fifo > p ) &
cat p; wait
rm p
echo "inode freed after a used fifo: $([ "$(free)" = "$before" ] && echo yes || echo "no: $before -> $(free)")"
mkfifo q; rm q
echo "inode freed after an unused fifo: $([ "$(free)" = "$before" ] && echo yes || echo no)"
mknod c c 1 3; mknod b b 7 0; rm c b
echo "inodes freed after device nodes: $([ "$(free)" = "$before" ] && echo yes || echo no)"
# Unlinked while both ends are open: the inode stays until they close.
mkfifo r
exec 3<> r
rm r
echo "inode kept while open: $([ "$(free)" != "$before" ] && echo yes || echo no)"
echo still works >&3; read -r line <&3; echo "read: $line"
exec 3>&-
echo "inode freed at the last close: $([ "$(free)" = "$before" ] && echo yes || echo no)"
cd /; rmdir $d
exit 0
