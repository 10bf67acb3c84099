#!/bin/bash
# Process substitution through /dev/fd (made here when the kernel's devtmpfs
# does not have it, as udev would): diff of two commands, reading a loop
# from one, writing into one, and the fd path's form.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
diff <(printf 'a\nb\nc\n') <(printf 'a\nB\nc\n')
echo "diff status: $?"
n=0
while read -r line; do n=$((n + line)); done < <(seq 1 100)
echo "sum: $n"
echo hello > >(tr a-z A-Z > upper.txt)
wait $!
cat upper.txt
p=<(true); [[ $p == /dev/fd/* ]] && echo "path is /dev/fd/N"
paste <(seq 3) <(seq 4 6) <(seq 7 9)
exit 0
