#!/bin/sh
# tar: create, list and extract a tree (plain and gzipped); contents survive.
mkdir -p tree/sub/deeper tree/empty
echo one > tree/a.txt
seq 1 1000 > tree/sub/numbers
head -c 30000 /dev/zero | tr '\0' 'z' > tree/sub/deeper/zzz
ln -s a.txt tree/link
chmod 700 tree/sub/deeper
tar cf t.tar tree
tar tf t.tar | sort
mkdir out && cd out && tar xf ../t.tar && cd ..
find out | sort
for f in a.txt sub/numbers sub/deeper/zzz; do cmp tree/$f out/tree/$f && echo "same: $f"; done
readlink out/tree/link
stat -c '%a %n' out/tree/sub/deeper
tar czf t.tgz -C tree .
mkdir out2; tar xzf t.tgz -C out2
(cd out2 && find . -type f | sort | xargs md5sum)
tar tzf t.tgz | sort | head -n 4
tar xf missing.tar 2>/dev/null; echo "missing archive: $?"
tar cf - tree/a.txt | tar xOf - tree/a.txt
exit 0
