#!/bin/sh
# sed -i edits files in place: several files, a backup suffix, the mode of
# the file kept, a hard link broken (sed writes a new file and renames it),
# and a symlink left in place or not.
umask 022
printf 'one\ntwo\nthree\n' > a
printf 'two\nfour\n' > b
chmod 640 a
sed -i 's/two/2/' a b; echo "status: $?"
cat a b
stat -c '%a %n' a
sed -i.bak '/one/d' a; cat a; cat a.bak
ln b b-link; stat -c '%h %n' b
sed -i 's/4/four!/' b; stat -c '%h %n' b b-link; cat b-link b
sed -i -e '1i\' -e 'first' -e '$a\' -e 'last' a; cat a
printf 'no newline' > nn; sed -i 's/no/yes/' nn; od -c nn | head -n 1
sed -i 's/x/y/' missing 2>/dev/null; echo "missing: $?"
ls | sort
exit 0
