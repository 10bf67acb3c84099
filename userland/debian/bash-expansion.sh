#!/bin/bash
# Parameter expansion (substitution, case, substrings, defaults, indirect),
# brace expansion, printf -v, arithmetic, globbing with nullglob/dotglob.
s="Hello, World"
echo "${s//o/0} ${s^^} ${s,,} ${s:7} ${s:0:5} ${#s}"
echo "${unset_var:-default} ${s/#Hello/Bye} ${s/%World/There}"
ref=s; echo "indirect: ${!ref}"
echo {a,b}{1..3} {10..0..5} {x..z}
printf -v padded '%05d|%-6s|%x' 42 ab 255; echo "$padded"
touch b.txt a.txt .hidden c.log
echo *.txt
shopt -s nullglob; echo "none: [$(echo *.none)]"
shopt -s dotglob; echo *
set -- "a b" c; echo "$# $1"
IFS=: ; x="p:q:r"; set -- $x; echo "$# $2"
exit 0
