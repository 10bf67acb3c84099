#!/bin/sh
# printf (the applet and the shell builtin): formats, widths, escapes, reuse of the format.
printf '%s\n' hello
printf '%d|%5d|%-5d|%05d\n' 42 42 42 42
printf '%x %X %o %#x\n' 255 255 8 255
printf '%c%c\n' A BC
printf '%s-%s\n' a b c d
printf '%.3s|%8.3f|%-8.2f|\n' abcdef 3.14159 2.5
printf '%e\n' 1234.5
printf 'tab\there\nnewline\\n literal\n'
printf '%b\n' 'escape\tin arg'
printf '%%\n'
printf '\101\102\n'
printf '%d\n' 0x10 010 -7
printf '%s\n'
/usr/bin/printf 'applet %s %d\n' x 9
printf '%d\n' notanumber 2>/dev/null; echo "bad number: $?"
printf '%i %u\n' 12 34
exit 0
