#!/bin/sh
# Pipelines run in subshells: a variable set in `... | while read` is
# gone after the loop; the usual fixes (a group, redirection from a file,
# a here-document) keep it.
n=0
printf 'a\nb\nc\n' | while read -r l; do n=$((n + 1)); done
echo "after pipe: $n"
printf 'a\nb\nc\n' | { m=0; while read -r l; do m=$((m + 1)); done; echo "in group: $m"; }
printf 'a\nb\nc\n' > f
n=0; while read -r l; do n=$((n + 1)); done < f; echo "from file: $n"
n=0; while read -r l; do n=$((n + 1)); done <<E
$(cat f)
E
echo "from here-doc: $n"
last=none; echo hello | read -r last; echo "read in pipe: $last"
exit 0
