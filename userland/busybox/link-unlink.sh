#!/bin/sh
# link and unlink applets and hard links: the link count, shared content
# through either name, unlink of one name keeps the other, link to an
# existing name fails, unlink of a directory fails.
echo data > a
link a b; echo "link: $?"
stat -c '%h %n' a b
echo more >> b; cat a
ln a c; stat -c '%h' a
unlink a; echo "unlink: $?"; stat -c '%h %n' b c; cat c
link b c 2>/dev/null; echo "exists: $?"
mkdir d; unlink d 2>/dev/null; echo "unlink dir: $?"
link d e 2>/dev/null; echo "link dir: $?"
unlink missing 2>/dev/null; echo "missing: $?"
ls
exit 0
