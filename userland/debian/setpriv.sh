#!/bin/bash
# util-linux's setpriv: run a command as another user with its groups
# cleared or initialised from /etc/group. setpriv keeps capabilities
# across the uid change (PR_SET_KEEPCAPS) and applies them with capset.
setpriv --reuid=65534 --regid=65534 --clear-groups id
setpriv --reuid=33 --regid=33 --init-groups id
setpriv --reuid=1 --regid=1 --clear-groups bash -c 'touch mine 2>&1; echo "touch in root-owned dir: $?"'
exit 0
