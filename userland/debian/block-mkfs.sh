#!/bin/bash
# A file system on a partition: sfdisk makes one, mkfs.ext2 formats it,
# mount, write, umount, e2fsck, mount read-only again; BLKRRPART on the
# disk while its partition is mounted is refused (EBUSY).
D=/dev/vdc
printf 'label: dos\nlabel-id: 0x4b657602\nstart=2048, size=40960, type=83\nstart=43008, type=83\n' | sfdisk -q $D >/dev/null 2>&1
echo "sfdisk: $?"
mkfs.ext2 -q -F -U 6b6576c1-6172-4578-b432-0000000000e1 -E hash_seed=6b6576c1-6172-4578-b432-0000000000e2 -L part1 ${D}1; echo "mkfs: $?"
blkid -o export ${D}1 | grep -E '^(LABEL|UUID|TYPE)='
mkdir m
mount ${D}1 m; echo "mount: $?"
findmnt -n -o SOURCE,FSTYPE m | sed 's/ \+/ /g'
echo hello > m/file; mkdir m/dir; seq 1 20000 > m/dir/numbers
df -k m | awk 'NR == 2 { print "df size:", $2 }'
blockdev --rereadpt $D 2>&1; echo "rereadpt while mounted: $?"
blockdev --rereadpt ${D}1 2>&1; echo "rereadpt of a partition: $?"
# Exclusive opens (O_EXCL claims) with a partition mounted.
perl -MFcntl -e 'for my $d (@ARGV) { if (sysopen(my $f, $d, O_RDONLY | O_EXCL)) { print "$d exclusive: ok\n" } else { print "$d exclusive: ", ($!{EBUSY} ? "EBUSY" : "$!"), "\n" } }' $D ${D}1 ${D}2
perl -MFcntl -e 'sysopen(my $a, $ARGV[0], O_RDONLY | O_EXCL) or die; print "second claim: ", (sysopen(my $b, $ARGV[0], O_RDONLY | O_EXCL) ? "ok" : ($!{EBUSY} ? "EBUSY" : "$!")), "\n"' ${D}2
umount m; echo "umount: $?"
e2fsck -fn ${D}1 >/dev/null 2>&1; echo "e2fsck: $?"
mount -o ro ${D}1 m; cat m/file; wc -l < m/dir/numbers; umount m
# The second partition is separate: what is written there does not show in the first.
mkfs.ext2 -q -F -U 6b6576c1-6172-4578-b432-0000000000e3 -E hash_seed=6b6576c1-6172-4578-b432-0000000000e2 ${D}2; echo "mkfs 2: $?"
mount ${D}2 m && ls m && umount m
mount ${D}1 m && ls m && umount m
blockdev --rereadpt $D; echo "rereadpt: $?"
exit 0
