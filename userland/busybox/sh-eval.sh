#!/bin/sh
# eval: building commands from strings, indirect variable names, quoting
# preserved with eval, the status of the evaluated command, eval of
# assignments, functions defined in eval, and a syntax error.
cmd='echo hello from eval'; eval "$cmd"
name=target; target=value; eval "echo \$$name"
eval "$name=new"; echo "target=$target"
for i in 1 2 3; do eval "v$i=\$((i * i))"; done; echo "$v1 $v2 $v3"
arg="it's quoted"; eval "set -- \"\$arg\" second"; echo "$# [$1]"
eval 'false'; echo "status: $?"
eval 'exit_code() { return 4; }'; exit_code; echo "fn: $?"
eval 'echo a; echo b' | tr '\n' ' '; echo
(eval 'if then' 2>/dev/null); echo "syntax error: $?"
eval; echo "empty eval: $?"
x='$y'; y=deep; eval "eval echo $x"
exit 0
