#!/bin/sh
# Environment: export, per-command assignments, unset, env -i, env -u, readonly.
echo "inherited PATH: $PATH"
echo "HOME=$HOME TERM=$TERM LANG=$LANG"
FOO=1
sh -c 'echo "unexported: [${FOO-unset}]"'
export FOO
sh -c 'echo "exported: [$FOO]"'
BAR=temp sh -c 'echo "per-command: $BAR"'
echo "after per-command: [${BAR-unset}]"
export BAZ=assigned; sh -c 'echo "export with value: $BAZ"'
unset FOO; sh -c 'echo "after unset: [${FOO-unset}]"'
env -i A=1 B=2 /usr/bin/env | sort
env -i X=y sh -c 'echo "env -i sh sees X=$X"'
export KEEP=1 DROP=2
env -u DROP sh -c 'echo "env -u: KEEP=$KEEP DROP=${DROP-unset}"'
env -i Z=3 env | wc -l
readonly RO=fixed
(RO=changed) 2>/dev/null; echo "assign to readonly: $?"
env | grep '^HOME='
env | grep '^NOPE='; echo "grep env missing: $?"
exit 0
