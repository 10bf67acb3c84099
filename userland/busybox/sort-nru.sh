#!/bin/sh
# sort -n/-r/-u and friends: negative and decimal numbers, leading blanks,
# -f folding case, -b, -z, -M months, large input.
printf '10\n-5\n3.5\n0\n-0.5\n100\n7\n' > n
sort -n n | tr '\n' ' '; echo
sort -rn n | tr '\n' ' '; echo
sort n | tr '\n' ' '; echo
printf 'b\nB\na\nA\nb\n' > w
sort w | tr '\n' ' '; echo
sort -f w | tr '\n' ' '; echo
sort -u w | tr '\n' ' '; echo
sort -fu w | wc -l
printf '  z\na\n b\n' | sort -b | tr '\n' '|'; echo
printf 'c\0a\0b\0' | sort -z | tr '\0' ' '; echo
printf 'Mar\nJan\nDec\nFeb\n' | sort -M | tr '\n' ' '; echo
seq 1 20000 | sort -rn | head -n 3 | tr '\n' ' '; echo
seq 1 5000 | sort | md5sum
exit 0
