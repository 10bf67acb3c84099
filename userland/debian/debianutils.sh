#!/bin/bash
# debianutils and the base layout: which, /bin/sh (dash), run-parts
# --test, savelog, the merged-/usr symlinks, the dynamic loader listing a
# program's libraries, glibc's version via getconf.
which bash sed perl | tr '\n' ' '; echo
readlink /bin /lib /lib64 /sbin | tr '\n' ' '; echo
readlink -f /bin/sh; sh -c 'echo "sh says $((6 * 7))"' 
mkdir parts; printf '#!/bin/bash\necho part-a\n' > parts/10-a; printf '#!/bin/bash\necho part-b\n' > parts/20-b; echo x > parts/bad.name
chmod +x parts/*; run-parts --test parts | sed "s|$PWD/||"; run-parts parts
getconf GNU_LIBC_VERSION
getconf PAGESIZE
ls -l /lib64/ld-linux-x86-64.so.2 | awk '{ print $NF }'
/lib64/ld-linux-x86-64.so.2 --list /bin/true | sed 's/ (0x[0-9a-f]*)//' | sort
echo x > log; savelog -q -c 2 log >/dev/null 2>&1; ls log* | sort | tr '\n' ' '; echo
exit 0
