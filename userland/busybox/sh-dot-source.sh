#!/bin/sh
# . (source): variables and functions defined in the sourced file stay,
# positional arguments given to ., return from a sourced file, a missing
# file ends a non-interactive shell (tested in sh -c), lookup via PATH.
cat > lib.sh <<'E'
libvar=set-by-lib
libfn() { echo "libfn: $*"; }
echo "sourcing with $# args: $*"
[ "$1" = stop ] && return 3
echo "end of lib"
E
. ./lib.sh
echo "libvar=$libvar"; libfn x y
set -- outer args
. ./lib.sh stop here; echo "return status: $?"
echo "positional after: $*"
sh -c '. ./missing.sh; echo not reached' 2>/dev/null; echo "missing: $?"
mkdir bin; echo 'echo "found via PATH"' > bin/viapath
PATH="$PWD/bin:$PATH" sh -c '. viapath'
exit 0
