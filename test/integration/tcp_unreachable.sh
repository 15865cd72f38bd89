#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_unreachable.sh - a connection from the namespace that the host can't
# make must fail in the namespace as it would without pasta in between: the
# host's connect() error becomes the ICMP/ICMPv6 destination unreachable a
# router would send (RFC 792, RFC 4443 3.1), and the namespace's own kernel
# turns it into the errno we check (its icmp_err_convert[] and
# icmpv6_err_convert()):
#   host route "unreachable" -> EHOSTUNREACH -> ICMP 3/1, ICMPv6 1/3
#                             -> EHOSTUNREACH in the namespace
#   host route "throw"       -> ENETUNREACH  -> ICMP 3/0, ICMPv6 1/0
#                             -> ENETUNREACH
#   host route "prohibit"    -> EACCES       -> ICMP 3/13 -> EHOSTUNREACH,
#                                               ICMPv6 1/1 -> EACCES
#   on-link address without a neighbour (connect() fails later, ~3 s)
#                             -> EHOSTUNREACH
# A closed port on R still gives ECONNREFUSED (RST).
# asan: yes
. "$(dirname "$0")/lib.sh"
PEER="python3 $(dirname "$0")/peertool.py"

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
ip -n "$R" addr add 2001:db8:1::3/64 dev r0 nodad
ip -n "$H" route add unreachable 203.0.113.0/26
ip -n "$H" route add throw 203.0.113.64/26
ip -n "$H" route add prohibit 203.0.113.128/26
ip -n "$H" -6 route add unreachable 2001:db8:90::/48
ip -n "$H" -6 route add throw 2001:db8:91::/48
ip -n "$H" -6 route add prohibit 2001:db8:92::/48
start_pasta

# check DST PORT EXPECTED WHAT
check() {
	got=$(in_ns $PEER connect-errno "$1" "$2")
	[ "$got" = "$3" ] && return 0
	cat "$WORK/pasta.log"
	fail "$4: connect to $1 port $2 gave $got, expected $3"
}

# What the host itself gets, so a different kernel fails loudly here
[ "$(in_host $PEER connect-errno 203.0.113.9 80)" = EHOSTUNREACH ] ||
	fail "host: unreachable route doesn't give EHOSTUNREACH"
[ "$(in_host $PEER connect-errno 203.0.113.73 80)" = ENETUNREACH ] ||
	fail "host: throw route doesn't give ENETUNREACH"
[ "$(in_host $PEER connect-errno 203.0.113.137 80)" = EACCES ] ||
	fail "host: prohibit route doesn't give EACCES"

check 203.0.113.9 80 EHOSTUNREACH "IPv4 host unreachable"
check 203.0.113.73 80 ENETUNREACH "IPv4 net unreachable"
check 203.0.113.137 80 EHOSTUNREACH "IPv4 administratively prohibited"
check 2001:db8:90::9 80 EHOSTUNREACH "IPv6 address unreachable"
check 2001:db8:91::9 80 ENETUNREACH "IPv6 no route"
check 2001:db8:92::9 80 EACCES "IPv6 administratively prohibited"
check 198.51.100.77 80 EHOSTUNREACH "IPv4 on-link, no neighbour"
check 198.51.100.3 9 ECONNREFUSED "IPv4 closed port"
check 2001:db8:1::3 9 ECONNREFUSED "IPv6 closed port"

pasta_alive
stop_pasta
pass "unreachable destinations fail in the namespace with the host's errno"
