#!/bin/sh
# stat -c formats that Linux defines: type, size, mode (octal, text, hex),
# links, owner, device numbers of device files, symlink names; -L.
umask 022
printf 'hello' > f; mkdir d; ln -s f l; mkfifo p; ln f hard
stat -c '%n|%F|%s|%a|%A|%f|%h|%u|%g' f
stat -c '%n|%F|%a|%A|%f' d
stat -c '%n|%F|%s|%a|%A|%f|%N' l
stat -L -c '%n|%F|%s|%a' l
stat -c '%n|%F|%s|%a|%A' p
stat -c '%n|%F|%t|%T|%A' /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty
stat -c '%h' f hard
stat -c 'literal %% and %n' f
stat -c '%n' missing 2>/dev/null; echo "missing: $?"
exit 0
