#!/bin/sh
# mkfifo: a named pipe between a background writer and a reader.
mkfifo p
stat -c %F p
(seq 1 5 > p) &
cat p | tr '\n' ' '; echo
wait
(echo from-writer > p) &
read line < p; echo "read: $line"
wait
( exec 3> p; seq 1 1000 >&3 ) &
wc -l < p
wait
mkfifo p 2>/dev/null; echo "mkfifo existing: $?"
mkfifo -m 600 q; stat -c '%a %F' q
exit 0
