#!/bin/bash
# dd block sizes, counts, skip/seek, conv; checksums; od; truncate and
# sparse sizes; split and cat; base64 round trip. (cksum is in
# coreutils-cksum: it needs AVX.)
dd if=/dev/zero of=z bs=1k count=5 status=none; stat -c %s z
seq 1 1000 > n; dd if=n bs=10 skip=2 count=1 status=none; echo
printf 'hello' | dd conv=ucase status=none; echo
dd if=n of=copy bs=100 seek=1 status=none; stat -c %s copy
dd if=/dev/zero bs=512 count=3 2>&1 >/dev/null | head -2
md5sum n | cut -d' ' -f1; sha256sum n | cut -d' ' -f1; sha1sum n | cut -c1-12
head -c 16 n | od -An -tx1
truncate -s 1M sparse; stat -c %s sparse; cat sparse | tr -d '\0' | wc -c
split -l 300 n part.; ls part.* | tr '\n' ' '; echo; cat part.* | cmp - n && echo "split/cat same"
base64 n | base64 -d | cmp - n && echo "base64 round trip"
exit 0
