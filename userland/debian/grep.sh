#!/bin/bash
# GNU grep: -E, -P (PCRE2), -F, -o, -c, -v, -i, -w, -n, -r, -l, -A/-B,
# exit statuses.
printf 'alpha 1\nBeta 22\ngamma 333\ndelta\nalphabet\n' > t
grep -E '^[ab][a-z]+ [0-9]{1,2}$' t
grep -P '(?<=gamma )\d+' -o t
grep -P '\bal\w+\b' t
grep -c a t; grep -v a t; grep -i beta t; grep -w alpha t; grep -n delta t
grep -F 'a 1' t
mkdir -p r/s; echo needle > r/s/f; echo hay > r/g
grep -r needle r; grep -rl hay r
grep -A1 Beta t; grep -B1 delta t
grep -q nothing t; echo "no match: $?"
grep nothing missing-file 2>/dev/null; echo "missing file: $?"
echo "x1y22z333" | grep -oE '[0-9]+' | tr '\n' ' '; echo
exit 0
