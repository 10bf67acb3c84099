#!/bin/sh
# uniq: adjacent duplicates, -c counts, -d, -u, with sort first.
printf 'a\na\nb\na\nc\nc\nc\n' > in
uniq in | tr '\n' ' '; echo
uniq -c in
uniq -d in
uniq -u in
sort in | uniq -c
echo "the quick the lazy the end quick" | tr ' ' '\n' | sort | uniq -c | sort -k1,1nr -k2
printf 'A\na\n' | uniq -i
exit 0
