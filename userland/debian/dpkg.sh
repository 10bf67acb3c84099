#!/bin/bash
# dpkg's database of the image: dpkg -l, -L, -S, -s, dpkg-query -W with a
# format, --print-architecture, and that the listed files exist.
dpkg --print-architecture
dpkg -l bash coreutils grep | awk 'NR > 5 { print $1, $2 }'
dpkg -L sed | grep -E '^/bin/|^/usr/bin/' | sort
dpkg -S /bin/grep
dpkg -s gzip | grep -E '^(Package|Status|Priority|Essential):'
dpkg-query -W -f='${Package} ${Architecture}\n' bash dpkg perl-base
n=$(dpkg-query -W -f='${Package}\n' | wc -l); [ "$n" -gt 40 ] && echo "more than 40 packages installed"
missing=0; for f in $(dpkg -L coreutils | grep /bin/); do [ -e "$f" ] || missing=$((missing + 1)); done; echo "missing coreutils files: $missing"
dpkg -l no-such-package 2>&1 | tail -1; echo "status: ${PIPESTATUS[0]}"
exit 0
