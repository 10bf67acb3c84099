#!/bin/sh
# Pipeline exit statuses: the last command's by default, pipefail's
# rightmost failure, ! negation, a writer killed by SIGPIPE (141) seen
# through pipefail, and exit in a pipeline stage.
false | true; echo "default: $?"
true | false; echo "last fails: $?"
set -o pipefail
false | true; echo "pipefail: $?"
(exit 3) | (exit 4) | true; echo "rightmost failure: $?"
true | true; echo "all succeed: $?"
yes | head -n 1 >/dev/null; echo "SIGPIPE writer: $?"
! (exit 3) | true; echo "negated: $?"
set +o pipefail
echo data | exit 5; echo "exit in last stage: $?"
echo data | { read x; echo "read $x"; exit 6; }; echo "group: $?"
exit 0
