#!/bin/sh
# Globbing with ranges and classes: [a-c]*, [!a-c]*, [[:upper:]]*,
# ?-patterns across directories (*/x), a no-match pattern kept literally,
# quoted and escaped metacharacters, set -f, and dot files only with .*
touch apple banana cherry date Egg Fig 1one 2two .dot '*star' 'q?mark'
mkdir -p d1 d2 d3; touch d1/x d2/x d3/y
echo [a-c]*
echo [!a-c]*
echo [[:upper:]]*
echo [[:digit:]]*
echo */x
echo d?/*
echo [x-z]*
echo "[a-c]*"
echo \*star
echo '*'*
echo q\?mark
echo .*
echo *[!a-z]*
set -f; echo [a-c]*; set +f
for f in d*; do printf '%s,' "$f"; done; echo
exit 0
