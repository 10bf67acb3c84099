#!/bin/sh
# hostname sets the name uname and /proc/sys/kernel/hostname show.
hostname proc-hostname-test; echo "hostname: $?"
hostname
uname -n
cat /proc/sys/kernel/hostname
echo from-proc > /proc/sys/kernel/hostname
hostname
hostname -F /dev/null 2>/dev/null; echo "empty file: $?"
exit 0
