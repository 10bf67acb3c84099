#!/bin/sh
# Nested subshells and command substitutions: $( ) inside $( ), the
# status of an assignment from $( ), exit and traps inside ( ), cd and
# umask not leaking out, { } running in the current shell.
echo "$(echo "outer $(echo "inner $(echo deepest)")")"
x=$(exit 3); echo "assignment status: $?"
x=$(echo a; exit 0) y=$(exit 4); echo "last substitution: $?"
(trap 'echo sub exit' EXIT; echo in sub; exit 2); echo "sub status: $?"
(cd /; pwd); pwd | sed "s|$PWD|same cwd|"
(umask 077; umask); umask
v=1; { v=2; }; echo "braces: $v"
v=1; (v=2); echo "parens: $v"
echo "$( (echo a; echo b) | tr '\n' ' ')"
n=$(echo $(( $(echo 3) * $(echo 4) ))); echo "arith of subst: $n"
(((echo nested-parens)))
exit 0
