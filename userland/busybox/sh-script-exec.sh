#!/bin/sh
# Running scripts: #! with and without arguments, sh file, . (source), exec.
printf '#!/bin/sh\necho "script $0 args: $*"\n' > s1; chmod +x s1
./s1 a b
sh s1 c
printf '#!/bin/sh -e\nfalse\necho not reached\n' > s2; chmod +x s2
./s2; echo "#!/bin/sh -e: $?"
printf 'SOURCED=yes\nsrc_fn() { echo "from sourced fn"; }\n' > lib
. ./lib; echo "sourced: $SOURCED"; src_fn
printf '#!/bin/nonexistent\n' > bad; chmod +x bad
./bad 2>/dev/null; echo "bad interpreter: $?"
mkdir -p bin; printf '#!/bin/sh\necho in path\n' > bin/mycmd; chmod +x bin/mycmd
PATH=$PWD/bin:$PATH mycmd
sh -c 'exec echo "exec replaced the shell"; echo not reached'
(exec sh -c 'exit 12'); echo "exec status: $?"
command -v ls
command -v no-such-thing; echo "command -v missing: $?"
type cd
exit 0
