#!/bin/sh
# umask: the default, octal and symbolic (-S) forms, setting it
# symbolically, and the modes it gives new files, directories, FIFOs and
# files created with an explicit mode (mkdir -m is not masked).
umask; umask -S
umask 027; umask; umask -S
: > f1; mkdir d1; mkfifo p1
stat -c '%a %n' f1 d1 p1
umask u=rwx,g=rx,o=; umask
umask 000; : > f2; mkdir d2; stat -c '%a %n' f2 d2
umask 777; : > f3; mkdir d3; stat -c '%a %n' f3 d3
umask 077; mkdir -m 755 d4; stat -c '%a %n' d4
umask 022; (umask 0077; : > f4); : > f5; stat -c '%a %n' f4 f5
umask 999 2>/dev/null; echo "bad umask: $?"; umask
exit 0
