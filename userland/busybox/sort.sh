#!/bin/sh
# sort: default, -n, -r, -u, -k, -t, -f, stability of equal keys with -s.
printf 'banana\napple\ncherry\napple\nBanana\n' > words
printf '10\n9\n100\n-1\n2.5\n0\n' > nums
printf 'bob 25 nyc\nalice 30 sf\ncarol 25 la\ndave 35 nyc\n' > people
echo "-- default"; sort words
echo "-- -r"; sort -r words
echo "-- -u"; sort -u words
echo "-- -f"; sort -f words | tr '\n' ' '; echo
echo "-- lexical"; sort nums | tr '\n' ' '; echo
echo "-- -n"; sort -n nums | tr '\n' ' '; echo
echo "-- -rn"; sort -rn nums | tr '\n' ' '; echo
echo "-- -k2n"; sort -k2n people
echo "-- -k2,2n -k1,1r"; sort -k2,2n -k1,1r people
echo "-- -k3 -s"; sort -s -k3,3 people
echo "-- -t"; printf 'b:2\na:3\nc:1\n' | sort -t: -k2
echo "-- -c"; sort -c words 2>/dev/null; echo "unsorted: $?"; sort words | sort -c; echo "sorted: $?"
echo "-- big"; seq 1 5000 | sort -r | head -n 3 | tr '\n' ' '; echo
echo "-- -o"; sort -o words words; head -n 1 words
exit 0
