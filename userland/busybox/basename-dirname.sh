#!/bin/sh
# basename and dirname: suffixes, trailing slashes, root, relative paths.
for p in /usr/lib/libc.so /usr/lib/ /usr lib file.txt / // . .. a/b/c/ ""; do
  echo "[$p] base=[$(basename "$p")] dir=[$(dirname "$p")]"
done
basename /x/archive.tar.gz .gz
basename archive.tar.gz .tar.gz
basename .gz .gz
exit 0
