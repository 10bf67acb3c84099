#!/bin/sh
# awk records and fields: -F with a regex, OFS and rebuilding $0, NF
# assignment, RS as a character and paragraph mode, ORS, FNR vs NR over two
# files, FILENAME, -v, getline from a file, exit status from exit.
printf 'a,b;c,d\n1;2,3\n' > csv
awk -F '[,;]' '{ print NF, $3 }' csv
echo "x y z" | awk 'BEGIN { OFS = "-" } { $1 = $1; print; $5 = "e"; print; print NF }'
echo "1 2 3 4 5" | awk '{ NF = 3; print }'
printf 'one;two;three' | awk 'BEGIN { RS = ";" } { print NR ": " $0 }'
printf 'p1 l1\np1 l2\n\n\np2 l1\n' | awk 'BEGIN { RS = "" } { print NR, NF, $1 }'
printf 'a\nb\n' | awk 'BEGIN { ORS = "|" } { print } END { printf "\n" }'
printf '1\n2\n' > f1; printf '3\n4\n5\n' > f2
awk '{ print FILENAME, NR, FNR, $0 }' f1 f2
awk -v n=3 -v s=hi 'BEGIN { print n * 2, s }'
awk 'BEGIN { while ((getline line < "f2") > 0) print "got", line; close("f2") }'
echo x | awk '{ exit 3 }'; echo "exit: $?"
awk 'BEGIN { print 1/3, 7%3, int(-3.7), 2*3+1 }'
exit 0
