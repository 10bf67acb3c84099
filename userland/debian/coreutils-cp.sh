#!/bin/bash
# cp -a keeps modes, times, symlinks and hard links; cp -r; mv across
# directories; ln -s / ln; readlink -f; realpath; mktemp; rm -r; install.
mkdir -p src/deep; echo one > src/a; echo two > src/deep/b; ln -s a src/link; ln src/a src/hard
chmod 700 src/deep; touch -d '2003-03-03 03:03:03' src/a src/deep/b
cp -a src dst
stat -c '%n %a %Y %h' dst/a dst/deep/b dst/hard; stat -c '%n %a' dst/deep
readlink dst/link
cp -r src plain; stat -c '%n %Y' plain/a | awk '{print $1, ($2 == 1046660583) ? "kept" : "new"}'
mv dst/deep/b dst/moved; ls dst | tr '\n' ' '; echo
readlink -f dst/link | sed "s|$PWD|SCRATCH|"
realpath --relative-to=src/deep dst/moved
t=$(mktemp -p . tmp.XXXXXX); [ -f "$t" ] && echo "mktemp file: $(stat -c %a "$t") ${#t}"; rm "$t"
d=$(mktemp -d); [ -d "$d" ] && echo "mktemp dir in /tmp: $(stat -c %a "$d")"; rmdir "$d"
install -m 0750 -D src/a inst/x/y; stat -c '%n %a' inst/x/y
rm -r dst plain; ls | sort | tr '\n' ' '; echo
exit 0
