#!/bin/sh
# dmesg reads the kernel log; messages written to /dev/kmsg show in it,
# with facility user; dmesg -c clears it.
dmesg | head -1 | grep -c '^\[ *[0-9]*\.[0-9]\{6\}\] '
echo "<5>proc-dmesg-marker" > /dev/kmsg
dmesg | grep -c 'proc-dmesg-marker'
dmesg -r | grep 'proc-dmesg-marker' | cut -c1-4
dmesg -c > /dev/null
dmesg | grep -c 'proc-dmesg-marker'
exit 0
