#!/bin/sh
# readlink -f and realpath: chains of symlinks, .. after a symlinked
# directory, missing last components, loops.
mkdir -p real/deep; echo x > real/deep/file
ln -s real r1; ln -s r1 r2; ln -s r2/deep r3; ln -s r3/file r4
ln -s loop-b loop-a; ln -s loop-a loop-b
base=$(realpath .)
show() { sed "s|^$base|BASE|"; }
readlink -f r4 | show
readlink -f r3/../deep/file | show
readlink -f r2/deep/.. | show
readlink -f ./real//deep/ | show
readlink -f real/missing | show
readlink -f real/missing/more 2>/dev/null; echo "two missing: $?"
readlink -f loop-a >/dev/null 2>&1; echo "loop: $?"
realpath r4 | show
realpath r1/deep/../deep | show
realpath / /. /.. 
cd r3 && realpath . | show && cd ../
readlink r4; readlink real 2>/dev/null; echo "readlink of a dir: $?"
exit 0
