#!/bin/sh
# ln -s, readlink, readlink -f, hard links, dangling links, ln -sf replacing.
echo content > target
ln -s target sym
readlink sym
cat sym
ln -s /no/such/place dangling
readlink dangling
cat dangling 2>/dev/null; echo "cat dangling: $?"
mkdir d; ln -s ../target d/up
readlink d/up; cat d/up
readlink -f d/up | sed "s|^$PWD|.|"
ln -s sym chain; cat chain; readlink chain
ln target hard
echo "link count: $(stat -c %h target)"
echo more >> hard; cat target
rm target; cat hard; cat sym 2>/dev/null; echo "sym after target removed: $?"
ln -s first s2; ln -sf second s2; readlink s2
ln hard hard 2>/dev/null; echo "ln onto itself: $?"
ln -s x sym 2>/dev/null; echo "ln -s existing: $?"
readlink hard; echo "readlink on a file: $?"
ln -s loop1 loop2; ln -s loop2 loop1; cat loop1 2>/dev/null; echo "loop: $?"
stat -c '%F' sym hard d
exit 0
