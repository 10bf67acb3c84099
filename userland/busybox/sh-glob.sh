#!/bin/sh
# Pathname expansion in a scratch directory: *, ?, [a-c], [!a], no-match, dot files.
touch a b c d ab abc .hidden x1 x2 x10 file.txt file.c
mkdir sub; touch sub/s1 sub/s2
echo *
echo ?
echo ??
echo [a-c]
echo [!a-c]
echo x?
echo x*
echo *.txt *.c
echo .*
echo sub/*
echo */s?
echo nomatch*
echo "quoted *"
set -- a*; echo "count a*: $#"
for f in [ab]*; do printf '%s;' "$f"; done; echo
set -f; echo *; set +f
echo [[:digit:]]* x[[:digit:]]
exit 0
