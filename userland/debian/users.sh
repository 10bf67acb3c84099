#!/bin/bash
# Users and groups from Debian's /etc/passwd and /etc/group (base-passwd):
# id, whoami, getent, id of another user, setpriv changing uid and groups,
# files created as that user.
id; whoami; id -un; id -gn; id -G
getent passwd root daemon nobody
getent group root adm
id nobody; id -u www-data
setpriv --reuid=65534 --regid=65534 --clear-groups id
setpriv --reuid=33 --regid=33 --init-groups id
setpriv --reuid=1 --regid=1 --clear-groups bash -c 'touch mine 2>&1; echo "touch in root-owned dir: $?"'
chmod 777 .; setpriv --reuid=1 --regid=1 --clear-groups touch mine2; stat -c '%U %G' mine2
getent passwd nosuchuser; echo "unknown user: $?"
exit 0
