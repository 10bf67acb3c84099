#!/bin/bash
# [[ ]] with patterns, regular expressions and BASH_REMATCH, -v, string and
# numeric comparisons; (( )) arithmetic and its exit status; case.
s="version-12.34-final"
[[ $s == version-* ]] && echo "glob match"
[[ $s =~ ([0-9]+)\.([0-9]+) ]] && echo "regex: ${BASH_REMATCH[0]} major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}"
[[ abc < abd ]] && echo "abc < abd"
[[ 10 -gt 9 && ! -z $s ]] && echo "numeric and -z"
unset undefined; [[ -v undefined ]] || echo "undefined is unset"
x=5; (( x * 3 == 15 )) && echo "arith true"
(( 0 )); echo "(( 0 )) status: $?"
echo "pow: $(( 2 ** 20 )) mod: $(( -7 % 3 )) shift: $(( 1 << 10 )) hex: $(( 0x1f )) base: $(( 2#1011 ))"
for w in apple 42 Zed ""; do
  case $w in
    [a-z]*) echo "$w: lower" ;;
    [0-9]*) echo "$w: digit" ;;
    "") echo "empty" ;;
    *) echo "$w: other" ;;
  esac
done
shopt -s extglob
f=file.tar.gz
[[ $f == *.@(gz|bz2) ]] && echo "extglob ok"
echo "${f%%.*} ${f#*.} ${f%.gz}"
exit 0
