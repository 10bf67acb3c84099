#!/bin/bash
# find with -type, -name, -size, -perm, -newer, -maxdepth, -prune, -printf,
# -exec {} +, -print0 into xargs -0; xargs -n, -I, -P.
mkdir -p t/a/b t/c; touch t/a/x.txt t/a/b/y.txt t/c/z.log; echo data > t/c/big
chmod 700 t/c/z.log; touch -d '2000-01-01' t/a/x.txt t/ref; touch -d '2010-01-01' t/c/big
find t -type f | sort
find t -name '*.txt' | sort
find t -type f -size +0 | sort
find t -perm 700 -type f
find t -newer t/ref -type f | sort
find t -maxdepth 1 | sort
find t -path t/a -prune -o -type f -print | sort
find t -type f -printf '%P %s %m\n' | sort
find t -name '*.txt' -exec echo found {} + | tr ' ' '\n' | sort | tr '\n' ' '; echo
find t -type f -print0 | sort -z | xargs -0 -n 2 echo
seq 1 6 | xargs -I{} echo "item {}" | tail -2
seq 1 8 | xargs -P 4 -n 1 sh -c 'echo $(( $0 * $0 ))' | sort -n | tr '\n' ' '; echo
exit 0
