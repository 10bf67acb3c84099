#!/bin/sh
# md5sum, sha1sum, sha256sum, sha512sum of generated data; -c verification.
printf '' | md5sum
printf 'abc' | md5sum
printf 'abc' | sha1sum
printf 'abc' | sha256sum
printf 'abc' | sha512sum | cut -c1-32
seq 1 10000 > s
md5sum s
sha256sum s
head -c 1048576 /dev/zero | sha256sum
yes kevlar | head -n 50000 | md5sum
md5sum s > sums; md5sum -c sums
echo changed >> s; md5sum -c sums 2>/dev/null; echo "after change: $?"
exit 0
