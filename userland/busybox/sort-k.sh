#!/bin/sh
# sort -k: a single key field, numeric keys, reversed keys, several keys,
# -t separators, character offsets in keys, -u on a key, -c checking order.
cat > data <<'END'
bob 25 london
alice 30 paris
carol 25 berlin
dave 4 paris
eve 30 athens
END
echo "-- -k2n"; sort -k2,2n -k1,1 data
echo "-- -k3"; sort -k3,3 -k1,1 data
echo "-- -k2nr"; sort -k2,2nr -k1,1 data
echo "-- -k3 -k2n"; sort -k3,3 -k2,2n data
echo "-- -t"; printf 'x:3:b\ny:1:a\nz:2:c\n' | sort -t: -k2,2n
echo "-- -t -k3"; printf 'x:3:b\ny:1:a\nz:2:c\n' | sort -t: -k3
echo "-- offsets"; printf 'ab3\nac1\naa2\n' | sort -k1.3,1.3
echo "-- -u key"; sort -u -k2,2n data | awk '{print $2}'
echo "-- -c"; sort -c data 2>/dev/null; echo "unsorted: $?"
sort data | sort -c; echo "sorted: $?"
echo "-- -o"; sort -o data data; head -n 1 data
exit 0
