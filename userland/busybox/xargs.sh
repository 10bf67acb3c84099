#!/bin/sh
# xargs: default echo, -n, -I, -0, with find, empty input, exit status 123.
echo a b c | xargs
echo a b c | xargs echo args:
echo a b c d e | xargs -n 2 echo
printf 'x\ny\n' | xargs -I{} echo "<{}>"
printf 'with space\0second\0' | xargs -0 -n 1 echo
mkdir d; touch d/one d/two d/three
find d -type f | sort | xargs ls
: | xargs echo empty-input
: | xargs -r echo not-run; echo "-r status: $?"
echo 1 2 | xargs sh -c 'exit 1'; echo "failing command: $?"
seq 1 1000 | xargs | wc -w
printf "'quoted arg' plain\n" | xargs -n 1 echo
exit 0
