#!/bin/sh
# rm: files, -r on trees (read-only ones too), -f on missing files,
# directories without -r, symlinks to directories removed, not followed.
mkdir -p t/a/b t/c; touch t/a/b/f t/c/g t/top
chmod 500 t/c; chmod 400 t/top
rm t 2>/dev/null; echo "dir without -r: $?"
mkdir keep; echo k > keep/file; ln -s keep klink
rm klink; echo "link: $?"; ls keep
ln -s keep klink2; rm -r klink2; echo "link -r: $?"; ls keep
rm -r t; echo "-r: $?"; ls
rm missing 2>/dev/null; echo "missing: $?"
rm -f missing; echo "-f missing: $?"
rm -rf missing/deeper; echo "-rf missing: $?"
touch a b c; rm a b c; echo "several: $?"; ls
mkdir e; rm -r e; echo "empty dir: $?"
mkdir -p deep/1/2/3/4/5/6/7/8/9; rm -rf deep; echo "deep: $?"
ls
exit 0
