#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/unit/captures/capture.sh - Capture real client traffic for unit tests
#
# Usage: capture.sh OUTDIR (as root).  Two scratch namespaces, x-cli-PID
# (clients: busybox udhcpc, ISC dhclient -4/-6, rdisc6, ndisc6, ping,
# busybox arping and nc, socat) and x-srv-PID (dnsmasq as DHCP/DHCPv6/RA
# server, tcpdump), joined by a veth pair.  Nothing leaves them; both are
# deleted on exit.  The unit tests paste frames from these files as hex
# with their tshark -V decode.  Addresses are documentation ones only:
# 203.0.113.0/24 (RFC 5737; guest .15, server/gateway .2, DNS .3),
# 2001:db8::/64 (RFC 3849) and the multicast group 233.252.0.1
# (MCAST-TEST-NET, RFC 6676); they must match test/unit/fake_conf.c.
set -u
out=${1:?outdir}
mkdir -p "$out"
tmp=$(mktemp -d)
R=$$
A=x-cli-$R; B=x-srv-$R
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	# Anything else started in our namespaces (dhclient daemons)
	for ns in "$A" "$B"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$p" 2>/dev/null
		done
	done
	sleep 0.3
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$A"; ip netns add "$B"
ip -n "$A" link add veth0 type veth peer name veth1 netns "$B"
ip -n "$A" link set lo up; ip -n "$B" link set lo up
ip -n "$A" link set veth0 address 52:54:00:12:34:56
ip -n "$B" link set veth1 address 9a:55:9a:55:9a:55

cap_start() { # $1: name
	ip netns exec "$B" tcpdump -i veth1 -U -n -s 0 -w "$out/$1.pcap" 2>/dev/null &
	cpid=$!; pids="$pids $cpid"; sleep 1
}
cap_stop() {
	sleep 1; kill "$cpid"; wait "$cpid" 2>/dev/null
}

# --- IPv6 up: DAD NS from ::, MLDv2 reports (Hop-by-Hop router alert), RS
ip -n "$B" addr add 2001:db8::1/64 dev veth1 nodad
ip -n "$B" link set veth1 up
sleep 1
cap_start ipv6_up
ip -n "$A" link set veth0 up
sleep 4
cap_stop

ip -n "$B" addr add 203.0.113.2/24 dev veth1
# --- DHCPv4 with busybox udhcpc against dnsmasq
cat > "$tmp/dnsmasq.conf" <<EOC
port=0
interface=veth1
bind-interfaces
dhcp-range=203.0.113.15,203.0.113.15,255.255.255.0,1h
dhcp-range=2001:db8::15,2001:db8::15,64,1h
enable-ra
dhcp-rapid-commit
dhcp-option=option:dns-server,203.0.113.3
domain=example.org
leasefile-ro
no-resolv
no-hosts
EOC
ip netns exec "$B" dnsmasq -k -C "$tmp/dnsmasq.conf" --pid-file= 2>"$tmp/dnsmasq.log" &
dpid=$!; pids="$pids $dpid"; sleep 1

cap_start dhcp_udhcpc
ip netns exec "$A" busybox udhcpc -i veth0 -n -q -f -s /bin/true -R -x hostname:guest -O search
cap_stop

cap_start dhcp_dhclient
ip netns exec "$A" dhclient -4 -1 -v -sf /bin/true -lf "$tmp/dhclient4.leases" -pf "$tmp/dhclient4.pid" veth0
sleep 1
ip netns exec "$A" dhclient -4 -r -v -sf /bin/true -lf "$tmp/dhclient4.leases" -pf "$tmp/dhclient4.pid" veth0
cap_stop

# --- DHCPv6 with ISC dhclient: stateful, rapid commit, stateless
cat > "$tmp/dhclient6-rc.conf" <<EOC
send dhcp6.rapid-commit;
EOC
cap_start dhcpv6_dhclient
ip netns exec "$A" dhclient -6 -1 -v -sf /bin/true -lf "$tmp/dhclient6.leases" -pf "$tmp/dhclient6.pid" veth0
sleep 1
ip netns exec "$A" dhclient -6 -r -v -sf /bin/true -lf "$tmp/dhclient6.leases" -pf "$tmp/dhclient6.pid" veth0
cap_stop

cap_start dhcpv6_rapid
ip netns exec "$A" dhclient -6 -1 -v -sf /bin/true -cf "$tmp/dhclient6-rc.conf" -lf "$tmp/dhclient6rc.leases" -pf "$tmp/dhclient6rc.pid" veth0
sleep 1
ip netns exec "$A" dhclient -6 -x -v -sf /bin/true -cf "$tmp/dhclient6-rc.conf" -lf "$tmp/dhclient6rc.leases" -pf "$tmp/dhclient6rc.pid" veth0
cap_stop

cap_start dhcpv6_inforeq
ip netns exec "$A" dhclient -6 -S -1 -v -sf /bin/true -lf "$tmp/dhclient6s.leases" -pf "$tmp/dhclient6s.pid" veth0
sleep 1
ip netns exec "$A" dhclient -6 -x -pf "$tmp/dhclient6s.pid" veth0 2>/dev/null
cap_stop

kill $dpid; sleep 0.5

# --- RS and NS with ndisc6 tools, ping6 (NS + echo), fragmented ping6
ip -n "$A" addr add 2001:db8::15/64 dev veth0 nodad
ip -n "$A" addr add 203.0.113.15/24 dev veth0
sleep 1
cap_start ndp
ip netns exec "$A" rdisc6 -1 -r 1 -w 500 veth0
ip netns exec "$A" ndisc6 -1 -r 1 -w 500 2001:db8::1 veth0
ip netns exec "$A" ndisc6 -1 -r 1 -w 500 fe80::1 veth0
cap_stop

cap_start ping
ip netns exec "$A" ping -c 1 -W 1 203.0.113.2
ip netns exec "$A" ping -c 1 -W 1 2001:db8::1
ip netns exec "$A" ping -c 1 -W 1 -s 3000 203.0.113.2
ip netns exec "$A" ping -c 1 -W 1 -s 3000 2001:db8::1
cap_stop

# --- ARP: DAD probe, gratuitous, plain request
cap_start arp
ip -n "$A" neigh flush dev veth0
ip netns exec "$A" busybox arping -D -c 1 -w 1 -I veth0 203.0.113.15
ip netns exec "$A" busybox arping -U -c 1 -w 1 -I veth0 203.0.113.15
ip netns exec "$A" busybox arping -c 1 -w 1 -I veth0 203.0.113.2
cap_stop

# --- TCP and UDP, both families; IGMP with IPv4 Router Alert option
cap_start l4
ip netns exec "$A" busybox nc -w 1 203.0.113.2 80 </dev/null
ip netns exec "$A" busybox nc -w 1 2001:db8::1 80 </dev/null
echo hello | ip netns exec "$A" socat - \
	UDP4-SENDTO:203.0.113.2:5353,sourceport=40000
echo hello | ip netns exec "$A" socat - \
	UDP6-SENDTO:'[2001:db8::1]':5353,sourceport=40000
ip -n "$A" addr add 233.252.0.1/32 dev veth0 autojoin
sleep 2
cap_stop
ls -l "$out"/*.pcap
