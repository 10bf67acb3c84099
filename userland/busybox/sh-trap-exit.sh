#!/bin/sh
# EXIT traps: run at normal end, at `exit N` (status kept), and can be reset.
sh -c 'trap "echo bye" EXIT; echo hi'; echo "status: $?"
sh -c 'trap "echo bye \$?" EXIT; exit 3'; echo "status: $?"
sh -c 'trap "echo cleanup; exit 7" EXIT; true'; echo "status: $?"
sh -c 'trap "echo not run" EXIT; trap - EXIT; echo reset'; echo "status: $?"
sh -c 'trap "echo trap0" 0; echo numeric'; echo "status: $?"
sh -c 'f() { echo in-f; }; trap f EXIT; echo main'
echo x > file
sh -c 'trap "rm -f file" EXIT; [ -f file ] && echo exists'
[ -f file ] && echo "still there" || echo "removed by trap"
exit 0
