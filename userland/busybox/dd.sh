#!/bin/sh
# dd: bs/count to a file, skip/seek, conv=notrunc, partial reads; the record counts.
dd if=/dev/zero of=z bs=1024 count=64 2>&1 | grep records
wc -c < z
dd if=/dev/zero of=z2 bs=1M count=2 2>/dev/null; wc -c < z2
seq 1 1000 > s
dd if=s of=part bs=10 skip=2 count=3 2>/dev/null; cat part; echo
dd if=/dev/zero of=s bs=1 seek=5 count=3 conv=notrunc 2>/dev/null
head -c 12 s | od -An -c
wc -c < s
printf 'abcdef' > small
dd if=small of=/dev/null bs=4 2>&1 | grep records
dd if=/dev/urandom of=r bs=512 count=8 2>/dev/null; wc -c < r
dd if=/dev/zero bs=4096 count=3 2>/dev/null | wc -c
dd if=small of=cut bs=2 count=2 2>/dev/null; cat cut; echo
dd if=/dev/zero of=sparse bs=1 seek=100000 count=1 2>/dev/null; wc -c < sparse
dd if=missing of=x 2>/dev/null; echo "missing input: $?"
exit 0
