#!/bin/sh
# Input redirection: <, <&, reading a file line by line, read with IFS.
printf 'alpha\nbeta\ngamma\n' > in.txt
wc -l < in.txt
tr a-z A-Z < in.txt
while read line; do echo "line: $line"; done < in.txt
{ read a; read b; } < in.txt
echo "a=$a b=$b"
exec 3< in.txt
read x <&3
read y <&3
exec 3<&-
echo "fd3: $x $y"
printf 'k1:v1\nk2:v2\n' > kv
while IFS=: read k v; do echo "$k => $v"; done < kv
cat < missing 2>/dev/null; echo "missing input: $?"
exit 0
