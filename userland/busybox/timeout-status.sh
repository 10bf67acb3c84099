#!/bin/sh
# timeout: the command's own status passes through, a timed-out command
# gives 143 (TERM), -s chooses the signal, a command that traps TERM
# decides its own status, and a missing command.
timeout 5 sh -c 'exit 7'; echo "passes through: $?"
timeout 5 true; echo "true: $?"
timeout 1 sleep 10; echo "timed out: $?"
timeout -s INT 1 sleep 10; echo "-s INT: $?"
timeout -s 9 1 sleep 10; echo "-s 9: $?"
timeout 1 sh -c 'trap "echo caught TERM; exit 42" TERM; while :; do sleep 0.1; done'; echo "trapped: $?"
timeout 5 ./missing 2>/dev/null; echo "missing: $?"
exit 0
