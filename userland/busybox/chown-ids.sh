#!/bin/sh
# chown and chgrp with numeric ids (as root): owner, group, both, -R,
# -h on a symlink (the link changes, not the target); chown clears setuid.
touch f; mkdir -p d/sub; touch d/sub/g
ln -s f link
chown 1000 f; stat -c '%u %g %n' f
chown :2000 f; stat -c '%u %g %n' f
chown 3000:4000 f; stat -c '%u %g %n' f
chgrp 5000 f; stat -c '%u %g %n' f
chown -R 42:43 d; find d | sort | while read -r p; do stat -c '%u %g %n' "$p"; done
chown -h 7:8 link; stat -c '%u %g %n' link f
chown 9:10 link; stat -c '%u %g %n' f
chmod 4755 f; chown 11 f; stat -c '%a %u %n' f
chmod 2755 f; chown 12 f; stat -c '%a %u %n' f
chown 0:0 f; stat -c '%u %g %n' f
chown 1 missing 2>/dev/null; echo "missing: $?"
exit 0
