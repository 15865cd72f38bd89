#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# splice_lo_private.sh - a service bound to the namespace's loopback only
# stays private: with -t 8080 -u 8081, TCP and UDP servers in N bound to
# 127.0.0.1 and ::1 are not reached from H's loopback (IPv4 and IPv6);
# servers on a wildcard address are, and see the namespace's own address
# (198.51.100.1, 2001:db8:1::1) as the client, over N's lo.  With
# --host-lo-to-ns-lo the loopback-only servers are reached, from loopback.
# rootlesskit probes the option with "pasta --host-lo-to-ns-lo --version".
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"
export UDPTOOL_TIMEOUT=1

"$PASTA_BIN" --host-lo-to-ns-lo --version >/dev/null ||
	fail "pasta --host-lo-to-ns-lo --version"

setup_topology
make_target_ns
ip -n "$N" link set lo up
# Loopback-only servers on 8080 (TCP) and 8081 (UDP), wildcard ones on
# 8082 and 8083; TCP ones say who connected
bg in_ns socat TCP4-LISTEN:8080,bind=127.0.0.1,reuseaddr,fork 'SYSTEM:echo lo4 $SOCAT_PEERADDR'
bg in_ns socat TCP6-LISTEN:8080,bind='[::1]',ipv6only=1,reuseaddr,fork 'SYSTEM:echo lo6 $SOCAT_PEERADDR'
bg in_ns socat TCP6-LISTEN:8082,ipv6only=0,reuseaddr,fork 'SYSTEM:echo any $SOCAT_PEERADDR'
bg in_ns $UDPTOOL echo 127.0.0.1 8081 120
bg in_ns $UDPTOOL echo ::1 8081 120
bg in_ns $UDPTOOL echo :: 8083 120
for p in 8080 8082; do
	wait_for in_ns sh -c "ss -Hltn | grep -q ':$p '" || fail "server on $p"
done
for p in 8081 8083; do
	wait_for in_ns sh -c "ss -Hlun | grep -q ':$p '" || fail "server on $p"
done

ask() { in_host timeout 10 socat -T 3 - TCP:$1:$2 < /dev/null 2>/dev/null; }

start_pasta -t 8080,8082 -u 8081,8083
for lo in 127.0.0.1 '[::1]'; do
	r=$(ask $lo 8080)
	[ -z "$r" ] || fail "$lo:8080 reached a loopback-only server in N: $r"
	r=$(ask $lo 8082)
	case "$r" in
	"any [0000:0000:0000:0000:0000:ffff:c633:6401]")
		[ $lo = 127.0.0.1 ] || fail "$lo:8082: $r" ;;
	"any [2001:0db8:0001:0000:0000:0000:0000:0001]")
		[ $lo = '[::1]' ] || fail "$lo:8082: $r" ;;
	*) fail "$lo:8082 -> '$r', expected N's own address as the peer" ;;
	esac
	log "$lo:8082 -> $r"
done
for lo in 127.0.0.1 ::1; do
	in_host $UDPTOOL send $lo 8081 --expect-echo 2>/dev/null &&
		fail "UDP $lo:8081 reached a loopback-only server in N"
	in_host $UDPTOOL send $lo 8083 --expect-echo ||
		fail "UDP $lo:8083: no echo from the wildcard server"
done
pasta_alive
stop_pasta

start_pasta -t 8080,8082 -u 8081,8083 --host-lo-to-ns-lo
r=$(ask 127.0.0.1 8080)
[ "$r" = "lo4 127.0.0.1" ] || fail "--host-lo-to-ns-lo: 127.0.0.1:8080 -> '$r'"
r=$(ask '[::1]' 8080)
[ "$r" = "lo6 [0000:0000:0000:0000:0000:0000:0000:0001]" ] ||
	fail "--host-lo-to-ns-lo: [::1]:8080 -> '$r'"
for lo in 127.0.0.1 ::1; do
	in_host $UDPTOOL send $lo 8081 --expect-echo ||
		fail "--host-lo-to-ns-lo: UDP $lo:8081: no echo"
done
pasta_alive
stop_pasta
pass "loopback-only services in N are private unless --host-lo-to-ns-lo"
