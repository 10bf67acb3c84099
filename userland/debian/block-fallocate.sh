#!/bin/bash
# fallocate(2) on a virtio disk's device node (/dev/vdc, blank), as
# Linux's blkdev_fallocate: PUNCH_HOLE|KEEP_SIZE is the device's
# write-zeroes that may unmap (no fallback), ZERO_RANGE zeroes,
# PUNCH_HOLE|KEEP_SIZE|NO_HIDE_STALE discards; the range must be in whole
# sectors and start inside the device; other modes are refused. Then
# BLKZEROOUT and BLKDISCARD over data written through the node: zeroed
# sectors read back as zeros, the data next to them unchanged. The disk
# is zeroed at the end for the next scripts.
D=/dev/vdc
python3 - <<'PYEOF'
import ctypes, errno, fcntl, os, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
KEEP, PUNCH, NO_HIDE_STALE, COLLAPSE, ZERO, INSERT, UNSHARE = 1, 2, 4, 8, 16, 32, 64
BLKDISCARD, BLKZEROOUT = 0x1277, 0x127f
D = "/dev/vdc"
fd = os.open(D, os.O_RDWR)
size = os.lseek(fd, 0, os.SEEK_END)
MiB = 1 << 20
# Whole transfers in 64 KiB pieces (each call's count is checked).
def write_all(data, off):
    for at in range(0, len(data), 65536):
        assert os.pwrite(fd, data[at:at + 65536], off + at) == len(data[at:at + 65536])
def read_all(length, off):
    out = b"".join(os.pread(fd, min(65536, length - at), off + at) for at in range(0, length, 65536))
    assert len(out) == length
    return out
def fill():
    for i in range(4):
        write_all(bytes([0x41 + i]) * MiB, i * MiB)
    os.fsync(fd)
def falloc(what, mode, off, length):
    r = libc.fallocate(fd, mode, off, length)
    print(what + ": " + ("0" if r == 0 else errno.errorcode[ctypes.get_errno()]))
def zeros(what, off, length):
    print(what + " zeros:", read_all(length, off) == bytes(length))
def byte(what, off):
    print(what + ":", os.pread(fd, 1, off))
fill()
falloc("punch 1 MiB", PUNCH | KEEP, MiB, MiB)
zeros("punched", MiB, MiB)
byte("before the hole", MiB - 1)
byte("after the hole", 2 * MiB)
falloc("zero range 4 KiB", ZERO, 2 * MiB, 4096)
zeros("zero range", 2 * MiB, 4096)
byte("after the zeroed range", 2 * MiB + 4096)
falloc("zero range keep size", ZERO | KEEP, 2 * MiB + 8192, 512)
zeros("zero range keep size", 2 * MiB + 8192, 512)
falloc("punch no-hide-stale", PUNCH | KEEP | NO_HIDE_STALE, 3 * MiB, 65536)
byte("after the discard", 3 * MiB + 65536)
falloc("punch without keep size", PUNCH, 0, 4096)
falloc("punch misaligned offset", PUNCH | KEEP, 100, 4096)
falloc("punch misaligned length", PUNCH | KEEP, 0, 100)
falloc("punch past the end", PUNCH | KEEP, size - 4096, 8192)
falloc("punch from the end", PUNCH | KEEP, size, 4096)
falloc("zero range past the end", ZERO, size - 4096, 8192)
falloc("zero range past the end keep size", ZERO | KEEP, size - 4096, 8192)
zeros("last 4 KiB", size - 4096, 4096)
falloc("allocate", 0, 0, 4096)
falloc("keep size alone", KEEP, 0, 4096)
falloc("collapse", COLLAPSE, 0, 4096)
falloc("insert", INSERT, 0, 4096)
falloc("unshare", UNSHARE, 0, 4096)
falloc("negative length", PUNCH | KEEP, 0, -4096)
falloc("zero length", PUNCH | KEEP, 0, 0)
ro = os.open(D, os.O_RDONLY)
r = libc.fallocate(ro, PUNCH | KEEP, 0, 4096)
print("read-only descriptor: " + ("0" if r == 0 else errno.errorcode[ctypes.get_errno()]))
os.close(ro)
fill()
fcntl.ioctl(fd, BLKZEROOUT, struct.pack("QQ", 512, 1024))
zeros("zeroout", 512, 1024)
byte("before zeroout", 511)
byte("after zeroout", 1536)
fcntl.ioctl(fd, BLKDISCARD, struct.pack("QQ", MiB, 2 * MiB))
byte("before discard", MiB - 1)
byte("after discard", 3 * MiB)
os.close(fd)
PYEOF
blkdiscard -f -z $D; echo "zeroed the disk: $?"
exit 0
