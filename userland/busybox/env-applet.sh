#!/bin/sh
# env: printing the environment, -i for an empty one, NAME=value for one
# command, -u to remove, - as -i, and the status of a missing command.
env -i A=1 B=two env | sort
env -i env | wc -l
env -i FOO=bar sh -c 'echo "FOO=$FOO PATH=${PATH-unset}"'
X=outer env X=inner sh -c 'echo "X=$X"'
export KEEP=1 DROP=2
env -u DROP sh -c 'echo "KEEP=$KEEP DROP=${DROP-unset}"'
env - Z=z /bin/sh -c 'echo "Z=$Z"'
env -i ./nothing-here 2>/dev/null; echo "missing: $?"
env -i PATH=/bin printenv PATH 2>/dev/null || env -i PATH=/bin sh -c 'echo $PATH'
exit 0
