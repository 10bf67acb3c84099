#!/bin/bash
# tar and gzip round trips: create with fixed times and owners, list, extract
# and compare; gzip -c / -d / -t / -l; zcat; a tar through a pipe.
mkdir -p src/sub; seq 1 2000 > src/nums; echo hi > src/sub/hi; ln -s nums src/link; chmod 600 src/sub/hi
find src -exec touch -h -d '2020-02-02 02:02:02' {} +
tar --owner=0 --group=0 --numeric-owner -czf a.tgz src
tar -tzvf a.tgz | awk '{ print $1, $2, $3, $4, $5, $6 }' | sort -k6
mkdir out; tar -xzf a.tgz -C out; diff -r src out/src && echo "extracted tree identical"
stat -c '%n %a %Y' out/src/sub/hi
gzip -9 -c src/nums > n.gz; gzip -t n.gz && echo "gzip -t ok"; gzip -l n.gz | tail -1 | awk '{ print $2, $4 }'
zcat n.gz | cmp - src/nums && echo "zcat same"
cp n.gz m.gz; gzip -d m.gz; cmp m src/nums && echo "gunzip same"
tar -cf - -C src . | tar -tf - | sort | tr '\n' ' '; echo
tar -cf - src | (mkdir piped && cd piped && tar -xf -) && diff -r src piped/src && echo "pipe copy identical"
exit 0
