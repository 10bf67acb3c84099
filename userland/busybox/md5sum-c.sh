#!/bin/sh
# md5sum, sha1sum, sha256sum over files: sums of several files, -c with
# a good list, a changed file (FAILED, status 1) and a missing file.
printf 'alpha\n' > a; printf 'beta\n' > b; seq 1 5000 > c
md5sum a b c > sums.md5; cat sums.md5
sha1sum a b > sums.sha1; cat sums.sha1
sha256sum c > sums.sha256; cat sums.sha256
md5sum -c sums.md5; echo "check: $?"
sha256sum -c sums.sha256; echo "sha256 check: $?"
echo changed >> b
md5sum -c sums.md5; echo "changed: $?"
sha1sum -c -s sums.sha1; echo "-s: $?"
rm a
md5sum -c sums.md5 2>/dev/null; echo "missing: $?"
md5sum < c
exit 0
