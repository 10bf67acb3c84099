#!/bin/sh
# find: -name, -type, -maxdepth, -mindepth, -path, -exec, -newer, ! and -o; output sorted.
mkdir -p src/lib/deep docs
touch src/main.c src/util.c src/lib/a.h src/lib/deep/b.h docs/readme.txt top.c
ln -s src/main.c link.c
find . | sort
echo "-- -name"; find . -name '*.c' | sort
echo "-- -type d"; find . -type d | sort
echo "-- -type f"; find . -type f | sort
echo "-- -type l"; find . -type l
echo "-- -maxdepth 1"; find . -maxdepth 1 | sort
echo "-- -mindepth 2 -maxdepth 2"; find . -mindepth 2 -maxdepth 2 | sort
echo "-- -path"; find . -path '*lib*' -name '*.h' | sort
echo "-- ! -name"; find src ! -name '*.c' | sort
echo "-- -o"; find . -name '*.txt' -o -name '*.h' | sort
echo "-- -exec"; find docs -type f -exec echo found {} \;
echo "-- -exec +"; find src -name '*.c' -exec ls {} + | sort
echo "-- -newer"; touch -d '2000-01-01' old; touch -d '2010-01-01' mid; touch new
find . -maxdepth 1 -newer mid -type f | sort
echo "-- -empty"; echo x > full; find . -maxdepth 1 -type f -empty | sort | head -n 3
echo "-- missing"; find nowhere 2>/dev/null; echo "status: $?"
echo "-- -L"; find -L . -maxdepth 1 -name link.c -type f
exit 0
