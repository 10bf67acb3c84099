#!/bin/sh
# unzip of an archive written by another tool (embedded in base64): -l
# listing with the stored dates, -p to stdout, extraction with modes kept,
# -d into a directory, -j, -o overwrite, -t test, a corrupt archive.
export TZ=UTC
base64 -d > t.zip <<'END'
UEsDBBQAAAAAAMBjsVAAAAAAAAAAAAAAAAAEAAAAZGlyL1BLAwQUAAAAAADAY7FQNYcATBEAAAAR
AAAADQAAAGRpci9oZWxsby50eHRoZWxsbyBmcm9tIGEgemlwClBLAwQUAAAACADAY7FQdgWkiAQC
AABEBAAACwAAAGRpci9udW1iZXJzHdPLEQUhDAPBu6JBAgzkn9iO9+56n2lhRVNLW6WjqycP2XLk
KS95yyUf+cpPGYqVKFNZylZKOcpVnubQtCYfOTWX5tYszaN5NZ/W0LJWtPjGpbW1SutoXa2nPbSt
He2pzQ/a2qV9tK/2Uw2VVVFN1VLxe0t1VFf1dIaOdaIzdZbO1uHvHJ2r83SHrnWjO3WX7tYtXf7t
1X16Q8960Zt6S2/rld7RI0bXIMegxyDIoMggyaDJIMqgyiDL4O7Pxl2H63Kdrtt1vK7X+ehnAjrd
lzsamoimosloOpqQpqRJaVp6NgR35DQ9TVBT1CQ1TU1UU9Vk9Wox7ihr0pq2Jq6pa/KaviawKezd
tNwR2VQ2mU1nE9qUNqlNaxPb1Rvgjt4muClukpvmJrqpbrKb7j49Fu5Ib9qb+Ka+yW/6GwAjYAh8
e1XcoWAYjIOBMBKGwlgYDKPh1/Pr/TFAPIJH8AgewSN4BI/gETziHip3eASP4BE8gkfwCB7pPfeg
/0Vz15vuUfeqe9a96x42HsEjeGT29LnDI3gEj+ARPIJH8AgewSOr3wh3eASP4BE8gkfwCB7BI3hk
92PiDo/gETyCR/AIHsEjeASPVL867vAIHsEjeASP4BE8gkfwyOnnyR0ewSN4BI/gETyCR/AIHrn9
jrnDI3gEj+ARPIJH8AgewSOvH3y/+KEPUEsDBBQAAAAIAIMYIlIQqcmpFQAAABMAAAAGAAAAcnVu
LnNoU1bUT8rM0y/O4EpNzshXKErM4wIAUEsBAhQDFAAAAAAAwGOxUAAAAAAAAAAAAAAAAAQAAAAA
AAAAAAAAAO1BAAAAAGRpci9QSwECFAMUAAAAAADAY7FQNYcATBEAAAARAAAADQAAAAAAAAAAAAAA
pIEiAAAAZGlyL2hlbGxvLnR4dFBLAQIUAxQAAAAIAMBjsVB2BaSIBAIAAEQEAAALAAAAAAAAAAAA
AACAgV4AAABkaXIvbnVtYmVyc1BLAQIUAxQAAAAIAIMYIlIQqcmpFQAAABMAAAAGAAAAAAAAAAAA
AADtgYsCAABydW4uc2hQSwUGAAAAAAQABADaAAAAxAIAAAAA
END
unzip -l t.zip
unzip -p t.zip dir/hello.txt
unzip -q t.zip; echo "extract: $?"
find dir run.sh | sort
stat -c '%a %n' dir/hello.txt dir/numbers run.sh
./run.sh
md5sum < dir/numbers
unzip -q -d into t.zip; find into | sort
unzip -q -j -d flat t.zip dir/numbers; ls flat
echo changed > run.sh; unzip -q -o t.zip run.sh; cat run.sh
unzip -t t.zip >/dev/null; echo "test: $?"
head -c 200 t.zip > cut.zip; unzip -q -d bad cut.zip >/dev/null 2>&1; echo "truncated: $?"
exit 0
