#!/bin/sh
# tee: copies stdin to stdout and files, -a appends.
echo hello | tee f1 f2
cat f1 f2
echo more | tee -a f1 > /dev/null
cat f1
seq 1 5000 | tee big | wc -l
wc -l < big
echo x | tee > /dev/null; echo "no files: $?"
echo y | tee nodir/file 2>/dev/null; echo "bad path: $?"
exit 0
