#!/bin/sh
# Positional parameters: sh -c with $0 and args, "$@" vs "$*", IFS joins, set --.
sh -c 'echo "0=$0 1=$1 2=$2 #=$#"' name a b
set -- "a b" c "" d
echo "count: $#"
for a in "$@"; do printf '[%s]' "$a"; done; echo
for a in $@; do printf '[%s]' "$a"; done; echo
echo "star: $*"
IFS=,; echo "joined: $*"; unset IFS
set -- 1 2 3 4 5 6 7 8 9 10 11
echo "tenth: ${10} eleventh: ${11} count: $#"
shift 3; echo "after shift: $1 ($#)"
set --; echo "cleared: $#"
words="x y   z"
set -- $words; echo "split: $#"
IFS=:; line="a:b::c"; set -- $line; echo "colon split: $#"; unset IFS
echo "dollar-dash has no i: $(case $- in *i*) echo interactive;; *) echo ok;; esac)"
exit 0
