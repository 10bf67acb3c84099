#!/bin/sh
# Aliases in a script: defined and used on a later line, arguments
# appended, an alias ending in a space expands the next word, unalias,
# alias listing.
alias greet='echo hello'
alias say='echo '
alias word='WORLD'
greet there
say word
alias
unalias greet
greet 2>/dev/null; echo "after unalias: $?"
alias nothing 2>/dev/null; echo "missing alias: $?"
exit 0
