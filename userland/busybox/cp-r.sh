#!/bin/sh
# cp -r: into a new name, into an existing directory, the contents of a
# directory with src/., symlinks copied as links; errors without -r, onto
# itself, and -n keeping an existing file.
mkdir -p src/d
echo a > src/f; echo b > src/d/g
ln -s f src/l
cp -r src new; echo "new: $?"
mkdir exist; cp -r src exist; echo "into existing: $?"
mkdir dot; cp -r src/. dot; echo "contents: $?"
find new exist dot | sort
echo "link in copy: $(readlink new/l)"
cp src dir-no-r 2>/dev/null; echo "dir without -r: $?"
cp src/f src/f 2>/dev/null; echo "onto itself: $?"
echo keep > kept; cp -n src/f kept; echo "-n: $? $(cat kept)"
cp src/f src/d/g two-sources 2>/dev/null; echo "two files to a non-dir: $?"
mkdir t; cp src/f src/d/g t; ls t
cp -r missing x 2>/dev/null; echo "missing: $?"
exit 0
