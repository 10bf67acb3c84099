#!/bin/sh
# Special parameters: $0 of a script and of sh -c, $$ in a subshell is the
# parent's, $PPID of a child is our $$, $! of the last job, $- flags, $#.
echo "script name: ${0##*/}"
sh -c 'echo "sh -c \$0: $0"' zero
outer=$$
(echo "subshell \$\$ same: $([ "$$" = "$outer" ] && echo yes || echo no)")
sh -c '[ "$PPID" = "$1" ] && echo "child PPID is parent pid"' sh $$
sleep 0.1 & [ "$!" -gt 0 ] && echo "\$! set"; wait
sh -c 'case $- in *c*) echo "c in \$- of sh -c";; esac'
set -- a b c; echo "\$#: $#"; shift 2; echo "after shift: $# $1"
sh -c 'exit 7'; echo "\$?: $?"
exit 0
