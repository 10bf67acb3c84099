#!/bin/sh
# $(( )) operators: ++/-- and compound assignments, ternary, bitwise and
# shifts, logical operators short-circuiting, comparisons, unary, nested
# variables, hex and octal and base#n, division by zero.
i=5
echo $((i++)) $i $((++i)) $i $((i--)) $((--i))
x=10; : $((x += 5)); : $((x *= 2)); : $((x -= 6)); : $((x /= 4)); : $((x %= 4)); echo "x=$x"
y=1; : $((y <<= 4)); : $((y |= 3)); : $((y ^= 1)); : $((y &= 30)); echo "y=$y"
echo $((3 > 2 ? 10 : 20)) $((0 ? 1 : 0 ? 2 : 3))
echo $((0xff & 0x0f)) $((6 | 9)) $((6 ^ 3)) $((~0)) $((1 << 10)) $((-16 >> 2))
echo $((1 && 2)) $((0 || 0)) $((!5)) $((!0))
z=0; echo $((0 && (z = 1))) $z $((1 || (z = 2))) $z
echo $((2 < 3)) $((2 <= 2)) $((3 == 4)) $((3 != 4)) $((-3 >= -2))
echo $((010)) $((0x10)) $((2#1010)) $((36#z)) $((-(-5))) $((+7))
a=b; b=c; c=9; echo $((a + 1))
echo $((2 ** 16)) $((7 / -2)) $((-7 % 3))
echo $((9223372036854775807 + 1))
sh -c 'echo $((1 / 0))' 2>/dev/null; echo "divide by zero: $?"
exit 0
