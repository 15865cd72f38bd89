#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ndp_dhcpv6.sh - router advertisement (rdisc6) carries the prefix of H's
# address (2001:db8:1::/64), the MTU and the RDNSS server; a real DHCPv6
# client (dhclient -6) gets H's address and the -D server (RFC 4861, 8106,
# 8415)
# asan: yes
. "$(dirname "$0")/lib.sh"

command -v rdisc6 >/dev/null || fail "rdisc6 missing (package ndisc6)"
command -v dhclient >/dev/null || fail "dhclient missing (package isc-dhcp-client)"
setup_topology
CONFIG_NET=0 start_pasta -m 9000 -D 2001:db8:1::53 -S test.example --dhcp-dns --dhcp-search
in_ns sysctl -q -w net.ipv6.conf.h0.accept_dad=0
in_ns ip link set h0 up
wait_for sh -c "ip -n $N -6 addr show dev h0 scope link | grep -q fe80" ||
	fail "no link-local address on h0"

in_ns timeout 10 rdisc6 -1 -w 2000 h0 > "$WORK/ra" 2>&1 ||
	{ cat "$WORK/ra" "$WORK/pasta.log"; fail "no router advertisement"; }
cat "$WORK/ra"
grep -q "Prefix *: 2001:db8:1::/64" "$WORK/ra" || fail "RA prefix"
grep -q "MTU *: *9000" "$WORK/ra" || fail "RA MTU"
grep -q "Recursive DNS server *: 2001:db8:1::53" "$WORK/ra" || fail "RA RDNSS"
grep -q "DNS search list *: test.example" "$WORK/ra" || fail "RA DNSSL"

cat > "$WORK/dh.sh" <<SH
#!/bin/sh
env | grep -E '^(reason|new_ip6_address|new_ip6_prefixlen|new_dhcp6_name_servers|new_dhcp6_domain_search)=' >> "$WORK/dh"
SH
chmod +x "$WORK/dh.sh"
in_ns timeout 30 dhclient -6 -1 -v -sf "$WORK/dh.sh" \
	-lf "$WORK/leases" -pf "$WORK/dh.pid" h0 > "$WORK/dh.log" 2>&1 ||
	{ cat "$WORK/dh.log" "$WORK/pasta.log"; fail "dhclient -6 got no lease"; }
[ -f "$WORK/dh.pid" ] && kill "$(cat "$WORK/dh.pid")" 2>/dev/null
cat "$WORK/dh"
grep -q "new_ip6_address=$H6" "$WORK/dh" || fail "DHCPv6 address"
grep -q "new_dhcp6_name_servers=2001:db8:1::53" "$WORK/dh" || fail "DHCPv6 DNS"
grep -q "new_dhcp6_domain_search=.*test.example" "$WORK/dh" || fail "DHCPv6 domain list"
stop_pasta
pass "RA and DHCPv6 carry the configured prefix, address and DNS"
