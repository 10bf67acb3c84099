#!/bin/sh
# mkdir: -p creates parents and accepts existing ones, -m sets the mode of
# the last component only, errors for existing names, missing parents and
# non-directory parents.
umask 022
mkdir -p a/b/c; echo "-p: $?"
mkdir -p a/b/c; echo "-p again: $?"
mkdir a 2>/dev/null; echo "exists: $?"
mkdir x/y 2>/dev/null; echo "missing parent: $?"
touch file; mkdir file/sub 2>/dev/null; echo "parent is a file: $?"
mkdir -p file/sub 2>/dev/null; echo "-p through a file: $?"
mkdir -m 700 m; stat -c '%a %n' m
mkdir -p -m 711 p/q/r; stat -c '%a %n' p p/q p/q/r
mkdir trailing/; stat -c '%F %n' trailing
mkdir -p ./dot/../dot2/./x; find . -type d | sort
umask 077; mkdir u; stat -c '%a %n' u
exit 0
