#!/bin/bash
# Partitions on the blank third disk (vdc), as an administrator makes
# them: sfdisk writes an MBR with primary, extended and logical
# partitions, then a GPT; the kernel rereads the table each time
# (BLKRRPART), and /proc/partitions, /sys/block, /sys/class/block,
# /sys/dev/block, devtmpfs's nodes and lsblk show the partitions.
D=/dev/vdc
show() {
    echo "-- /proc/partitions"; grep -E 'major|vdc' /proc/partitions
    echo "-- /dev"; ls /dev | grep '^vdc' | tr '\n' ' '; echo
    echo "-- lsblk"; lsblk -o NAME,MAJ:MIN,RM,SIZE,RO,TYPE $D
    for p in /sys/block/vdc/vdc[0-9]*; do
        [ -e $p ] || continue
        n=${p##*/}
        echo "$n: dev $(cat $p/dev) partition $(cat $p/partition) start $(cat $p/start) size $(cat $p/size) ro $(cat $p/ro)" \
             "class $(cat /sys/class/block/$n/dev) byno $(basename "$(readlink /sys/dev/block/$(cat $p/dev))")"
    done
}
echo "-- as block-mkfs left it"; show
sfdisk -q $D >/dev/null 2>&1 <<EOF
label: dos
label-id: 0x4b657601
start=2048, size=20480, type=83
start=22528, size=16384, type=82
start=38912, size=61440, type=5
start=40960, size=8192, type=83
start=51200, size=4096, type=83
start=57344, type=83
EOF
echo "sfdisk dos: $?"
sfdisk -d $D
show
echo "-- partx"; partx -g -o NR,START,END,SECTORS,TYPE $D
blkid -p -o export ${D}1 | grep -E '^(PART_ENTRY_NUMBER|PART_ENTRY_OFFSET|PART_ENTRY_SIZE|PART_ENTRY_SCHEME)='
sfdisk -q --label gpt $D >/dev/null 2>&1 <<EOF
label: gpt
label-id: 6B657601-0000-4000-8000-000000000001
first-lba: 2048
start=2048, size=32768, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=6B657601-0000-4000-8000-000000000011, name="data"
start=34816, size=8192, type=0657FD6D-A4AB-43C4-84E5-0933C84B4F4F, uuid=6B657601-0000-4000-8000-000000000012, name="swap"
EOF
echo "sfdisk gpt: $?"
sfdisk -d $D
show
# Drop the table: after a reread the partitions are gone.
dd if=/dev/zero of=$D bs=1M count=1 conv=fsync status=none
blockdev --rereadpt $D; echo "rereadpt: $?"
show
exit 0
