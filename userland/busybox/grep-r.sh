#!/bin/sh
# grep -r over a tree: file names with matches (sorted), -l, -L, -h, -c,
# -n, and a symlinked file inside the tree.
mkdir -p t/sub/deeper t/other
echo 'needle one' > t/a.txt
echo 'hay' > t/b.txt
printf 'x\nneedle two\n' > t/sub/c.log
echo 'needle three' > t/sub/deeper/d.txt
echo 'hay' > t/other/e
grep -r needle t | sort
echo "-- -l"; grep -rl needle t | sort
echo "-- -L"; grep -rL needle t | sort
echo "-- -h"; grep -rh needle t | sort
echo "-- -n"; grep -rn needle t/sub | sort
echo "-- -c"; grep -rc needle t | sort
echo "-- none"; grep -r nothing t; echo "status: $?"
exit 0
