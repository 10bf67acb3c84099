#!/bin/sh
# grep: -v, -c, -E, -i, -n, -l, -w, -o, -q status, -F, -x, multiple files.
printf 'apple pie\nBanana split\ncherry tart\napple crumble\ngrape\n' > f
printf 'pineapple\nkiwi\n' > g
grep apple f
grep -v apple f
grep -c apple f
grep -i banana f
grep -n a f
grep -E 'pie|tart' f
grep -E '^(apple|grape)' f
grep -w apple f g
grep -o 'a[a-z]*e' f
grep -l apple f g
grep -c apple f g
grep -x grape f
grep -F 'a.p' f; echo "no match: $?"
grep -q cherry f; echo "-q found: $?"
grep missing-file-pattern nofile 2>/dev/null; echo "missing file: $?"
grep -h apple f g
grep -e kiwi -e grape f g
printf 'x\ny\n' | grep -v x
grep -r apple . | sort
exit 0
