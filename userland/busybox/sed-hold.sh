#!/bin/sh
# sed hold space and multi-line commands: reversing lines (G, h, $!d),
# joining pairs with N, swapping with x, D/P loops, H accumulation.
seq 1 5 > n
sed -n '1!G;h;$p' n
sed 'N;s/\n/+/' n
sed -n 'h;n;G;p' n
sed '$!N;P;D' n
sed -n 'H;${x;s/\n/,/g;s/^,//;p}' n
printf 'a\na\nb\nb\nb\nc\n' | sed '$!N;/^\(.*\)\n\1$/!P;D'
sed -n '/2/{h;d};/4/{G;p}' n
sed 'x;$!d;x' n
exit 0
