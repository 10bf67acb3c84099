#!/bin/sh
# Exit statuses: true, false, ! inversion, exit N modulo 256, the status of
# pipelines and lists, the applets run by path and through busybox.
true; echo "true: $?"
false; echo "false: $?"
/bin/true; echo "/bin/true: $?"
/bin/false; echo "/bin/false: $?"
busybox false; echo "busybox false: $?"
! true; echo "! true: $?"
! false; echo "! false: $?"
sh -c 'exit 300'; echo "exit 300: $?"
sh -c 'exit 255'; echo "exit 255: $?"
true | false; echo "true | false: $?"
false | true; echo "false | true: $?"
false && echo no; echo "false && ..: $?"
false || true; echo "false || true: $?"
if false; then :; else echo "else branch: $?"; fi
sh -c 'false; exit'; echo "bare exit: $?"
f() { return 12; }; f; echo "return 12: $?"
exit 0
