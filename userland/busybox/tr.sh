#!/bin/sh
# tr: ranges, -d, -s, -c, classes, escapes.
echo "Hello World" | tr a-z A-Z
echo "Hello World" | tr A-Z a-z
echo "hello world" | tr -d lo
echo "aaabbbccc   dd" | tr -s 'a-c '
echo "abc123def" | tr -cd 0-9; echo
echo "a,b,c" | tr , '\n'
echo "tabs	here" | tr '\t' '_'
echo "hello" | tr 'a-y' 'b-z'
echo "MiXeD 123" | tr '[:upper:]' '[:lower:]'
echo "space  separated   words" | tr -s ' ' '\n'
printf 'a\0b\0' | tr '\0' '\n'
exit 0
