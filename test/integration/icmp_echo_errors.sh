#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# icmp_echo_errors.sh - ICMP errors about the namespace's echo requests come
# back to it, from the router that sent them: ping in the namespace must
# print what ping on the host itself prints for the same destination (same
# address, as pasta copies it), "From <router> icmp_seq=1 <error>".
# R (the gateway, 198.51.100.2, 2001:db8:1::2) forwards, and its firewall
# (nftables "reject", which sends what it says) answers for
#   203.0.113.0/26, 2001:db8:90::/48: host-unreachable, no-route
#     -> ICMP 3/1 (RFC 792, Destination Host Unreachable),
#        ICMPv6 1/0 (RFC 4443 3.1, No route)
#   203.0.113.64/26, 2001:db8:92::/48: admin-prohibited
#     -> ICMP 3/13 (RFC 1812 5.2.7.1, Packet filtered),
#        ICMPv6 1/1 (Administratively prohibited)
#   203.0.113.128/26, 2001:db8:91::/48: net-unreachable, addr-unreachable
#     -> ICMP 3/0 (Destination Net Unreachable), ICMPv6 1/3 (Address
#        unreachable)
#   203.0.113.192/27, 2001:db8:93::/64 on R's link to D, pinged with TTL 1
#     -> ICMP 11/0 (Time to live exceeded), ICMPv6 3/0 (Hop limit)
#   a 1400-byte ping with don't-fragment to D (203.0.113.224/27,
#   2001:db8:9::/64) behind a link of MTU 1280
#     -> ICMP 3/4 (RFC 1191, Frag needed, mtu = 1280), ICMPv6 2/0
#        (RFC 4443 3.2, Packet too big, mtu = 1280); the host and the
#        namespace ping different addresses of D, as the first to learn
#        the path MTU would fragment (or refuse) the other's ping
# and H's own route "unreachable" for 192.0.2.0/24 (the host can't send
# at all): the namespace gets host unreachable from its gateway, ICMP 3/1.
# asan: yes
. "$(dirname "$0")/lib.sh"

# D, behind R over a link of MTU 1280
setup_routed 1280 203.0.113.225/27 2001:db8:9::1/64 \
	203.0.113.230/27 203.0.113.231/27 2001:db8:9::9/64 2001:db8:9::10/64
firewall "$R" <<'NFT'
ip daddr 203.0.113.0/26 reject with icmp type host-unreachable
ip daddr 203.0.113.64/26 reject with icmp type admin-prohibited
ip daddr 203.0.113.128/26 reject with icmp type net-unreachable
ip6 daddr 2001:db8:90::/48 reject with icmpv6 type no-route
ip6 daddr 2001:db8:92::/48 reject with icmpv6 type admin-prohibited
ip6 daddr 2001:db8:91::/48 reject with icmpv6 type addr-unreachable
NFT
ip -n "$H" route add unreachable 192.0.2.0/24
ip -n "$R" addr add 203.0.113.193/27 dev r1
ip -n "$R" addr add 2001:db8:93::1/64 dev r1 nodad
# R routes the rest towards D too: the firewall decides after routing
ip -n "$R" route add 203.0.113.0/24 dev r1
ip -n "$R" -6 route add 2001:db8:90::/46 dev r1
start_pasta

# case_ WHAT DST-NS DST-H PING-ARGS... - the error line ping prints in the
# namespace for DST-NS must be the one ping prints on H for DST-H
case_() {
	what=$1; dns=$2; dh=$3; shift 3
	want=$(in_host ping -n -c1 -W3 "$@" "$dh" 2>&1 | grep -m1 '^From ')
	[ -n "$want" ] || { in_host ping -n -c1 -W3 "$@" "$dh"; fail "$what: no error on H itself"; }
	got=$(in_ns ping -n -c1 -W3 "$@" "$dns" 2>&1 | grep -m1 '^From ')
	log "$what: H: '$want', namespace: '$got'"
	[ "$got" = "$want" ] && return 0
	in_ns ping -n -c1 -W3 "$@" "$dns"
	grep -i icmp "$WORK/pasta.log" | tail -n 20
	fail "$what: namespace printed '$got', expected '$want'"
}

case_ "IPv4 host unreachable" 203.0.113.9 203.0.113.9
case_ "IPv4 administratively prohibited" 203.0.113.73 203.0.113.73
case_ "IPv4 net unreachable" 203.0.113.137 203.0.113.137
case_ "IPv4 time exceeded" 203.0.113.200 203.0.113.200 -t 1
case_ "IPv4 fragmentation needed" 203.0.113.230 203.0.113.231 -M "do" -s 1400
case_ "IPv6 no route" 2001:db8:90::9 2001:db8:90::9
case_ "IPv6 administratively prohibited" 2001:db8:92::9 2001:db8:92::9
case_ "IPv6 address unreachable" 2001:db8:91::9 2001:db8:91::9
case_ "IPv6 hop limit exceeded" 2001:db8:93::9 2001:db8:93::9 -t 1
case_ "IPv6 packet too big" 2001:db8:9::9 2001:db8:9::10 -M "do" -s 1400

# The host can't send at all: from the gateway, as for TCP
got=$(in_ns ping -n -c1 -W3 192.0.2.9 2>&1 | grep -m1 '^From ')
log "IPv4, no route on H: namespace: '$got'"
[ "$got" = "From $R4 icmp_seq=1 Destination Host Unreachable" ] ||
	fail "no route on H: namespace printed '$got'"

pasta_alive
stop_pasta
grep -q "relayed to the guest" "$WORK/pasta.log" || fail "not logged"
pass "ICMP errors about echo requests reach ping in the namespace from the router, IPv4 and IPv6"
