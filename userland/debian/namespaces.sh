#!/bin/bash
# Namespaces with util-linux: unshare(1) for UTS and mount namespaces,
# nsenter(1) joining a process's UTS namespace, findmnt's PROPAGATION
# column for shared, private and slave mounts, what propagates between a
# namespace and its parent, and a System V queue (ipcmk) that a new IPC
# namespace does not see.
sethost() { echo "$1" > /proc/sys/kernel/hostname; }
sethost outer
readlink /proc/self/ns/uts
unshare --uts sh -c 'echo inner > /proc/sys/kernel/hostname; uname -n; readlink /proc/self/ns/uts | grep -c 4026531838'
uname -n
mkdir -p /mnt/ns || exit 1
unshare --mount --propagation private sh -c 'mount -t tmpfs none /mnt/ns && findmnt -n -o TARGET,FSTYPE,PROPAGATION /mnt/ns'
findmnt -n /mnt/ns || echo "not mounted outside"
mount -t tmpfs none /mnt/ns || exit 1
mkdir /mnt/ns/in /mnt/ns/out
findmnt -n -o TARGET,PROPAGATION /mnt/ns
mount --make-shared /mnt/ns
findmnt -n -o TARGET,PROPAGATION /mnt/ns
unshare --mount --propagation unchanged sh -c 'mount -t tmpfs none /mnt/ns/in && findmnt -n -o TARGET,PROPAGATION /mnt/ns/in'
findmnt -n -o TARGET,FSTYPE,PROPAGATION /mnt/ns/in
umount /mnt/ns/in
unshare --mount --propagation slave sh -c 'findmnt -n -o TARGET,PROPAGATION /mnt/ns; mount -t tmpfs none /mnt/ns/out && findmnt -n -o TARGET,PROPAGATION /mnt/ns/out'
findmnt -n /mnt/ns/out || echo "slave's mount not propagated"
mount --make-private /mnt/ns
findmnt -n -o TARGET,PROPAGATION /mnt/ns
mkfifo /mnt/ns/ready
unshare --uts sh -c 'echo background > /proc/sys/kernel/hostname; echo > /mnt/ns/ready; exec sleep 60' &
bg=$!
read < /mnt/ns/ready
nsenter --target $bg --uts uname -n
nsenter --target $bg --uts sh -c 'echo joined > /proc/sys/kernel/hostname'
nsenter --target $bg --uts uname -n
uname -n
kill $bg
wait $bg 2>/dev/null
umount /mnt/ns
rmdir /mnt/ns
key=$(ipcmk -Q | awk '{print $NF}')
ipcs -q -i "$key" >/dev/null && echo "queue made"
unshare --ipc sh -c 'ipcs -q | grep -c "^0x"'
ipcs -q -i "$key" >/dev/null && echo "still in the parent's"
ipcrm -q "$key"
echo done
