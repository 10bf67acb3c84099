#!/bin/sh
# Parameter expansion: length, prefix/suffix removal, defaults, substrings, replace.
x=dir/sub/file.tar.gz
echo "${#x}"
echo "${x%.*}"
echo "${x%%.*}"
echo "${x#*/}"
echo "${x##*/}"
echo "${x%/*}"
empty=
echo "[${unset_var:-default}] [${empty:-default}] [${empty-default}]"
echo "[${unset_var+alt}] [${x:+alt}] [${empty:+alt}]"
: ${assigned:=value}; echo "assigned=$assigned"
echo "${x:4:3}"
echo "${x:8}"
echo "${x/t/T}"
echo "${x//t/T}"
y=aaa.bbb.ccc
echo "${y#*.} ${y##*.} ${y%.*} ${y%%.*}"
s="hello world"
echo "${#s} ${s% *} ${s#* }"
(: ${must_fail?custom message}) 2>&1 | sed 's/^[^:]*: //'
echo "upper via tr: $(echo $s | tr a-z A-Z)"
n=0042; echo "${n#00}"
exit 0
