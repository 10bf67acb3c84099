#!/bin/sh
# ulimit: the limits a process starts with (Linux's defaults for init's
# children), lowering a soft limit in a subshell and its effect (open
# files refused, file size limit giving SIGXFSZ/EFBIG), the hard limit.
ulimit -n; ulimit -Hn
ulimit -f; ulimit -c; ulimit -d; ulimit -s; ulimit -v
(ulimit -n 5; exec 3>a 4>b 5>c 2>/dev/null; echo "fd 5 opened: $?") ; echo "subshell: $?"
(ulimit -n 6; exec 5>c; echo "fd 5 under 6: $?")
(ulimit -S -n 100; ulimit -n; ulimit -H -n)
sh -c 'ulimit -f 1; head -c 4096 /dev/zero > big' 2>/dev/null; echo "file size limit: $?"
wc -c < big
(ulimit -H -n 200; ulimit -n 300 2>/dev/null; echo "above hard: $?")
exit 0
