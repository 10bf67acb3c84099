#!/bin/bash
# Debian's DHCP client (isc-dhcp-client's dhclient, over an AF_PACKET
# socket with a BPF filter) gets eth0's address from QEMU's user network
# and configures it through dhclient-script and ip: the address, its
# broadcast and lifetime, the default route, resolv.conf. Then it releases
# the lease (the address goes away) and eth0 is given its usual static
# address again. The root is read-only: dhclient runs in a mount namespace
# with a writable copy of /etc and /var/lib/dhcp. Filtered: the lifetimes
# left (they count down).
ip link set lo up
ip link set eth0 down
ip -4 addr flush dev eth0
ip link set eth0 up
ip -4 addr show dev eth0
unshare --mount --propagation private bash -c '
  mkdir -p /tmp/dhcp/etc /tmp/dhcp/lib
  cp -a /etc/. /tmp/dhcp/etc/ && mount --bind /tmp/dhcp/etc /etc || exit 1
  mount --bind /tmp/dhcp/lib /var/lib/dhcp || exit 1
  timeout 60 dhclient -1 -pf /tmp/dhcp/pid -lf /tmp/dhcp/lease eth0 2>/dev/null
  echo "dhclient: $?"
  grep -c "fixed-address 10.0.2.15;" /tmp/dhcp/lease
  grep -o "option routers [0-9.]*" /tmp/dhcp/lease | sort -u
  cat /etc/resolv.conf
  ip -4 addr show dev eth0 | sed -E "s/(valid|preferred)_lft [0-9]+sec/\1_lft Nsec/g"
  ip -4 route
  timeout 60 dhclient -r -pf /tmp/dhcp/pid -lf /tmp/dhcp/lease eth0 2>/dev/null
  echo "release: $?"
  ip -4 addr show dev eth0
  ip -4 route
'
ip addr add 10.0.2.15/24 brd + dev eth0
ip route add default via 10.0.2.2
ip -4 -o addr | awk '{ print $2, $4 }'
exit 0
