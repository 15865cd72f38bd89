#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_follow_guest.sh - a guest that configures itself (pasta without
# --config-net: the kernel in N does SLAAC from our router advertisements,
# busybox udhcpc asks DHCP, dhclient -6 asks DHCPv6) gets the host's new
# picture when H is re-addressed while pasta runs (passt.1, FOLLOWING THE
# HOST): 198.51.100.1/24 -> 203.0.113.1/24 via 203.0.113.2 and
# 2001:db8:1::1/64 -> 2001:db8:3::1/64 via 2001:db8:3::2.
#  - before: a SLAAC address in 2001:db8:1::/64; DHCP: H's address, router
#    and mapped name server (the gateway, --dhcp-dns), lease 600 s (option
#    51, RFC 2132 9.2); DHCPv6: H's address, preferred and valid lifetimes
#    600 s
#  - after, without asking: the kernel in N gets an address in
#    2001:db8:3::/64 within 6 s of the change (300 ms to settle, 3 s
#    at most since the previous multicast RA, RFC 4861 10
#    MIN_DELAY_BETWEEN_RAS, the main loop's 1 s tick), and its address in
#    2001:db8:1::/64 is deprecated (preferred_lft 0, RFC 4862 5.5.4) with
#    valid_lft cut to 2 hours at most (5.5.3 e: an unauthenticated RA
#    can't end a longer one at once): the RA with the new prefix and the
#    old one at lifetimes 0 went out at once.  Without that, the next
#    unsolicited RA comes 3 to 16 s after the previous one among the first
#    three (RFC 4861 6.2.4), 200 to 600 s after later ones, so the 6 s bound
#    catches a missing RA in most runs (no run can fail because of it);
#  - after, asking again: DHCP gives 203.0.113.1/24 via 203.0.113.2, name
#    server 203.0.113.2, 600 s; DHCPv6 gives 2001:db8:3::1.
#  - with --no-follow-host, the same change: no new prefix after 3 s, and
#    DHCP still gives 198.51.100.1 with an infinite lease (RFC 2131 3.3).
# asan: yes
. "$(dirname "$0")/lib.sh"

command -v dhclient >/dev/null || skip "dhclient missing (package isc-dhcp-client)"
busybox udhcpc --help >/dev/null 2>&1 || skip "busybox udhcpc missing"

setup_topology
ip -n "$R" addr add 203.0.113.2/24 dev r0
ip -n "$R" addr add 2001:db8:3::2/64 dev r0 nodad

cat > "$WORK/udhcpc.sh" <<'SH'
#!/bin/sh
[ "$1" = bound ] || exit 0
env | grep -E '^(ip|subnet|router|dns|lease)=' | sort > "$LEASE_OUT"
SH
cat > "$WORK/dh.sh" <<SH
#!/bin/sh
env | grep -E '^(reason|new_ip6_address|new_preferred_life|new_max_life)=' >> "$WORK/dh"
SH
chmod +x "$WORK/udhcpc.sh" "$WORK/dh.sh"

# guest_up - N's tap up, no DAD (its router solicitations come at link up
# only: after the change, every RA N gets is one pasta sent by itself)
guest_up() {
	in_ns sysctl -q -w net.ipv6.conf.h0.accept_dad=0
	in_ns ip link set h0 up
}
# dhcp4 - one DHCP exchange (udhcpc), its values in $WORK/lease
dhcp4() {
	rm -f "$WORK/lease"
	LEASE_OUT=$WORK/lease in_ns timeout 20 busybox udhcpc -i h0 -f -q -n \
		-t 5 -s "$WORK/udhcpc.sh" >"$WORK/udhcpc.log" 2>&1 ||
		{ cat "$WORK/udhcpc.log" "$WORK/pasta.log"; fail "udhcpc got no lease"; }
}
# dhcp6 - one DHCPv6 exchange (dhclient -6), its values in $WORK/dh
dhcp6() {
	rm -f "$WORK/dh" "$WORK/leases"
	in_ns timeout 30 dhclient -6 -1 -sf "$WORK/dh.sh" \
		-lf "$WORK/leases" -pf "$WORK/dh.pid" h0 > "$WORK/dh.log" 2>&1 ||
		{ cat "$WORK/dh.log" "$WORK/pasta.log"; fail "dhclient -6 got no lease"; }
	[ -f "$WORK/dh.pid" ] && kill "$(cat "$WORK/dh.pid")" 2>/dev/null
}
# has FILE LINE - FILE has LINE
has() { grep -qx "$2" "$1" || { cat "$1"; fail "$1: expected $2"; }; }
# slaac PREFIX - N's global address in PREFIX (a /64, "2001:db8:3:"), with flags
slaac() { ip -n "$N" -6 -o addr show dev h0 scope global | grep " inet6 $1:"; }

readdress() {
	readdress_host $H4 203.0.113.1 203.0.113.2 $H6 2001:db8:3::1 2001:db8:3::2
}
restore() {
	readdress_host 203.0.113.1 $H4 $R4 2001:db8:3::1 $H6 $R6
}

# --no-follow-host: the start-up picture stays
CONFIG_NET=0 start_pasta --no-follow-host
guest_up
WAIT_S=20 wait_for slaac 2001:db8:1 || fail "--no-follow-host: no SLAAC address"
readdress
sleep 3
slaac 2001:db8:3 && fail "--no-follow-host: an address of the new prefix"
dhcp4
has "$WORK/lease" "ip=$H4"
has "$WORK/lease" "lease=4294967295"
log "--no-follow-host: no new prefix, DHCP gives $H4 for ever"
stop_pasta
restore
ip netns del "$N"
NAMESPACES=$(echo "$NAMESPACES" | sed "s/ $N//")

# Following (the default)
CONFIG_NET=0 start_pasta --dhcp-dns
guest_up
WAIT_S=20 wait_for slaac 2001:db8:1 || fail "no SLAAC address from the first RA"
dhcp4
for l in "ip=$H4" "subnet=255.255.255.0" "router=$R4" "dns=$R4" "lease=600"; do
	has "$WORK/lease" "$l"
done
dhcp6
for l in "new_ip6_address=$H6" "new_preferred_life=600" "new_max_life=600"; do
	has "$WORK/dh" "$l"
done
log "before: SLAAC $(slaac 2001:db8:1 | awk '{print $4}'), DHCP $H4 via $R4 for 600 s, DHCPv6 $H6 for 600 s"

T0=$(date +%s%3N)
readdress
WAIT_S=6 wait_for slaac 2001:db8:3 ||
	{ cat "$WORK/pasta.log"; ip -n "$N" -6 addr; fail "no address of the new prefix 6 s after the change"; }
log "an address of the new prefix after $(($(date +%s%3N) - T0)) ms: $(slaac 2001:db8:3 | awk '{print $4}')"
# shellcheck disable=SC2317 # called through wait_for
old_deprecated() {
	_o=$(slaac 2001:db8:1)
	echo "$_o" | grep -q " deprecated " &&
	echo "$_o" | grep -q "preferred_lft 0sec" &&
	[ "$(echo "$_o" | sed -n 's/.*valid_lft \([0-9]*\)sec.*/\1/p')" -le 7200 ]
}
wait_for old_deprecated ||
	{ ip -n "$N" -6 addr; fail "the old prefix's address isn't deprecated with valid_lft <= 7200"; }
log "old prefix: $(slaac 2001:db8:1 | sed 's/.*inet6 //')"

dhcp4
for l in "ip=203.0.113.1" "subnet=255.255.255.0" "router=203.0.113.2" \
	 "dns=203.0.113.2" "lease=600"; do
	has "$WORK/lease" "$l"
done
dhcp6
has "$WORK/dh" "new_ip6_address=2001:db8:3::1"
log "after: DHCP 203.0.113.1 via 203.0.113.2 for 600 s, DHCPv6 2001:db8:3::1"
pasta_alive
stop_pasta
pass "a self-configuring guest gets the new prefix at once, DHCP and DHCPv6 the new values"
