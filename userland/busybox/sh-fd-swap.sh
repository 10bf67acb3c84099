#!/bin/sh
# Swapping stdout and stderr with a third fd (3>&1 1>&2 2>&3) so only a
# command's errors go down a pipe; duplicating onto fds above 9 is not
# needed; >&- closing stdout makes writes fail.
err_and_out() { echo "to stdout"; echo "to stderr" >&2; }
{ err_and_out 3>&1 1>&2 2>&3 | sed 's/^/piped: /'; } 2>/dev/null
{ err_and_out 2>&1 1>/dev/null | sed 's/^/only err: /'; }
{ err_and_out 3>&1 1>/dev/null 2>&3; } | sort
echo closed >&- 2>/dev/null; echo "write to closed stdout: $?"
(echo in-sub >&3) 3>&1
exit 0
