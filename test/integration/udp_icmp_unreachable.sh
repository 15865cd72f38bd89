#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_icmp_unreachable.sh - a datagram from the namespace to a port where
# nothing listens: the far end answers ICMP port unreachable, pasta's
# connected socket reports ECONNREFUSED, and the namespace must get an
# ICMP/ICMPv6 destination unreachable that makes its own connected socket
# fail with ECONNREFUSED (udp(7)).  To R (.3, ::3) and to the gateway
# address (H's loopback), IPv4 and IPv6.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
ip -n "$R" addr add 2001:db8:1::3/64 dev r0 nodad
start_pasta

in_ns $UDPTOOL refused 198.51.100.3 9999 || fail "IPv4 to R"
in_ns $UDPTOOL refused 2001:db8:1::3 9999 || fail "IPv6 to R"
in_ns $UDPTOOL refused $R4 9998 || fail "IPv4 to the host's loopback"
in_ns $UDPTOOL refused $R6 9998 || fail "IPv6 to the host's loopback"
pasta_alive
stop_pasta
pass "ICMP port unreachable reaches the namespace as ECONNREFUSED"
