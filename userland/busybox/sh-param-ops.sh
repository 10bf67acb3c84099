#!/bin/sh
# Parameter expansion: ${x:-} ${x-} on unset and empty, ${x:=}, ${x:+},
# ${x:?} failing a subshell, prefix/suffix removal # ## % %% with globs,
# ${#x}, and expansions nested in defaults.
unset u; e=''
echo "[${u:-dflt}] [${u-dflt}] [${e:-dflt}] [${e-dflt}]"
echo "[${u:+alt}] [${e:+alt}] [${e+alt}]"
echo "[${u:=assigned}] [$u]"
p=/usr/local/lib/libfoo.so.1.2
echo "${p#*/}"; echo "${p##*/}"; echo "${p%.*}"; echo "${p%%.*}"
echo "${p#/usr}"; echo "${p%[0-9]}"; echo "${p##*[/.]}"
echo "${#p} ${#e} ${#u}"
(: "${missing:?is not set}") 2>/dev/null; echo "\${x:?} status: $?"
echo "[${u2:-${e:-inner}}]"
s="a b  c"; echo "${s:-x}" ; set -- ${s}; echo "$#"
n=12345; echo "${n#??}" "${n%??}"
echo "${HOME:+home is set}"
exit 0
