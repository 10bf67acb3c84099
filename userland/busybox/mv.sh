#!/bin/sh
# mv: rename, into a directory, over an existing file, directories over
# empty and non-empty directories, into its own subdirectory, -n.
echo one > a; echo two > b
mv a c; echo "rename: $? $(cat c)"
mv c b; echo "over file: $? $(cat b)"; ls
mkdir d; mv b d; echo "into dir: $?"; ls d
mkdir -p e/f; echo x > e/f/x
mkdir empty; mv e empty; echo "dir into dir: $?"; find empty | sort
mkdir src dst; echo s > src/s; mv -T src dst 2>/dev/null; echo "dir over empty dir: $?"; find dst | sort
mkdir src2 full; echo s > src2/s; mkdir full/src2; echo t > full/src2/t
mv src2 full 2>/dev/null; echo "dir over non-empty dir: $?"
mkdir self; mv self self/sub 2>/dev/null; echo "into itself: $?"
echo keep > k; echo new > n; mv -n n k; echo "-n: $? $(cat k) $(cat n)"
mv missing z 2>/dev/null; echo "missing: $?"
echo f > file; mkdir dir; mv dir file 2>/dev/null; echo "dir over file: $?"
mv file dir 2>/dev/null; echo "file into dir: $?"; ls dir
exit 0
