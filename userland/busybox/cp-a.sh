#!/bin/sh
# cp -a: a tree copied with its modes, modification times, symlinks (dangling
# ones too) and empty directories kept; cp -p on a single file.
mkdir -p src/sub/empty
echo one > src/a; echo two > src/sub/b
chmod 640 src/a; chmod 711 src/sub; chmod 700 src/sub/empty
ln -s a src/link; ln -s ../missing src/sub/dangling
touch -d '2001-02-03 04:05:06' src/a
touch -d '2002-03-04 05:06:07' src/sub/b
touch -d '2003-04-05 06:07:08' src/sub/empty src/sub
cp -a src dst; echo "cp -a: $?"
cd dst
find . | sort
find . ! -type l | sort | while read -r f; do stat -c '%n %F %a %Y' "$f"; done | grep -v '^\. '
for l in link sub/dangling; do echo "$l -> $(readlink "$l")"; done
cat a sub/b
cd ..
cp -p src/a pa; stat -c '%n %a %Y' pa
cp src/a plain; stat -c '%n %a' plain
exit 0
