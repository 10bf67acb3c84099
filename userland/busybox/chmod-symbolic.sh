#!/bin/sh
# chmod symbolic modes: u/g/o/a with + - =, comma lists, X, setuid, setgid
# and sticky bits, copying classes (g=u), -R over a tree.
umask 022
touch f; mkdir d
m() { chmod "$1" "$2"; echo "$1 -> $(stat -c '%a %A' "$2")"; }
chmod 644 f
m u+x f; m g+w f; m o-r f; m a=r f; m u+w,g+x f; m go= f; m +x f; m a-x f
m u=rwx,g=rx,o= f; m g=u f; m o=g f; m u-rwx f
m u+s f; m g+s f; m o+t f; m a-st f
chmod 644 f; m a+X f
chmod 754 f; m a+X f
chmod 700 d; m a+X d; m +t d; m -t d
chmod 0 f; m =rw f
chmod 644 f; m 4755 f; m 1777 d
chmod xyz f 2>/dev/null; echo "bad mode: $?"
mkdir -p tree/sub; touch tree/a tree/sub/b
chmod -R go-rwx tree; find tree | sort | while read -r p; do stat -c '%a %n' "$p"; done
chmod -R u=rwX,go=rX tree; find tree | sort | while read -r p; do stat -c '%a %n' "$p"; done
exit 0
