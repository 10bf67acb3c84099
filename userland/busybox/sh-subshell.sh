#!/bin/sh
# Subshells: variables and cwd do not leak out; their exit status does.
x=outer
(x=inner; echo "in: $x")
echo "out: $x"
(exit 3); echo "subshell exit: $?"
(false); echo "false in subshell: $?"
mkdir d
(cd d && echo "sub cwd: ${PWD##*/}")
echo "cwd after: ${PWD##*/}"
v=$( (echo nested; exit 2) ); echo "captured: $v status: $?"
( (exit 7) ); echo "double: $?"
(trap 'echo sub-exit-trap' EXIT; echo body)
(set -- a b c; echo "args in sub: $#")
echo "args out: $#"
exit 0
