#!/bin/sh
# set -e: a failing simple command ends the shell, but not in conditions,
# && / || lists, or negations.
sh -c 'set -e; echo before; false; echo after'; echo "status: $?"
sh -c 'set -e; false || echo "|| continues"; echo end1'; echo "status: $?"
sh -c 'set -e; false && echo no; echo "&& list continues"'; echo "status: $?"
sh -c 'set -e; if false; then echo no; fi; echo "if continues"'; echo "status: $?"
sh -c 'set -e; while false; do :; done; echo "while continues"'; echo "status: $?"
sh -c 'set -e; ! true; echo "negation continues"'; echo "status: $?"
sh -c 'set -e; (exit 4); echo no'; echo "subshell fail: $?"
sh -c 'set -e; x=$(false); echo no'; echo "assignment from failing subst: $?"
sh -c 'set -e; sh -c "exit 6"; echo no'; echo "child fail: $?"
sh -c 'set -e; trap "echo exit-trap \$?" EXIT; false'; echo "trap status: $?"
sh -c 'set -e; set +e; false; echo "set +e continues"'; echo "status: $?"
exit 0
