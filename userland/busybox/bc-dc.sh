#!/bin/sh
# bc and dc calculators: integer and scaled arithmetic, powers, sqrt,
# variables, a loop, and dc's stack.
echo '2 + 3 * 4' | bc
echo '2 ^ 64' | bc
echo 'scale=5; 10 / 3' | bc
echo 'scale=10; sqrt(2)' | bc
echo 'a = 7; b = a * 6; b' | bc
echo 'for (i = 1; i <= 5; i++) { i * i }' | bc | tr '\n' ' '; echo
echo '-17 % 5' | bc
echo 'obase=16; 255' | bc
echo 'ibase=2; 101010' | bc
echo '3 4 + p' | dc
echo '2 10 ^ p' | dc
echo '5 k 1 3 / p' | dc
exit 0
