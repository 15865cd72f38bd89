#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_icmp_codes.sh - every destination unreachable code a router beyond
# the host sends about the namespace's UDP datagram reaches the
# namespace's socket (IP_RECVERR, IPV6_RECVERR: ip(7), ipv6(7)) as the same
# error, from the same router, with the same errno, as a socket on the host
# itself gets for the same datagram: R forwards, and its firewall (nftables
# "reject") answers datagrams to
#   203.0.113.0/28 .. 203.0.113.96/28: net-, host-, prot-, port-unreachable,
#     net-, host-, admin-prohibited (ICMP 3/0, 1, 2, 3, 9, 10, 13: RFC 792,
#     RFC 1122 3.2.2.1, RFC 1812 5.2.7.1)
#   2001:db8:90::/48 .. 2001:db8:93::/48: no-route, admin-prohibited,
#     addr-unreachable, port-unreachable (ICMPv6 1/0, 1, 3, 4: RFC 4443 3.1)
# Each line printed is "type code errno from"; the namespace's must equal
# the host's.  H's own route "unreachable" for 192.0.2.0/24 (the host's
# connect() fails with EHOSTUNREACH, nothing is sent): the namespace gets
# host unreachable (ICMP 3/1, ICMPv6 1/3 for 2001:db8:99::/48) from its
# gateway, and its socket EHOSTUNREACH, the host's errno.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_routed
reject_codes "$R"
ip -n "$H" route add unreachable 192.0.2.0/24
ip -n "$H" -6 route add unreachable 2001:db8:99::/48
start_pasta


for dst in 203.0.113.9 203.0.113.25 203.0.113.41 203.0.113.57 203.0.113.73 \
	   203.0.113.89 203.0.113.105 2001:db8:90::9 2001:db8:91::9 \
	   2001:db8:92::9 2001:db8:93::9; do
	want=$(in_host $UDPTOOL recverr $dst 4000)
	got=$(in_ns $UDPTOOL recverr $dst 4000)
	log "$dst: host '$want', namespace '$got'"
	[ "$want" != none ] || fail "$dst: no error on the host itself"
	[ "$got" = "$want" ] && continue
	grep -i -e udp -e icmp "$WORK/pasta.log" | tail -n 20
	fail "$dst: namespace got '$got', expected '$want'"
done

for dst in 192.0.2.9 2001:db8:99::9; do
	case $dst in
	*:*) want="1 3 EHOSTUNREACH $R6" ;;
	*) want="3 1 EHOSTUNREACH $R4" ;;
	esac
	got=$(in_ns $UDPTOOL recverr $dst 4000)
	log "$dst, no route on H: namespace '$got'"
	[ "$got" = "$want" ] || fail "$dst, no route on H: '$got', expected '$want'"
done

pasta_alive
stop_pasta
pass "destination unreachable codes from a router reach the namespace's UDP socket as on the host"
