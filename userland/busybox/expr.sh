#!/bin/sh
# expr: arithmetic, comparisons, string functions, and exit statuses (0, 1, 2).
expr 3 + 4
expr 10 - 15
expr 6 \* 7
expr 17 / 5
expr 17 % 5
expr 3 \< 4
expr abc = abc
expr length "hello world"
expr substr abcdef 2 3
expr index abcdef d
expr match abc123 'abc\([0-9]*\)'
expr abc123 : '[a-z]*'
expr 0; echo "zero result: $?"
expr "" ; echo "empty result: $?"
expr 1 / 0 2>/dev/null; echo "divide by zero: $?"
expr 5 \> 3 \& 2 \> 1
expr 0 \| 7
x=1; x=$(expr $x + 1); echo "incremented: $x"
exit 0
