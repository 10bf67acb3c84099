#!/bin/bash
# Command substitution (nested, trailing newlines stripped), set -e in a
# subshell, set -u, redirections and fd juggling with exec, noclobber.
echo "nested: $(echo "a$(echo "b$(echo c)")")"
x=$(printf 'line\n\n\n'); echo "stripped: [${x}]"
( set -e; false; echo "not reached" ); echo "set -e subshell: $?"
( set -u; echo "$nope" ) 2>/dev/null; echo "set -u: $?"
exec 3> out.txt; echo "to fd 3" >&3; exec 3>&-
cat out.txt
exec 4< out.txt; read -r line <&4; exec 4<&-; echo "read back: $line"
set -o noclobber; echo again 2>/dev/null > out.txt; echo "noclobber: $?"; set +o noclobber
{ echo out; echo err >&2; } 2>&1 | sort
echo "$(cd /usr && pwd) $PWD" | sed "s|$PWD|SCRATCH|"
exit 0
