#!/bin/sh
# ls on a scratch directory: sorted names, -1, -a, -A, -d, -F, -R, -r; one
# name per line when stdout is not a terminal.
touch zeta alpha Beta 10 9 .dot
mkdir dir; touch dir/inner dir/.hid
ln -s alpha link
echo "-- ls"; ls
echo "-- ls -1"; ls -1
echo "-- ls -a"; ls -a
echo "-- ls -A"; ls -A
echo "-- ls -r"; ls -r
echo "-- ls dir"; ls dir
echo "-- ls -a dir"; ls -a dir
echo "-- ls -d dir"; ls -d dir
echo "-- ls -F"; ls -F
echo "-- ls -R"; ls -R
echo "-- ls file args"; ls zeta alpha dir
echo "-- ls missing"; ls missing alpha 2>&1; echo "status: $?"
echo "-- empty dir"; mkdir e; ls e; echo "status: $?"
exit 0
