#!/bin/bash
# findmnt's FSROOT column, and the [/dir] it adds to SOURCE, come from
# mountinfo's root field: a bind of a directory of a tmpfs shows that
# directory, a bind of that bind the same, the whole tmpfs `/`, and a
# stack of binds on one directory lists each one.
mkdir -p /mnt/fr || exit 1
mount -t tmpfs frtmp /mnt/fr || exit 1
mkdir -p /mnt/fr/a/b /mnt/fr/c /mnt/fr/e /mnt/fr/s
mount --bind /mnt/fr/a/b /mnt/fr/c
mount --bind /mnt/fr/c /mnt/fr/e
findmnt -n -o TARGET,FSROOT,SOURCE /mnt/fr
findmnt -n -o TARGET,FSROOT,SOURCE /mnt/fr/c
findmnt -n -o TARGET,FSROOT,SOURCE /mnt/fr/e
for i in $(seq 1 20); do mount --bind /mnt/fr/s /mnt/fr/s || break; done
findmnt -n -l -o TARGET,FSROOT | grep -c '^/mnt/fr/s /s$'
umount /mnt/fr/e /mnt/fr/c
umount -l /mnt/fr
rmdir /mnt/fr
echo done
