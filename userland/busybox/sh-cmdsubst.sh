#!/bin/sh
# Command substitution: $( ), backquotes, nesting, trailing newlines removed,
# word splitting of unquoted results, exit status.
echo "[$(echo hi)]"
echo "[`echo back`]"
echo "[$(printf 'a\n\n\n')]"
echo "[$(printf '\n\nlead')]"
echo "nested: $(echo $(echo $(echo deep)))"
x=$(printf 'one two\nthree'); echo "quoted: [$x]"
set -- $(echo "p q  r"); echo "split into $# words"
v=$(exit 5); echo "status of subst: $?"
echo "lines: $(seq 1 5 | wc -l)"
echo "big: $(seq 1 10000 | tail -n 1)"
echo "chars: $(head -c 5000 /dev/zero | tr '\0' 'a' | wc -c)"
a=$(cat <<END
from heredoc
END
); echo "$a"
echo "$(echo "inner \"quotes\"")"
echo "arith in subst: $(echo $((6 * 7)))"
exit 0
