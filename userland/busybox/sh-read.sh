#!/bin/sh
# read: from a pipe into a group, several variables, the rest into the last,
# -r keeps backslashes, IFS splitting, EOF status.
echo "a b c d" | { read x y z; echo "x=$x y=$y z=$z"; }
echo "one" | { read x y; echo "x=$x y=[$y]"; }
printf 'back\\slash\n' | { read -r l; echo "raw: $l"; }
printf 'back\\slash\n' | { read l; echo "cooked: $l"; }
echo "r:o:o:t" | { IFS=: read a b c; echo "$a|$b|$c"; }
echo "  padded  " | { read l; echo "[$l]"; }
echo "  padded  " | { IFS= read -r l; echo "[$l]"; }
printf 'no newline' | { read l; echo "status $? [$l]"; }
: | { read l; echo "eof status: $?"; }
seq 5 | { s=0; while read n; do s=$((s + n)); done; echo "sum: $s"; }
printf 'l1\nl2\nl3\n' | { read a; read b; echo "$a then $b"; cat; }
echo "last" | read v; echo "pipe subshell keeps v unset: [${v-unset}]"
exit 0
