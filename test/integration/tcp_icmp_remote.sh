#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_icmp_remote.sh - a connection from the namespace that a router beyond
# the host refuses with an ICMP error must fail in the namespace, at once,
# with the errno connect() gives on the host itself for the same error
# (the kernel's icmp_err_convert[] and icmpv6_err_convert(), applied to
# the SYN: RFC 1122 4.2.3.9, RFC 5461), and the error it gets must be the
# one the host gets: same type and code, from the same router (a raw
# socket sees it: peertool.py connect-icmp).  R forwards to a second
# router R2 (192.0.2.2, 2001:db8:2::2: not the namespace's gateway), and
# R2's firewall (nftables "reject") answers SYNs to
#   203.0.113.0/28    net-unreachable    ICMP 3/0  -> ENETUNREACH
#   203.0.113.16/28   host-unreachable   ICMP 3/1  -> EHOSTUNREACH
#   203.0.113.32/28   prot-unreachable   ICMP 3/2  -> ENOPROTOOPT
#   203.0.113.48/28   port-unreachable   ICMP 3/3  -> ECONNREFUSED
#   203.0.113.64/28   net-prohibited     ICMP 3/9  -> ENETUNREACH
#   203.0.113.80/28   host-prohibited    ICMP 3/10 -> EHOSTUNREACH
#   203.0.113.96/28   admin-prohibited   ICMP 3/13 -> EHOSTUNREACH
#   2001:db8:90::/48  no-route           ICMPv6 1/0 -> ENETUNREACH
#   2001:db8:91::/48  admin-prohibited   ICMPv6 1/1 -> EACCES
#   2001:db8:92::/48  addr-unreachable   ICMPv6 1/3 -> EHOSTUNREACH
#   2001:db8:93::/48  port-unreachable   ICMPv6 1/4 -> ECONNREFUSED
# The errno on H is checked against that list too, so a kernel that
# converts differently fails loudly.  Without the error, the namespace's
# connect() would time out (8 s here: "timeout").
# asan: yes
. "$(dirname "$0")/lib.sh"
PEER="python3 $(dirname "$0")/peertool.py"

# D is R2: 192.0.2.2, 2001:db8:2::2 on its link to R
setup_routed 1500 192.0.2.1/24 2001:db8:2::1/64 192.0.2.2/24 2001:db8:2::2/64
router "$D"
ip -n "$R" route add 203.0.113.0/24 via 192.0.2.2
ip -n "$R" -6 route add 2001:db8:90::/44 via 2001:db8:2::2
# R2 routes the destinations onwards (to a link of its own, r1 to x0), so
# that the firewall decides
ip link add r1 netns "$D" type veth peer name x0 netns "$D" || fail "veth"
ip -n "$D" link set r1 up
ip -n "$D" link set x0 up
reject_codes "$D"
start_pasta

# check WHAT DST ERRNO - connect() to DST port 80 gives ERRNO on H and in
# the namespace, with the same ICMP error from the same router
check() {
	h=$(in_host $PEER connect-icmp "$2" 80)
	case "$h" in "$3 "*" 192.0.2.2"|"$3 "*" 2001:db8:2::2") ;;
	*) fail "$1: the host itself got '$h', expected $3 and an error from R2" ;;
	esac
	got=$(in_ns $PEER connect-icmp "$2" 80)
	log "$1: host '$h', namespace '$got'"
	[ "$got" = "$h" ] && return 0
	grep -i -e tcp -e icmp "$WORK/pasta.log" | tail -n 20
	fail "$1: connect to $2 gave '$got' in the namespace, expected '$h'"
}

check "IPv4 net unreachable" 203.0.113.9 ENETUNREACH
check "IPv4 host unreachable" 203.0.113.25 EHOSTUNREACH
check "IPv4 protocol unreachable" 203.0.113.41 ENOPROTOOPT
check "IPv4 port unreachable" 203.0.113.57 ECONNREFUSED
check "IPv4 net prohibited" 203.0.113.73 ENETUNREACH
check "IPv4 host prohibited" 203.0.113.89 EHOSTUNREACH
check "IPv4 administratively prohibited" 203.0.113.105 EHOSTUNREACH
check "IPv6 no route" 2001:db8:90::9 ENETUNREACH
check "IPv6 administratively prohibited" 2001:db8:91::9 EACCES
check "IPv6 address unreachable" 2001:db8:92::9 EHOSTUNREACH
check "IPv6 port unreachable" 2001:db8:93::9 ECONNREFUSED

pasta_alive
stop_pasta
pass "ICMP errors from a router beyond the host reach the namespace as they reach the host, and fail its connect() with the host's errno"
