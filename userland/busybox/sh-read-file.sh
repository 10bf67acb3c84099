#!/bin/sh
# Reading files with read: a while loop with < file at done, a last line
# without a newline, IFS= keeping blanks, -r keeping backslashes, several
# files on several fds, read -n, read -d, and the EOF status.
printf 'first line\n  indented\\tab  \nlast no newline' > f
while read -r line; do echo "[$line]"; done < f
echo "--"
while IFS= read -r line || [ -n "$line" ]; do echo "[$line]"; done < f
echo "--"
while read line; do echo "[$line]"; done < f
echo "--"
printf '1\n2\n3\n' > a; printf 'x\ny\n' > b
while read -r n <&3 && read -r l <&4; do echo "$n $l"; done 3<a 4<b
read -r one < a; echo "one line: $one"
read -n 3 part < f; echo "read -n: [$part]"
read -d ' ' word < f; echo "read -d: [$word]"
read -r x < /dev/null; echo "EOF: $? [$x]"
{ read -r l1; read -r l2; } < a; echo "group: $l1 $l2"
exit 0
