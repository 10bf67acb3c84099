#!/bin/sh
# command -v / type / which: builtins, functions, aliases, applets found
# on PATH, absolute paths and missing names; `command` bypassing a
# function; hash.
myfn() { echo "function ran"; }
alias ll='ls -l'
command -v cd; command -v myfn; command -v ls; command -v /bin/cat; command -v nothing-here; echo "missing: $?"
command -v ll
type echo; type myfn | head -n 1; type ls; type nothing-here 2>/dev/null; echo "type missing: $?"
which ls; which nothing-here; echo "which missing: $?"
ls() { echo "fake ls"; }; ls; command ls -d .; unset -f ls
PATH=/nowhere command -v sh || echo "not on empty PATH"
exit 0
