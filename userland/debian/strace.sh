#!/bin/bash
# strace over ptrace: following every process of a pipeline (-f), and a
# summary (-c) of which system calls `true` makes. Only facts that do not
# vary are printed: the programs exec'd, how the processes ended, the
# command's output, the names of the summarized calls (not their counts
# or times).
strace -f -o /tmp/t sh -c 'ls / | wc -l'
echo "strace status: $?"
# Every program an execve named (with -f, a call's result may come on a
# later "resumed" line, so the names are what is compared).
grep -o 'execve("[^"]*"' /tmp/t | sort -u
echo "processes exited 0: $(grep -c '+++ exited with 0 +++' /tmp/t)"
grep -q 'exit_group(0)' /tmp/t && echo "exit_group(0) traced"
grep -q 'pipe2\?(\[' /tmp/t && echo "pipe traced"
strace -c -o /tmp/c true
echo "strace -c status: $?"
awk '$1 !~ /^(%|-)/ && $NF != "total" { print $NF }' /tmp/c | sort
rm -f /tmp/t /tmp/c
exit 0
