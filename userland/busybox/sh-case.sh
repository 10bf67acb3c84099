#!/bin/sh
# case: literal, alternatives, globs, character classes, default, fallthrough order.
for w in apple banana cherry 42 x.tar.gz "" "a b" Zed; do
  case $w in
    apple|banana) r=fruit-ab ;;
    c*) r=starts-c ;;
    [0-9][0-9]) r=two-digits ;;
    *.tar.gz) r=tarball ;;
    "") r=empty ;;
    *" "*) r=has-space ;;
    [A-Z]*) r=capital ;;
    *) r=other ;;
  esac
  echo "'$w' -> $r"
done
x=hello
case $x in h*) echo first;; *) echo second;; esac
case $x in "h*") echo literal;; *) echo "quoted pattern is literal";; esac
p='h*'; case $x in $p) echo "unquoted var pattern globs";; esac
case x in y) echo no;; esac; echo "no match status: $?"
exit 0
