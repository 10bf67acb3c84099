#!/bin/sh
# chmod (octal and symbolic) and stat -c: %a %A %F %s %n %h; umask of new files.
echo "umask: $(umask)"
echo hi > f; mkdir d
stat -c '%a %A %F %s %n' f
stat -c '%a %A %F %n' d
chmod 600 f; stat -c %a f
chmod u+x,g+r f; stat -c %a f
chmod o=rx f; stat -c %a f
chmod a-w f; stat -c '%a %A' f
chmod 4755 f; stat -c '%a %A' f
chmod 1777 d; stat -c '%a %A' d
chmod 2750 d; stat -c '%a %A' d
chmod -R 700 d; stat -c %a d
mkdir -p t/s; touch t/s/x; chmod -R go-rwx t; stat -c '%a %n' t t/s t/s/x
umask 077; touch private; mkdir privdir; stat -c '%a %n' private privdir
umask 022
chmod 999 f 2>/dev/null; echo "bad mode: $?"
chmod 644 missing 2>/dev/null; echo "missing file: $?"
printf '%0512d' 0 > sized; stat -c '%s %h' sized
stat -c '%F' /dev/null /tmp
exit 0
