#!/bin/sh
# awk string functions: length, substr, index, match with RSTART/RLENGTH,
# sub and gsub (with &), toupper/tolower, sprintf, string comparison.
awk 'BEGIN {
  s = "Hello, World"
  print length(s), substr(s, 8), substr(s, 1, 5), index(s, "World"), index(s, "x")
  print match(s, /o, W/), RSTART, RLENGTH
  t = s; n = gsub(/o/, "0", t); print n, t
  t = s; sub(/World/, "[&]", t); print t
  t = "aaa"; gsub(/a/, "\\&", t); print t
  print toupper(s), tolower(s)
  printf "%5s|%-5s|%.2s|%c|%c\n", "ab", "cd", "efgh", 65, "zed"
  printf "%d %i %o %x %X %e %.3f %g\n", 42.9, -3, 8, 255, 255, 12345.678, 3.14159, 0.0001
  x = sprintf("%03d-%s", 7, "x"); print x
  print ("abc" < "abd"), ("10" < "9"), (10 < 9), ("a" "b" == "ab")
}'
echo "a-b-c" | awk '{ gsub("-", ""); print }'
echo "  padded  " | awk '{ print "[" $0 "]", "[" $1 "]" }'
exit 0
