#!/bin/sh
# od and hexdump of fixed bytes: octal, hex, characters, canonical dump.
printf 'AB\n\000\377' > b
od -c b
od -An -tx1 b
od -An -to1 b
od -An -tu2 b
od -An -tx4 b
hexdump -C b
printf 'Kevlar kernel, in Rust.' | hexdump -C
printf '0123456789abcdefXYZ' | od -An -c -w8 2>/dev/null || printf '0123456789abcdefXYZ' | od -An -c
xxd b 2>/dev/null || echo "no xxd"
exit 0
