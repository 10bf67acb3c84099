#!/bin/sh
# test / [ ]: file types and permissions, strings, integers, and/or/not.
echo data > f; : > empty; mkdir d; ln -s f link; ln -s nowhere dangling
mkfifo fifo
chmod 755 f; chmod 644 empty
t() { if test "$@"; then echo "test $*: yes"; else echo "test $*: no"; fi; }
t -e f; t -e nothing; t -f f; t -f d; t -d d; t -d f
t -s f; t -s empty; t -L link; t -h link; t -L f; t -e dangling; t -L dangling
t -p fifo; t -f fifo; t -c /dev/null; t -b /dev/null
t -r f; t -w f; t -x f; t -x empty; t -x d
[ f -ef link ] && echo "f -ef link"
[ abc = abc ] && echo "string equal"
[ abc != abd ] && echo "string differ"
[ -z "" ] && echo "-z empty"
[ -n "x" ] && echo "-n nonempty"
[ 10 -gt 9 ] && echo "10 -gt 9"
[ -5 -lt 3 ] && echo "-5 -lt 3"
[ 3 -ge 3 ] && [ 3 -le 3 ] && [ 3 -eq 3 ] && [ 3 -ne 4 ] && echo "integers ok"
[ a \< b ] && echo "a < b"
[ ! -e nothing ] && echo "not exists"
[ -f f -a -d d ] && echo "-a"
[ -f nothing -o -d d ] && echo "-o"
[ "(" 1 -eq 1 ")" ] && echo "parens"
[ ] ; echo "empty test: $?"
[ x ] ; echo "one arg: $?"
[ 1 -eq x ] 2>/dev/null; echo "bad integer: $?"
exit 0
