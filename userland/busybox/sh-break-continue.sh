#!/bin/sh
# break and continue: in for/while/until, with levels (break 2,
# continue 2), in nested loops and inside a case.
for i in 1 2 3 4 5; do
  [ $i = 2 ] && continue
  [ $i = 4 ] && break
  echo "for $i"
done
i=0
while :; do i=$((i + 1)); [ $i -gt 5 ] && break; [ $((i % 2)) = 0 ] && continue; echo "while $i"; done
n=0
until [ $n -ge 3 ]; do n=$((n + 1)); echo "until $n"; done
for a in x y z; do
  for b in 1 2 3; do
    [ $b = 2 ] && continue 2
    [ $a = z ] && break 2
    echo "$a$b"
  done
  echo "not reached"
done
for w in one two three; do
  case $w in two) continue;; three) break;; esac
  echo "case $w"
done
for i in 1 2; do for j in 1 2; do for k in 1 2; do [ $k = 2 ] && break 3; echo "$i$j$k"; done; done; done
echo "loops done"
exit 0
