#!/bin/bash
# stat -c formats for files, directories, symlinks, FIFOs and devices;
# stat -L; chmod and chown reflected; test(1) file predicates.
echo data > f; mkdir d; ln -s f l; mkfifo fifo
chmod 640 f; chown 1:2 f
stat -c '%n %s %a %A %F %h %u %g %U %G' f d/.. l fifo 2>&1 | sed 's/^d\/\.\. [0-9]*/d\/.. SIZE/'
stat -L -c '%n %F %s' l
stat -c '%F %t %T' /dev/null /dev/zero
stat -c '%N' l
[ -p fifo ] && [ -L l ] && [ -c /dev/null ] && [ -d d ] && [ -s f ] && echo "predicates ok"
[ f -ef l ] && echo "f -ef l"
touch -d @1000000000 f; [ f -ot d ] && echo "f older than d"
exit 0
