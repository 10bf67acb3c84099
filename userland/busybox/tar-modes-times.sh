#!/bin/sh
# tar keeps what it should: modes (incl. setuid and sticky), modification
# times of files and of a directory with nothing extracted after it, numeric owners, symlinks, hard links and
# empty directories; -m skips times; --strip-components; -k keeps files.
export TZ=UTC
umask 022
mkdir -p t/d/empty
echo a > t/a; echo b > t/d/b
chmod 4755 t/a; chmod 1777 t/d/empty; chmod 640 t/d/b
chown 123:456 t/d/b
ln t/a t/hard; ln -s d/b t/sym
touch -d '2001-01-01 01:01:01' t/a t/d/b
touch -d '2002-02-02 02:02:02' t/d/empty t/d
tar cf t.tar t
tar tf t.tar | sort
tar tvf t.tar | awk '/t\/d\/b$/ {print $1, $2}'
mkdir x; tar xf t.tar -C x
cd x && find t | sort | while read -r f; do stat -c '%n %A %u:%g %h' "$f"; done
stat -c '%Y %n' t/a t/d/b t/d/empty; readlink t/sym; cd ..
mkdir m; tar xmf t.tar -C m; [ "$(stat -c %Y m/t/a)" -gt 1000000000 ] && echo "-m: time not restored"
mkdir s; tar xf t.tar -C s --strip-components 2; find s | sort
echo local > s/b; tar xkf t.tar -C s --strip-components 2 2>/dev/null; cat s/b
exit 0
