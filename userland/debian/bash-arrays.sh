#!/bin/bash
# Bash indexed and associative arrays: assignment, length, slices, keys,
# appending, unset, "${a[@]}" vs "${a[*]}" with IFS, mapfile.
a=(zero one "two words" three)
echo "len: ${#a[@]}"
echo "slice: ${a[@]:1:2}"
a+=(four)
unset 'a[0]'
echo "after unset: ${#a[@]} first index: ${!a[*]}"
for x in "${a[@]}"; do echo "item <$x>"; done
IFS=,; echo "joined: ${a[*]}"; unset IFS
declare -A h=([apple]=red [banana]=yellow [cherry]=dark\ red)
h[date]=brown
for k in $(printf '%s\n' "${!h[@]}" | sort); do echo "$k=${h[$k]}"; done
echo "has banana: ${h[banana]+yes}"
echo "has kiwi: ${h[kiwi]-no}"
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
mapfile -t lines < <(printf 'l1\nl2\nl3\n')
echo "mapfile: ${#lines[@]} ${lines[2]}"
declare -p a
exit 0
