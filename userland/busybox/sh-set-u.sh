#!/bin/sh
# set -u: expanding an unset variable is an error that ends a
# non-interactive shell (status 2 in ash) but ${x-}, ${x:-}, $# and "$@"
# with no arguments are fine; set +u switches it off.
sh -c 'set -u; echo "[${u-}] [${u:-d}] [$#] [$*]"; echo ok'; echo "defaults: $?"
sh -c 'set -u; echo "$nope"; echo not reached' 2>/dev/null; echo "unset: $?"
sh -c 'set -u; x=; echo "empty is set: [$x]"'; echo "empty: $?"
sh -c 'set -u; set +u; echo "[$nope] off again"'; echo "+u: $?"
sh -c 'set -u; f() { echo "arg [$1]"; }; f' 2>/dev/null; echo "missing positional: $?"
sh -c 'set -u; echo $((nope + 1))' 2>/dev/null; echo "in arithmetic: $?"
sh -c 'set -u; case $- in *u*) echo "u in \$-";; esac'
exit 0
