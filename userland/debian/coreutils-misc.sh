#!/bin/bash
# More coreutils: basename/dirname, printf, expr, test, env -i, tee, factor,
# numfmt, yes, shuf with a fixed source, fmt, csplit, uname -s/-m, nice,
# timeout, stdbuf, sync, true/false, tty on a pipe.
basename /a/b/c.txt .txt; dirname /a/b/c.txt
printf '%s|%5s|%-5s|%d|%o|%e\n' x y z 42 8 12345.678
expr 7 \* 6; expr length hello; expr 'abc123' : '[a-z]*'
env -i A=1 B=2 env | sort
echo tee-data | tee t1 t2 >/dev/null; cat t1 t2
factor 360 1001; numfmt --to=iec 1048576 123456789
yes | head -3 | tr '\n' ' '; echo
seq 1 10 | shuf --random-source=<(yes) | sort -n | tr '\n' ' '; echo
echo "a b c d e f g h i j k l" | fmt -w 10
seq 1 9 > s; csplit -s s 4 7; cat xx01 | tr '\n' ' '; echo
uname -s -m
nice -n 5 nice
timeout 0.5 sleep 10; echo "timeout status: $?"
echo out | stdbuf -oL cat
sync && echo synced
true; echo "true: $?"; false; echo "false: $?"
echo | tty; echo "tty status: $?"
exit 0
