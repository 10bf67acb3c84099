#!/bin/sh
# hexdump -C and custom formats, xxd plain and -p, and xxd -r turning a
# dump back into the same bytes.
printf 'Hello, Kevlar!\n\000\001\002\177\200\377' > b
hexdump -C b
hexdump -e '8/1 "%02x " "\n"' b
hexdump -n 4 -e '4/1 "%c" "\n"' b
xxd b
xxd -p b
xxd -g 4 -c 8 b
xxd b | xxd -r > back; cmp b back && echo "xxd -r: same"
xxd -p b | xxd -r -p > back2; cmp b back2 && echo "xxd -r -p: same"
head -c 48 /dev/zero | hexdump -C
exit 0
