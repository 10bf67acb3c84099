#!/bin/sh
# while, until, for (lists, "$@", globs), break, continue, nested break 2.
i=0
while [ $i -lt 3 ]; do echo "while $i"; i=$((i + 1)); done
until [ $i -eq 0 ]; do echo "until $i"; i=$((i - 1)); done
for x in one two three; do echo "for $x"; done
set -- "a b" c
for x in "$@"; do echo "arg [$x]"; done
for x; do echo "implicit [$x]"; done
for n in 1 2 3 4 5 6; do
  [ $n -eq 2 ] && continue
  [ $n -eq 5 ] && break
  echo "n=$n"
done
for a in 1 2 3; do
  for b in x y z; do
    [ $b = y ] && continue 2
    [ $a = 3 ] && break 2
    echo "$a$b"
  done
done
seq 3 | while read l; do echo "piped $l"; done
k=0; while :; do k=$((k + 1)); [ $k -ge 1000 ] && break; done; echo "k=$k"
for e in; do echo never; done; echo "empty for ok"
exit 0
