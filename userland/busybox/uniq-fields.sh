#!/bin/sh
# uniq with -f (skip fields), -s (skip characters), -w (compare width),
# -i (ignore case), -c/-d/-u combined, and an output file operand.
printf '1 apple\n2 apple\n3 pear\n4 Pear\n5 pear\n' > f
uniq -f 1 f
echo "--"; uniq -f 1 -c f
echo "--"; uniq -f 1 -i -c f
echo "--"; uniq -s 2 -d f
echo "--"; uniq -f 1 -u f
echo "--"; printf 'abc1\nabc2\nabd3\n' | uniq -w 3 -c
uniq f out; cat out | wc -l
printf 'x\nx\ny\n' | sort | uniq -c | sort -rn | head -n 1
exit 0
