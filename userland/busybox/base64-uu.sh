#!/bin/sh
# base64 and uuencode/uudecode round trips over text and binary bytes;
# base64 of known strings; -d of invalid input.
printf '' | base64
printf 'f' | base64; printf 'fo' | base64; printf 'foo' | base64; printf 'foob' | base64
printf 'Kevlar kernel' | base64
echo 'S2V2bGFyIGtlcm5lbA==' | base64 -d; echo
head -c 3000 /dev/zero | tr '\0' '\377' > bin; seq 1 500 >> bin
base64 bin | base64 -d | cmp - bin && echo "base64 round trip"
base64 bin | head -n 1 | wc -c
uuencode -m name < bin | head -n 1
uuencode name < bin > bin.uu; head -n 1 bin.uu
mkdir out; cd out && uudecode ../bin.uu && cmp name ../bin && echo "uudecode round trip"
cd ..
echo '!!!!' | base64 -d >/dev/null 2>&1; echo "invalid: $?"
exit 0
