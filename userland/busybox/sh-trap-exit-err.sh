#!/bin/sh
# EXIT traps in error paths: set -e failures keep the failing status for
# the trap and the shell; a trapped TERM that exits runs EXIT too; exit
# inside the EXIT trap overrides the status; $? is seen by the trap.
sh -c 'trap "echo exit trap sees \$?" EXIT; set -e; false; echo no'; echo "set -e: $?"
sh -c 'trap "echo in exit" EXIT; trap "echo got TERM; exit 9" TERM; kill -TERM $$; echo no'; echo "TERM: $?"
sh -c 'trap "exit 4" EXIT; exit 1'; echo "exit in trap: $?"
sh -c 'trap "echo status \$?" EXIT; sh -c "exit 6"'; echo "last command: $?"
sh -c 'f() { trap "echo fn exit trap" EXIT; }; f; echo body'; echo "from function: $?"
sh -c 'trap "echo cleanup" EXIT; (exit 2)'; echo "subshell status: $?"
sh -c 'trap "echo not run for KILL" EXIT; kill -9 $$'; echo "KILL: $?"
sh -c 'set -e; trap "echo trap ran" EXIT; x=$(false); echo no'; echo "assignment under -e: $?"
exit 0
