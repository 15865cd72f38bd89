#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dhcpv6_fqdn.sh - --fqdn reaches a real DHCPv6 client (dhclient -6, told
# to send a Client FQDN option asking for server updates) as option 39 of
# RFC 4704 in the Advertise and the Reply, decoded by tshark: flags N and
# O set, S clear (section 4.1: we do no update and override the client's
# S), name guest.example.org (fully qualified)
# asan: yes
. "$(dirname "$0")/lib.sh"

command -v dhclient >/dev/null || skip "dhclient not installed (isc-dhcp-client)"
command -v tshark >/dev/null || skip "tshark not installed"
setup_topology
CONFIG_NET=0 start_pasta --fqdn guest.example.org -p "$WORK/dh6.pcap"
in_ns sysctl -q -w net.ipv6.conf.h0.accept_dad=0
in_ns ip link set h0 up
wait_for sh -c "ip -n $N -6 addr show dev h0 scope link | grep -q fe80" ||
	fail "no link-local address on h0"

# dhclient.conf(5): "send fqdn.fqdn" adds option 39, "fqdn.server-update"
# sets its S flag
cat > "$WORK/dh.conf" <<'CONF'
send fqdn.fqdn "vm.";
send fqdn.server-update on;
CONF
in_ns timeout 30 dhclient -6 -1 -v -cf "$WORK/dh.conf" -sf /bin/true \
	-lf "$WORK/leases" -pf "$WORK/dh.pid" h0 > "$WORK/dh.log" 2>&1 ||
	{ cat "$WORK/dh.log" "$WORK/pasta.log"; fail "dhclient -6 got no lease"; }
[ -f "$WORK/dh.pid" ] && kill "$(cat "$WORK/dh.pid")" 2>/dev/null
stop_pasta

tshark -r "$WORK/dh6.pcap" -Y 'dhcpv6.msgtype == 7' -T fields \
	-e dhcpv6.client_fqdn_flags -e dhcpv6.client_domain \
	> "$WORK/reply" 2>"$WORK/tshark.err"
tshark -r "$WORK/dh6.pcap" -Y 'dhcpv6.msgtype == 3 || dhcpv6.msgtype == 1' \
	-T fields -e dhcpv6.client_fqdn_flags > "$WORK/sent" 2>>"$WORK/tshark.err"
cat "$WORK/sent" "$WORK/reply"
[ -s "$WORK/reply" ] || { cat "$WORK/tshark.err"; fail "no Reply in the capture"; }
grep -q 1 "$WORK/sent" || fail "dhclient did not send option 39 with S set"
# A fully qualified name ends with the root label: tshark adds the dot
grep -qx "0x06	guest.example.org." "$WORK/reply" ||
	fail "Reply: expected option 39 flags 0x06, guest.example.org."
pass "DHCPv6 Reply carries --fqdn as option 39"
