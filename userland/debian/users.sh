#!/bin/bash
# Users and groups from Debian's /etc/passwd and /etc/group (base-passwd):
# id, whoami, getent, id of another user, perl changing uid, gid and
# groups before exec, files created as that user.
id; whoami; id -un; id -gn; id -G
getent passwd root daemon nobody
getent group root adm
id nobody; id -u www-data
perl -e '$) = "65534 65534"; $( = 65534; $< = $> = 65534; exec "id"'
perl -e '$) = "33 33"; $( = 33; $< = $> = 33; exec "id", "-un"'
perl -e '$) = "1 1"; $( = 1; $< = $> = 1; exec "bash", "-c", q{touch mine 2>&1; echo "touch in root-owned dir: $?"}'
chmod 777 .; perl -e '$) = "1 1"; $( = 1; $< = $> = 1; exec "touch", "mine2"'; stat -c '%U %G' mine2
getent passwd nosuchuser; echo "unknown user: $?"
exit 0
