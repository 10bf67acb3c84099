#!/bin/sh
# cd and pwd: relative and absolute moves, .., symlinked directories with -P/-L, cd -.
start=$PWD
echo "start: $start"
mkdir -p a/b/c
cd a/b/c && pwd
cd ../.. && pwd
cd - >/dev/null && pwd
cd "$start"
ln -s a/b lnk
cd lnk && echo "logical: $(pwd)" && echo "physical: $(pwd -P)"
cd .. && echo "after ..: $(pwd)"
cd "$start"
cd nonexistent 2>/dev/null; echo "cd missing: $?"
touch plainfile
cd plainfile 2>/dev/null; echo "cd file: $?"
cd / && pwd
cd && echo "cd with no args goes HOME: $(pwd)"
cd "$start"; echo "OLDPWD=$OLDPWD"
/bin/pwd
exit 0
