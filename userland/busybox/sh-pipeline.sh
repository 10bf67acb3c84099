#!/bin/sh
# Pipelines through `sh -c`: data flows through several processes in order,
# and a pipeline's status is its last command's.
sh -c 'echo "c b a" | tr " " "\n" | sort | tr "\n" ","'; echo
sh -c 'seq 1 10 | grep 1 | wc -l'
sh -c 'printf "x\ny\nz\n" | cat | cat | cat | tail -n 1'
seq 1 2000 | sort -rn | head -n 3
echo "long pipe lines: $(seq 1 20000 | cat | wc -l)"
false | true; echo "false|true: $?"
true | false; echo "true|false: $?"
sh -c 'exit 3' | sh -c 'exit 4'; echo "exit3|exit4: $?"
! false | false; echo "! pipeline: $?"
echo abc | { read v; echo "group read: $v"; }
exit 0
