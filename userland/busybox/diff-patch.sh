#!/bin/sh
# diff -u | patch: a unified diff applied with patch gives the new file;
# -R reverts it; -p1 strips a directory; a reject leaves the file alone.
seq 1 30 > old
sed -e 's/^5$/five/' -e '/^20$/d' -e '$a\
thirty-one' old > new
cp old work
diff -u old new > change.diff
patch work < change.diff; echo "patch: $?"
cmp work new && echo "work == new"
patch -R work < change.diff; echo "-R: $?"
cmp work old && echo "work == old"
mkdir -p a b; cp old a/f; cp new b/f
diff -u a/f b/f > p1.diff
mkdir tree; cp old tree/f
(cd tree && patch -p1 < ../p1.diff); echo "-p1: $?"
cmp tree/f new && echo "tree/f == new"
printf 'nothing\nalike\n' > other
patch other < change.diff >/dev/null 2>&1; echo "does not apply: $?"
cat other
exit 0
