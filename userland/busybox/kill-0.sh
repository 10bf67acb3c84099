#!/bin/sh
# kill -0 probes: on itself, a live child, a reaped child (no such
# process), a process group; kill -s and -N forms; kill -l mapping.
# (wait's stderr is dropped after a kill: whether the shell prints the job's
# "Terminated"-style line depends on whether the job died before `wait` began,
# a race between CPUs that Linux and Kevlar may resolve either way.)
kill -0 $$; echo "self: $?"
sleep 5 & p=$!
kill -0 $p; echo "live child: $?"
kill -s TERM $p; wait $p 2>/dev/null; echo "after -s TERM: $?"
kill -0 $p 2>/dev/null; echo "reaped child: $?"
sleep 5 & p=$!
kill -9 $p; wait $p 2>/dev/null; echo "-9: $?"
sleep 5 & p=$!
kill -ALRM $p; wait $p 2>/dev/null; echo "-ALRM: $?"
sleep 5 & p=$!
kill -USR2 $p; wait $p 2>/dev/null; echo "-USR2: $?"
kill -0 -$$ 2>/dev/null; echo "own group: $?"
kill -0 2147483647 2>/dev/null; echo "no such pid: $?"
kill -BOGUS $$ 2>/dev/null; echo "bad signal: $?"
kill -l 1 2 3 9 14 15 17 19
kill -l TERM HUP
exit 0
