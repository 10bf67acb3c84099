#!/bin/sh
# touch: -d and -t dates (UTC), -c not creating, -r copying another file's
# times, -a and -m touching one time only; stat prints seconds since 1970.
export TZ=UTC
touch -d '2000-01-01 00:00:00' a; stat -c '%Y %n' a
touch -d '1999-12-31 23:59:59' b; stat -c '%Y %n' b
touch -d '@1234567890' c; stat -c '%Y %n' c
touch -t 200506070809.10 d; stat -c '%Y %n' d
touch -t 0102030405 e 2>/dev/null; echo "short -t: $?"
touch -c missing; echo "-c: $?"; ls missing 2>/dev/null || echo "not created"
touch -r c f; stat -c '%X %Y %n' f
touch -d '2020-02-29 12:00:00' g; touch -a -d '2021-01-01 00:00:00' g; stat -c '%X %Y %n' g
touch -m -d '2022-01-01 00:00:00' g; stat -c '%X %Y %n' g
touch -d 'garbage' h 2>/dev/null; echo "bad date: $?"
mkdir dir; touch -d '2001-01-01 00:00:00' dir; stat -c '%Y %n' dir
ln -s a sym; touch -h -d '2002-02-02 02:02:02' sym; stat -c '%Y %n' sym a
exit 0
