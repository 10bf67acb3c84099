#!/bin/sh
# Command substitution of large outputs (well over a pipe buffer): every
# byte arrives, trailing newlines are stripped, and a substitution that
# fills the pipe while the shell reads still finishes.
seq 1 30000 > nums
all=$(cat nums)
echo "${#all}"
printf '%s\n' "$all" | cmp - nums && echo "identical"
big=$(head -c 200000 /dev/zero | tr '\0' 'a')
echo "${#big}"
t=$(printf 'x\n\n\n\n'); echo "[$t]"
lines=$(seq 1 5000 | while read -r l; do echo "line $l"; done)
echo "$lines" | tail -n 1
exit 0
