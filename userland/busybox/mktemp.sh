#!/bin/sh
# mktemp: files are created mode 600 and directories 700 with the
# template's prefix, -p picks the directory, -u creates nothing, and a
# template without XXXXXX fails.
umask 022
f=$(mktemp -p . tmp.XXXXXX); echo "file status: $?"
case $f in ./tmp.??????) echo "file name matches";; *) echo "odd name $f";; esac
stat -c '%a %F %s' "$f"
d=$(mktemp -d -p . dir.XXXXXX); stat -c '%a %F' "$d"
g=$(TMPDIR=$PWD mktemp); case $g in "$PWD"/tmp.*) echo "TMPDIR used";; esac
u=$(mktemp -u -p . un.XXXXXX); [ -e "$u" ] || echo "-u made nothing"
a=$(mktemp -p . same.XXXXXX); b=$(mktemp -p . same.XXXXXX); [ "$a" != "$b" ] && echo "names differ"
mktemp -p . noxs 2>/dev/null; echo "no X: $?"
mktemp -p ./missing x.XXXXXX 2>/dev/null; echo "missing dir: $?"
ls | wc -l
exit 0
