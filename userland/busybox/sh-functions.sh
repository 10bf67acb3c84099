#!/bin/sh
# Functions: arguments, $#, shift, return status, local, recursion, globals.
greet() { echo "hello $1 ($# args)"; }
greet world extra
count() { echo $#; }
count; count a; count "a b" c
sh_shift() { shift 2; echo "after shift: $*"; }
sh_shift 1 2 3 4
ret() { return $1; }
ret 0; echo "ret 0: $?"; ret 3; echo "ret 3: $?"
g=global
setg() { g=changed; }
setg; echo "g=$g"
loc() { local g=local; echo "inside: $g"; inner; }
inner() { echo "inner sees: $g"; }
loc; echo "outside: $g"
fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(($1 - 1))) )); fi; }
echo "fact 10: $(fact 10)"
fib() { local n=$1; if [ $n -lt 2 ]; then echo $n; return; fi
  local a=$(fib $((n - 1))); local b=$(fib $((n - 2))); echo $((a + b)); }
echo "fib 12: $(fib 12)"
set -- outer args
pa() { echo "in func: $*"; }
pa inner; echo "restored: $*"
unset -f greet; greet 2>/dev/null; echo "after unset -f: $?"
exit 0
