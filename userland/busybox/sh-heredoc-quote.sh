#!/bin/sh
# Here-documents: unquoted (expands $, $( ), $(( )), backslashes), quoted
# delimiters 'E', "E" and \E (literal), two on one line for fds 0 and 3,
# one inside a function and a loop, and one feeding a pipeline.
v=value
cat <<E
plain $v $(echo sub) $((6 * 7)) \$v a\\b \`x\`
line \
joined
E
cat <<'E'
single $v $(echo sub) \n
E
cat <<"E"
double $v
E
cat <<\E
backslash $v
E
cat <<A 3<<B
from A
A
from B
B
while read -r l <&3; do echo "fd3: $l"; done 3<<E
one
two
E
f() { cat <<E
in function: $1
E
}
f arg
for i in 1 2; do cat <<E; done
loop $i
E
tr a-z A-Z <<E | rev
pipe $v
E
exit 0
