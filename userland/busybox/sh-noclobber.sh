#!/bin/sh
# set -C (noclobber): > refuses existing regular files but not /dev/null
# or new files, >> still appends, >| forces, set +C restores.
echo one > f
set -C
echo two > f 2>/dev/null; echo "existing: $?"; cat f
echo three >> f; cat f
echo four >| f; cat f
echo new > g; echo "new file: $?"; cat g
echo gone > /dev/null; echo "/dev/null: $?"
case $- in *C*) echo "C in \$-";; esac
set +C
echo five > f; echo "after +C: $?"; cat f
exit 0
