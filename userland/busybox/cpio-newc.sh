#!/bin/sh
# cpio: an archive written with -o -H newc from find, listed with -t and
# extracted with -i -d (modes, symlinks, contents kept), -m for times,
# and extracting one member by name.
export TZ=UTC
umask 022
mkdir -p tree/sub/empty
echo alpha > tree/a; seq 1 1000 > tree/sub/n; ln -s a tree/link
chmod 600 tree/a; chmod 711 tree/sub
touch -d '2003-03-03 03:03:03' tree/sub/n
find tree | sort | cpio -o -H newc > a.cpio 2>/dev/null; echo "create: $?"
cpio -t < a.cpio 2>/dev/null
mkdir out; (cd out && cpio -i -d -m < ../a.cpio 2>/dev/null); echo "extract: $?"
cd out && find tree | sort | while read -r f; do stat -c '%n %A' "$f"; done
readlink tree/link; cmp tree/sub/n ../tree/sub/n && echo "contents same"
stat -c '%Y %n' tree/sub/n; cd ..
mkdir sel; (cd sel && cpio -i -d tree/sub/n < ../a.cpio 2>/dev/null); find sel | sort
cpio -i < /dev/null 2>/dev/null; echo "empty input: $?"
exit 0
