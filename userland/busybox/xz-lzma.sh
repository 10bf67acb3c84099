#!/bin/sh
# xz -d / unxz / xzcat on a stream made by xz (embedded), tar -J, and -t;
# truncated input fails.
base64 -d > d.xz <<'END'
/Td6WFoAAATm1rRGAgAhARwAAAAQz1jM4AAXAA5dADwegAVBulqFDJFN7IAAAAAApqw/beaP93MA
ASoYVeGBXB+2830BAAAAAARZWg==
END
xzcat d.xz
xz -d -c d.xz | wc -l
cp d.xz e.xz; unxz e.xz; echo "unxz: $?"; ls e*; cat e
xz -t d.xz; echo "test: $?"
head -c 40 d.xz > cut.xz; xz -d -c cut.xz >/dev/null 2>&1; echo "truncated: $?"
exit 0
