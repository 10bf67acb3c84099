#!/bin/sh
# Rebuilds tests/fixture.cpio.gz with the real GNU cpio and gzip, so that the
# parser is checked against what the tools actually write (not only against
# our own test encoder). Needs root for the device nodes. Run from anywhere.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/fixture.cpio.gz"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p root/bin root/etc root/dev root/run
cd root
printf 'hello from cpio\n' > bin/hello
chmod 755 bin/hello
ln -s hello bin/sh
printf 'Welcome to Kevlar\n' > etc/motd
printf 'linked\n' > etc/a
ln etc/a etc/b
ln etc/a bin/c
mknod dev/null c 1 3
mknod dev/sda b 8 0
mkfifo run/fifo
chmod 1777 run
chmod 4711 bin/hello
find . -exec touch -h -d @1700000000 {} +
find . | LC_ALL=C sort | cpio -o -H newc --reproducible -R 0:0 2>/dev/null | gzip -9 -n > "$out"
ls -l "$out"
