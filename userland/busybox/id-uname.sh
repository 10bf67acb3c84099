#!/bin/sh
# Identity and system names that Linux defines: id as root, uname -s/-m/-o.
id -u
id -g
id -un 2>/dev/null || echo "no user name (no /etc/passwd)"
uname -s
uname -m
uname -o
whoami 2>/dev/null || echo "whoami: no name"
[ -n "$(uname -r)" ] && echo "release is non-empty"
uname -n | grep -q . && echo "nodename is non-empty"
exit 0
