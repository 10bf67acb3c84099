#!/bin/sh
# cp, mv, rm, mkdir -p, rmdir: files and trees, errors, the tree left behind.
show() { echo "-- $1"; find . | sort; }
mkdir -p a/b/c
echo x > a/b/c/file
echo y > a/top
show "mkdir -p"
mkdir -p a/b/c; echo "mkdir -p existing: $?"
mkdir a 2>/dev/null; echo "mkdir existing: $?"
cp a/top copy; cat copy
cp -r a tree
show "cp -r"
cmp a/b/c/file tree/b/c/file && echo "copied content equal"
mv copy moved
mv moved a/
mv tree renamed
show "mv"
echo over > o1; echo under > o2
mv o1 o2; cat o2; [ -e o1 ] || echo "o1 gone"
cp o2 a/b; cat a/b/o2
rmdir a 2>/dev/null; echo "rmdir non-empty: $?"
rm a/b/c/file; rmdir a/b/c; echo "rmdir empty: $?"
rm -r renamed
rm o2
show "rm"
rm nothing 2>/dev/null; echo "rm missing: $?"
rm -f nothing; echo "rm -f missing: $?"
rm a 2>/dev/null; echo "rm dir without -r: $?"
mkdir -p x/y/z; rmdir -p x/y/z; [ -e x ] || echo "rmdir -p removed all"
rm -rf a; show "rm -rf"
cp nothing dst 2>/dev/null; echo "cp missing: $?"
echo data > src; chmod 640 src; cp -p src dst; stat -c %a dst
exit 0
