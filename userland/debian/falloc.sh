#!/bin/bash
# fallocate(1) on the ext4 scratch disk: preallocation (unwritten extents
# that read as zeros), KEEP_SIZE, punching, zeroing, collapsing and
# inserting ranges, digging holes (SEEK_DATA/SEEK_HOLE), posix_fallocate;
# SEEK_DATA/SEEK_HOLE as python3 sees them; truncate, du, cp --sparse; a
# sparse file past 4 GiB and ext4's largest size; on an ext2 file system
# (the blank disk) fallocate is refused as Linux's ext2 refuses it.
d=/mnt/falloc; rm -rf $d; mkdir -p $d; cd $d
# filefrag -v without the physical blocks (where each kernel allocates),
# after a sync (Linux converts unwritten extents at writeback).
frag() {
    sync
    filefrag -v "$1" | awk -F': *' '/^ *[0-9]+:/ { f = $NF; gsub(/^ +/, "", f); gsub(/ /, "", $2); print "  " $2, "len", $4 + 0, f; next } /extents? found|^File size/ { print }'
}
show() { stat -c "$1: size %s blocks %b" "$1"; }
seeks() {
    python3 - "$1" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
out = []
for off in sorted({0, 4096, 8192, 12288, 65536, size // 2, size - 1, size} | set(range(0, min(size, 1 << 18), 16384))):
    for name, how in (("DATA", os.SEEK_DATA), ("HOLE", os.SEEK_HOLE)):
        try:
            r = str(os.lseek(fd, off, how))
        except OSError as e:
            r = __import__("errno").errorcode[e.errno]
        out.append(f"{name} {off}={r}")
print(sys.argv[1] + ": " + " ".join(out))
PY
}
fallocate -l 1MiB a; echo "allocate: $?"; show a
cmp -n 1048576 a /dev/zero && echo "reads zeros"
seeks a
printf 'hello' | dd of=a bs=1 seek=8192 conv=notrunc status=none
show a; seeks a; frag a
fallocate -n -o 1MiB -l 1MiB a; echo "keep size: $?"; show a
fallocate -p -o 65536 -l 131072 a; echo "punch: $?"; show a
seeks a; frag a
fallocate -p -o 10000000 -l 4096 a; echo "punch past the end: $?"; show a

seq 1 20000 > b; show b
fallocate -z -o 4096 -l 8192 b; echo "zero range: $?"; show b
md5sum b | cut -d' ' -f1
seeks b
fallocate -c -o 8192 -l 4096 b; echo "collapse: $?"; show b
md5sum b | cut -d' ' -f1
fallocate -c -o 100 -l 4096 b 2>&1; echo "collapse misaligned: $?"
fallocate -c -o 98304 -l 4096 b 2>&1; echo "collapse past the end: $?"
fallocate -i -o 4096 -l 8192 b; echo "insert: $?"; show b
md5sum b | cut -d' ' -f1
seeks b; frag b
fallocate -i -o 1048576 -l 4096 b 2>&1; echo "insert past the end: $?"

# Dig holes: blocks of zeros become holes.
{ head -c 8192 /dev/zero; seq 1 2000; head -c 20000 /dev/zero; echo end; } > c
sync; show c; fallocate -d c; echo "dig: $?"; show c; md5sum c | cut -d' ' -f1
seeks c; frag c
fallocate -x -l 40000 e; echo "posix_fallocate: $?"; show e; frag e

# Sparse copies and du.
truncate -s 10M s; echo x >> s; show s
du -k s | cut -f1; du -k --apparent-size s | cut -f1
cp --sparse=always s s2; show s2
cp --sparse=never s s3; show s3
cmp s s2 && cmp s s3 && echo "copies equal"
# Past 4 GiB, and ext4's largest file (16 TiB less a block).
truncate -s 5G big; echo tail >> big; show big
dd if=big bs=1 skip=5368709120 status=none; seeks big
fallocate -o 6G -l 64KiB big; echo "allocate past 4 GiB: $?"; show big
truncate -s 17592186040320 max; echo "truncate to the largest: $?"
truncate -s 17592186040321 max 2>&1; echo "truncate past it: $?"
fallocate -o 17592186036224 -l 8192 max 2>&1; echo "allocate past it: $?"
rm -f a b c e s s2 s3 big max

# ext2 (Linux's ext2 driver has no fallocate).
mkfs.ext2 -q -F -b 1024 -U 6b6576c1-6172-4578-b432-0000000000f1 -E hash_seed=6b6576c1-6172-4578-b432-0000000000f2 /dev/vdc 8192; echo "mkfs.ext2: $?"
mkdir -p e2; mount -t ext2 /dev/vdc e2; echo "mount: $?"
echo data > e2/f; truncate -s 100000 e2/f
fallocate -l 4096 e2/g 2>&1; echo "ext2 allocate: $?"
fallocate -p -o 0 -l 4096 e2/f 2>&1; echo "ext2 punch: $?"
fallocate -x -l 4096 e2/h; echo "ext2 posix_fallocate: $?"; show e2/h
umount e2; e2fsck -fn /dev/vdc >/dev/null 2>&1; echo "e2fsck: $?"
exit 0
