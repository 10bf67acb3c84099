#!/bin/sh
# tar with compression through pipes: z (gzip), j (bzip2), archives on
# stdin/stdout, -C, -O, extracting one member, listing a compressed archive.
mkdir -p tree/sub
seq 1 3000 > tree/nums; echo hi > tree/sub/hi; printf 'x%.0s' $(seq 1 500) > tree/sub/x
tar czf a.tgz tree; tar tzf a.tgz | sort
tar cjf a.tbz tree; tar tjf a.tbz | sort | tail -n 1
tar cf - tree | gzip -c > b.tgz; gunzip -c b.tgz | tar tf - | wc -l
tar cf - -C tree . | tar xf - -C . 2>/dev/null; mkdir c; tar cf - -C tree . | (cd c && tar xf -)
find c | sort
tar xzOf a.tgz tree/sub/hi
mkdir one; tar xzf a.tgz -C one tree/nums; find one | sort
mkdir bz; tar xjf a.tbz -C bz; cmp bz/tree/nums tree/nums && echo "bzip2 tree same"
tar tzf missing.tgz 2>/dev/null; echo "missing: $?"
echo garbage > bad.tgz; tar tzf bad.tgz >/dev/null 2>&1; echo "not gzip: $?"
exit 0
