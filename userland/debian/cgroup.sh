#!/bin/bash
# cgroup v2 with Debian's tools: mount(8) -t cgroup2 on /sys/fs/cgroup
# (where sysfs offers it), findmnt and stat -f reporting it, a cgroup made
# and removed with mkdir and rmdir, a shell moving itself with echo, ps
# showing the cgroup, controllers enabled for the children.
mount -t cgroup2 -o nsdelegate,memory_recursiveprot cgroup2 /sys/fs/cgroup || exit 1
findmnt -n -o SOURCE,FSTYPE,OPTIONS /sys/fs/cgroup
stat -f -c %T /sys/fs/cgroup
cd /sys/fs/cgroup || exit 1
mkdir deb-test
ls deb-test | grep '^cgroup\.' | grep -v pressure
cat deb-test/cgroup.type deb-test/cgroup.events
echo +pids +memory > cgroup.subtree_control
tr ' ' '\n' < deb-test/cgroup.controllers | sort
bash -c 'echo $$ > /sys/fs/cgroup/deb-test/cgroup.procs; cat /proc/self/cgroup; ps -o cgroup= -p $$; cat /sys/fs/cgroup/deb-test/pids.current'
cat deb-test/cgroup.events
echo 10 > deb-test/pids.max
echo 64M > deb-test/memory.max
cat deb-test/pids.max deb-test/memory.max
rmdir deb-test
echo -pids -memory > cgroup.subtree_control
cd /
umount /sys/fs/cgroup
echo done
