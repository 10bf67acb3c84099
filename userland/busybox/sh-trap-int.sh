#!/bin/sh
# INT and other traps: a handler runs and the script goes on; an ignored
# INT is inherited by children (they survive kill -INT); trap - restores
# the default; subshells reset handlers but keep ignores; trap listing.
trap 'echo "INT handled"' INT
kill -INT $$; echo "after INT"
trap '' INT
sh -c 'kill -INT $$; echo "child ignored INT"'; echo "child: $?"
trap - INT
sh -c 'kill -INT $$; echo not reached'; echo "default INT: $?"
(trap 'echo sub handler' TERM; sh -c 'kill -TERM $PPID'; sleep 0.1; echo "sub done")
trap 'echo QUIT handled' QUIT; kill -QUIT $$
trap 'echo HUP handled; trap - HUP' HUP; kill -HUP $$; trap | grep HUP || echo "HUP reset"
trap 'echo multi' USR1 USR2; kill -USR1 $$; kill -USR2 $$
trap
exit 0
