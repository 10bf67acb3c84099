#!/bin/bash
# Discard and write-zeroes on a virtio disk as QEMU offers them
# (VIRTIO_BLK_F_DISCARD, VIRTIO_BLK_F_WRITE_ZEROES): the queue's discard
# and write-zeroes limits in /sys/block/vdc/queue; BLKDISCARD, BLKZEROOUT
# and BLKSECDISCARD through util-linux's blkdiscard and through ioctl(2)
# from python3 (misaligned, empty and out-of-range ranges, a read-only
# descriptor, a bad pointer); FITRIM on an ext4 made on the blank disk
# (fstrim -v: every free block, then nothing on a second pass; the
# replies of bad ranges, minlen, a user without CAP_SYS_ADMIN) and on
# ext2 and tmpfs. The disk is zeroed at the end for the next scripts.
D=/dev/vdc
q=/sys/block/vdc/queue
for f in discard_granularity discard_max_bytes discard_max_hw_bytes discard_zeroes_data write_zeroes_max_bytes max_discard_segments; do
    echo "$f: $(cat $q/$f 2>&1)"
done
echo "getdiscardzeroes: $(blockdev --getdiscardzeroes $D 2>&1)"
python3 - <<'EOF'
import errno, fcntl, os, struct
BLKDISCARD, BLKSECDISCARD, BLKZEROOUT = 0x1277, 0x127d, 0x127f
D = "/dev/vdc"
def call(what, fd, req, start, length):
    try:
        fcntl.ioctl(fd, req, struct.pack("QQ", start, length))
        print(what + ": 0")
    except OSError as e:
        print(what + ": " + errno.errorcode[e.errno])
fd = os.open(D, os.O_RDWR)
size = os.lseek(fd, 0, os.SEEK_END)
os.pwrite(fd, b"K" * 65536, 0)
os.fsync(fd)
call("zeroout 4 KiB", fd, BLKZEROOUT, 0, 4096)
print("zeroed:", os.pread(fd, 4096, 0) == bytes(4096), "after it:", os.pread(fd, 4, 4096))
call("zeroout 512 at 8 KiB", fd, BLKZEROOUT, 8192, 512)
print("zeroed 512:", os.pread(fd, 512, 8192) == bytes(512), "next:", os.pread(fd, 4, 8704))
call("discard 64 KiB", fd, BLKDISCARD, 0, 65536)
call("discard to the end", fd, BLKDISCARD, size - 4096, 4096)
call("zeroout to the end", fd, BLKZEROOUT, size - 4096, 4096)
for name, req in (("discard", BLKDISCARD), ("zeroout", BLKZEROOUT), ("secdiscard", BLKSECDISCARD)):
    call(name + " misaligned start", fd, req, 100, 4096)
    call(name + " misaligned length", fd, req, 0, 100)
    call(name + " empty", fd, req, 4096, 0)
    call(name + " empty at the end", fd, req, size, 0)
    call(name + " past the end", fd, req, size - 512, 1024)
    call(name + " start past the end", fd, req, size + 512, 512)
    call(name + " wrapping", fd, req, 1 << 63, 1 << 63)
    try:
        fcntl.ioctl(fd, req, 1)
        print(name + " bad pointer: 0")
    except OSError as e:
        print(name + " bad pointer: " + errno.errorcode[e.errno])
ro = os.open(D, os.O_RDONLY)
for name, req in (("discard", BLKDISCARD), ("zeroout", BLKZEROOUT), ("secdiscard", BLKSECDISCARD)):
    call(name + " read-only descriptor", ro, req, 0, 4096)
os.close(ro)
os.close(fd)
EOF
blkdiscard -o 0 -l 1048576 $D; echo "blkdiscard: $?"
blkdiscard -z -o 0 -l 1048576 $D; echo "blkdiscard -z: $?"
cmp -n 1048576 $D /dev/zero && echo "zeroed"
blkdiscard -s -o 0 -l 1048576 $D 2>&1; echo "blkdiscard -s: $?"
# FITRIM on ext4 (Debian's mkfs.ext4 defaults for a small disk).
mkfs.ext4 -q -F -U 6b6576c1-6172-4578-b432-0000000000d1 -E hash_seed=6b6576c1-6172-4578-b432-0000000000d2 $D; echo "mkfs.ext4: $?"
mkdir -p /tmp/trim; mount $D /tmp/trim; echo "mount: $?"
fstrim -v /tmp/trim; echo "fstrim: $?"
fstrim -v /tmp/trim; echo "fstrim again: $?"
python3 - <<'EOF'
import errno, fcntl, os, struct, sys
FITRIM = 0xc0185879
def trim(what, path, start, length, minlen):
    fd = os.open(path, os.O_RDONLY)
    buf = bytearray(struct.pack("QQQ", start, length, minlen))
    try:
        fcntl.ioctl(fd, FITRIM, buf)
        s, l, m = struct.unpack("QQQ", bytes(buf))
        print("%s: 0 start %d len %d minlen %d" % (what, s, l, m))
    except OSError as e:
        print(what + ": " + errno.errorcode[e.errno])
    os.close(fd)
M = (1 << 64) - 1
trim("all again", "/tmp/trim", 0, M, 0)
trim("len below a block", "/tmp/trim", 0, 512, 0)
trim("start past the end", "/tmp/trim", 1 << 40, M, 0)
trim("minlen above a group", "/tmp/trim", 0, M, 1 << 40)
trim("minlen a block", "/tmp/trim", 0, M, 1024)
trim("tmpfs", "/tmp", 0, M, 0)
sys.stdout.flush()
pid = os.fork()
if pid == 0:
    os.setgid(1000); os.setuid(1000)
    trim("as uid 1000", "/tmp/trim", 0, M, 0)
    sys.stdout.flush()
    os._exit(0)
os.waitpid(pid, 0)
EOF
umount /tmp/trim; e2fsck -fn $D >/dev/null 2>&1; echo "e2fsck: $?"
# ext2.
mkfs.ext2 -q -F -b 1024 -U 6b6576c1-6172-4578-b432-0000000000d3 -E hash_seed=6b6576c1-6172-4578-b432-0000000000d4 $D 8192; echo "mkfs.ext2: $?"
mount -t ext2 $D /tmp/trim; echo "mount ext2: $?"
fstrim -v /tmp/trim 2>&1; echo "fstrim ext2: $?"
umount /tmp/trim
blkdiscard -f -z $D; echo "zeroed the disk: $?"
exit 0
