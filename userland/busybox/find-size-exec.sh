#!/bin/sh
# find: -size in bytes/blocks/k with +/-, -perm, -exec sh -c, -exec {} +,
# -prune, -iname, -newer against a reference, -type combined with !.
umask 022
mkdir -p t/skip t/keep
printf '' > t/zero; printf 'x' > t/one; head -c 600 /dev/zero > t/six
head -c 2048 /dev/zero > t/keep/two-k; head -c 5000 /dev/zero > t/keep/five-k
touch t/skip/hidden t/UPPER.TXT t/lower.txt
chmod 755 t/one; chmod 600 t/six
echo "-- -size -1"; find t -type f -size -1 | sort
echo "-- -size 1c"; find t -size 1c
echo "-- -size +1"; find t -type f -size +1 | sort
echo "-- -size 2k"; find t -size 2k
echo "-- -size +4k"; find t -size +4k
echo "-- -size -600c"; find t -type f -size -600c | sort
echo "-- -perm"; find t -type f -perm 755; find t -type f -perm -600 | sort
echo "-- -prune"; find t -name skip -prune -o -type f -print | sort
echo "-- -iname"; find t -iname '*.txt' | sort
echo "-- -exec sh"; find t/keep -type f -exec sh -c 'echo "$1: $(wc -c < "$1")"' sh {} \; | sort
echo "-- -exec +"; find t -name '*.txt' -exec echo {} + | tr ' ' '\n' | sort
echo "-- -newer"; touch -d '2000-01-01' t/old; touch -d '2005-01-01' ref; touch -d '2010-01-01' t/keep/new
find t -newer ref -name new; find t ! -newer ref -type f
exit 0
