#!/usr/bin/env python3
"""A partitioned disk to boot from with root=/dev/vda1 (the `rootdev`
kernel checks, userland/kernel-tests/rootdev.c as init).

    build-rootdev.py OUT INIT

OUT gets a DOS partition table with two Linux partitions: vda1 (ext2 made
by `mke2fs -d`, holding /sbin/init = INIT, /etc/hello, /dev, /proc) and a
small empty vda2.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile

SECTOR = 512
P1_START, P1_SECTORS = 2048, 8 * 2048
P2_START, P2_SECTORS = P1_START + P1_SECTORS, 2048
TOTAL = P2_START + P2_SECTORS


def entry(kind: int, start: int, sectors: int) -> bytes:
    # Boot flag, CHS start (unused: 0xfe 0xff 0xff), type, CHS end, LBA start, sectors.
    return bytes([0, 0xfe, 0xff, 0xff, kind, 0xfe, 0xff, 0xff]) + struct.pack("<II", start, sectors)


def main(argv: list) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, init = argv[1], argv[2]
    mke2fs = shutil.which("mke2fs") or "/sbin/mke2fs"
    with tempfile.TemporaryDirectory() as tmp:
        stage = os.path.join(tmp, "root")
        for d in ("sbin", "etc", "dev", "proc"):
            os.makedirs(os.path.join(stage, d))
        shutil.copy(init, os.path.join(stage, "sbin", "init"))
        os.chmod(os.path.join(stage, "sbin", "init"), 0o755)
        with open(os.path.join(stage, "etc", "hello"), "w") as f:
            f.write("hello from vda1\n")
        part = os.path.join(tmp, "p1.img")
        env = dict(os.environ, E2FSPROGS_FAKE_TIME="1600000000")
        r = subprocess.run([mke2fs, "-q", "-F", "-t", "ext2", "-b", "1024", "-U", "6b6576c1-6172-4578-b432-0000000000f1",
                            "-E", "root_owner=0:0,hash_seed=6b6576c1-6172-4578-b432-0000000000f2", "-d", stage,
                            part, str(P1_SECTORS // 2)], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            sys.exit(f"build-rootdev: mke2fs failed: {r.stderr}")
        with open(part, "rb") as f:
            fs = f.read()
    mbr = bytearray(SECTOR)
    mbr[440:444] = struct.pack("<I", 0x4B657603)
    table = entry(0x83, P1_START, P1_SECTORS) + entry(0x83, P2_START, P2_SECTORS)
    mbr[446:446 + len(table)] = table
    mbr[510:512] = b"\x55\xaa"
    tmp_out = out + ".tmp"
    with open(tmp_out, "wb") as f:
        f.write(mbr)
        f.seek(P1_START * SECTOR)
        f.write(fs)
        f.truncate(TOTAL * SECTOR)
    os.replace(tmp_out, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
