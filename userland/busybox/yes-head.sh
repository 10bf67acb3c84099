#!/bin/sh
# yes | head: the writer is stopped by SIGPIPE once head exits.
yes | head -n 3
yes kevlar | head -n 2
yes | head -c 10 | od -An -c
yes abc | head -n 30000 | wc -l
n=$(yes | head -n 5 | wc -l); echo "lines: $n"
sh -c 'yes | head -n 1 > /dev/null; echo done'
(yes; echo "yes exited: $?" >&2) 2>err | head -n 1 > /dev/null
cat err
exit 0
