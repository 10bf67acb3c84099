#!/bin/bash
# Debian's ip (iproute2) over netlink, on lo and on eth0 (a virtio card on
# QEMU's user network under both kernels). eth0 is first brought to the
# same state on both (down, no IPv4 address: Linux boots it so, Kevlar
# with QEMU's defaults), then up with 10.0.2.15/24, a default route, a
# second address and one more route; ip link, ip addr, ip route and
# ip -s link show them, then they are taken away again. Filtered: eth0's
# operational state (Linux sets it from the carrier asynchronously) and
# the statistics' numbers; IPv6 is left out (-4).
ip link set lo up
ip link set eth0 down
ip -4 addr flush dev eth0
ip link show lo
ip -4 addr show dev lo
ip link set eth0 up
ip addr add 10.0.2.15/24 brd + dev eth0
ip route add default via 10.0.2.2
ip addr add 10.0.2.99/24 dev eth0
ip route add 192.168.77.0/24 via 10.0.2.2 dev eth0
ip link show eth0 | sed 's/ state [A-Z]* / state X /'
ip -4 addr show dev eth0
ip -4 -o addr | awk '{ print $2, $4 }'
ip route
ip route show table local
ip -s link show lo | sed -n '1,2p;3p;5p'
ip -s link show lo | awk 'NR == 4 || NR == 6 { for (i = 1; i <= NF; i++) if ($i !~ /^[0-9]+$/) exit 1; print "numbers" }'
ip link set eth0 mtu 1400
ip link show eth0 | grep -o 'mtu [0-9]*'
ip link set eth0 mtu 1500
ip route del 192.168.77.0/24
ip addr del 10.0.2.99/24 dev eth0
ip route
ip -4 -o addr | awk '{ print $2, $4 }'
ip addr add 10.0.2.15/24 dev eth0; echo "adding it again: $?"
ip route del 10.99.0.0/16; echo "deleting a missing route: $?"
ip link show nosuch0; echo "unknown link: $?"
exit 0
