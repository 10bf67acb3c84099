#!/bin/sh
# touch and timestamps: -d, -r, creation, test -nt/-ot ordering, stat -c %Y.
touch -d '2000-01-01 00:00:00' old
touch -d '2010-06-15 12:00:00' mid
touch new
[ new -nt old ] && echo "new -nt old"
[ old -ot mid ] && echo "old -ot mid"
[ mid -nt new ] || echo "mid not newer than new"
stat -c %Y old mid
touch -r old copy; stat -c %Y copy
[ copy -nt old ] || [ old -nt copy ] || echo "copy same age as old"
touch -c nonexistent; [ -e nonexistent ] || echo "touch -c does not create"
touch created; [ -f created ] && echo "touch creates: size $(stat -c %s created)"
touch -d '2000-01-01 00:00:00' old; echo "retouched: $(stat -c %Y old)"
touch -t 200102030405.06 t; stat -c %Y t
[ nothing -nt old ] || echo "missing file is not newer"
[ old -nt nothing ] && echo "existing is newer than missing"
echo data >> old; [ old -nt mid ] && echo "append updated mtime"
exit 0
