#!/bin/sh
# mknod (as root) in a scratch directory: a FIFO (p), character devices
# that act like /dev/null and /dev/zero, their types and numbers in stat,
# and errors for a bad type and an existing name.
mknod p1 p; stat -c '%F %a' p1
mknod null c 1 3; stat -c '%F %t %T' null
echo discarded > null; echo "write to null: $?"; wc -c < null
mknod zero c 1 5; head -c 4 zero | od -A n -t x1
mknod -m 600 z2 c 1 5; stat -c '%a %F' z2
mknod bad x 1 1 2>/dev/null; echo "bad type: $?"
mknod null c 1 3 2>/dev/null; echo "exists: $?"
exit 0
