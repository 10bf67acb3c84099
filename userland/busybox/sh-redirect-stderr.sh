#!/bin/sh
# stderr redirection: 2>, 2>&1, order of redirections, >&2, 2>/dev/null.
ls missing-file 2> err
echo "status: $?"
cat err
ls missing-file > out 2>&1
echo "both to file: $(cat out)"
ls missing-file 2>&1 > out2 | sed 's/^/piped: /'
echo "out2 size: $(wc -c < out2)"
echo "to stderr" >&2 2>/dev/null
{ echo "to stderr" >&2; } 2>/dev/null
echo "silenced"
sh -c 'echo out; echo err >&2' 2>&1 | sort
sh -c 'echo out; echo err >&2' 2>/dev/null
sh -c 'echo out; echo err >&2' >/dev/null
exit 0
