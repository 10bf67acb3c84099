#!/bin/sh
# <> opens a file for reading and writing without truncating it; >|
# overrides noclobber; 2>&1 order matters; &> and >& forms; a redirection
# to a missing directory fails only that command.
printf 'hello world\n' > f
exec 3<> f
read -r word <&3; echo "read: $word"
printf 'XY' >&3
exec 3>&-
cat f; echo
printf 'abc' > g
echo Z 1<> g; cat g; echo
1<>h echo new; cat h
set -C
echo clobber > f 2>/dev/null; echo "noclobber: $?"
echo forced >| f; cat f
set +C
ls missing-file > both 2>&1; wc -l < both
ls missing-file 2>&1 > only-out | wc -l; wc -c < only-out
sh -c 'echo out; echo err >&2' > all 2>&1; sort all
echo x > nodir/file 2>/dev/null; echo "missing dir: $?"
echo "still here"
exit 0
