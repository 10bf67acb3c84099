#!/bin/bash
# util-linux and mount: mount's view of the root and /proc after the
# chroot, findmnt, mountpoint, blkid reading the disk, an O_EXCL open of
# the mounted disk (EBUSY) and a plain one, mount of a tmpfs and umount,
# getopt, flock, setsid, rev.
mount | grep -E ' on / | on /proc | on /tmp ' | sed 's/(.*//'
findmnt -n -o SOURCE,FSTYPE,OPTIONS / | awk '{ split($3, o, ","); print $1, $2, o[1] }'
mountpoint /proc; mountpoint -q /usr || echo "/usr is not a mount point"
blkid -o export /dev/vda | grep -E '^(LABEL|UUID|TYPE)='
perl -MFcntl -e 'sysopen(my $f, "/dev/vda", O_RDONLY | O_EXCL) and print "exclusive open of the mounted disk: ok\n" or print "exclusive open of the mounted disk: ", ($!{EBUSY} ? "EBUSY" : "$!"), "\n"; sysopen($f, "/dev/vda", O_RDONLY) and print "plain open: ok\n"'
mkdir m; mount -t tmpfs -o size=1m,mode=700 tmpfs m && echo mounted
findmnt -n -o FSTYPE,OPTIONS "$PWD/m" | awk '{ split($2, o, ","); print $1, o[1] }'
stat -c '%a' m; touch m/f && umount m && echo unmounted; ls m | wc -l
getopt -o ab:c -l long: -- -a -b x --long=y rest
flock lockfile -c 'echo "under flock"'
setsid bash -c '[ "$(ps -o sid= -p $$ | tr -d " ")" = "$$" ] && echo "setsid: own session"'
echo "abc" | rev
exit 0
