#!/bin/sh
# printf numbers and escapes: %x %X %o %#x %#o, %e %f %g, %c, %b, %i,
# widths and precisions from arguments (*), negative values, octal and hex
# arguments, too few arguments, and an invalid number (status 1).
printf '%x %X %o %#x %#o\n' 255 255 8 255 8
printf '%e|%.2f|%g|%g\n' 1234.5 2.345 0.00001 100000
printf '%c%c%c\n' hello w 1
printf '%b\n' 'tab:\there' 'octal:\0101' 'stop:\cignored'
printf '%i %d %d %d\n' -7 010 0x1f "'A"
printf '[%*d] [%-*d] [%.*s]\n' 6 42 6 42 2 abcdef
printf '%s-%s\n' a b c
printf '%d %s|\n' 1
printf '%u\n' -1
printf '%d\n' abc 2>/dev/null; echo "invalid: $?"
printf '%5.1f%%\n' 99.44
printf 'no newline'; echo
printf '\x41\x42 \101\n'
exit 0
