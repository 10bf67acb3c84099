#!/bin/sh
# IFS field splitting: default whitespace collapsing, non-whitespace
# separators keeping empty fields, mixed IFS, empty IFS (no splitting),
# "$*" joining with IFS's first character, read with a custom IFS.
count() { echo "$# $(printf '[%s]' "$@")"; }
v="  a  b   c  "
count $v
IFS=:; v="a::b:c:"; count $v
IFS=' :'; v=" a : b::c "; count $v
IFS=; v="a b:c"; count $v
IFS=,; set -- x y z; echo "$*"
IFS=' 	
'
set -- one two; IFS=-; echo "$*"; IFS=' 	
'
echo "a:b:c" | { IFS=: read -r x y z; echo "x=$x y=$y z=$z"; }
echo "a:b:c:d" | { IFS=: read -r x y; echo "x=$x y=$y"; }
line='k1=v1;k2=v2'; IFS=';'; for kv in $line; do echo "pair $kv"; done
unset IFS; v="p  q"; count $v
exit 0
