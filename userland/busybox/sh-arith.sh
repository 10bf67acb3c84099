#!/bin/sh
# Arithmetic expansion $(( )): operators, precedence, bases, variables, assignment.
echo $((1 + 2 * 3))
echo $(((1 + 2) * 3))
echo $((17 / 5)) $((17 % 5)) $((-17 / 5)) $((-17 % 5))
echo $((2 << 10)) $((1024 >> 3)) $((5 & 3)) $((5 | 3)) $((5 ^ 3)) $((~0))
echo $((3 > 2)) $((3 < 2)) $((2 == 2)) $((2 != 2)) $((1 && 0)) $((1 || 0)) $((!5))
echo $((0x1f)) $((010)) $((16#ff)) $((2#1011))
x=7; y=3
echo $((x * y)) $(($x - $y)) $((x > y ? x : y))
echo $((x += 5)) $x
i=0; while [ $i -lt 5 ]; do i=$((i + 1)); done; echo "loop: $i"
echo $((9223372036854775807)) $((9223372036854775807 + 1))
echo $(( (1 << 62) * 2 ))
a=5; echo $((a++)) $a $((++a)) $((a--)) $a
echo $((  100 / ( 3 + 2 ) ))
unset z; echo "unset is zero: $((z + 1))"
exit 0
