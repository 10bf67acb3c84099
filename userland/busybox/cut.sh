#!/bin/sh
# cut: -d/-f fields and ranges, -c characters, -s, lines without delimiters.
printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000::/home/user:/bin/false\n' > pw
cut -d: -f1 pw
cut -d: -f1,3 pw
cut -d: -f3- pw
cut -d: -f-2 pw
cut -c1-4 pw
cut -c 2,4,6 pw
printf 'a b c\nnodelim\n' | cut -d' ' -f2
printf 'a b c\nnodelim\n' | cut -s -d' ' -f2
printf 'x\ty\tz\n' | cut -f2
echo "abcdef" | cut -c3-
exit 0
