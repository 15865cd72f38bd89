#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_ipv6_addrs.sh - with --config-net, pasta returns once the tap's IPv6
# link-local address is usable, and the namespace keeps exactly the IPv6
# address it was given: the first reply of a UDP server to a forwarded
# datagram reaches the remote peer.
#
# Expected values: a link-local address in state "tentative" is not usable
# yet (RFC 4862, 5.4); no router advertisement (none is sent with
# --config-net) and nothing else adds a route via a link-local router
# (RFC 4861 6.3.4) or a second global address next to H's 2001:db8:1::1
# that pasta copied; the echo comes from
# a real UDP server (udptool.py echo).
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
make_target_ns

UDPTOOL="python3 $(dirname "$0")/udptool.py"
bg in_ns $UDPTOOL echo :: 8000 60
ip netns exec "$H" "$PASTA_BIN" --config-net --quiet -u 7000:8000 \
	--pid "$WORK/pasta.pid" --netns "/run/netns/$N" ||
	fail "pasta did not start"
PASTA_PID=$(cat "$WORK/pasta.pid")
track "$PASTA_PID"

# Right after pasta returned
ip -n "$N" -6 -o addr show scope link > "$WORK/ll"
cat "$WORK/ll"
grep -q "inet6 fe80::" "$WORK/ll" || fail "no link-local address"
grep -q tentative "$WORK/ll" && fail "link-local address still tentative"

# The namespace solicits, but with --config-net pasta sends no router
# advertisement: no second default route via a link-local router
sleep 2
ip -n "$N" -6 route show default | grep -q 'via fe80::' &&
	fail "a router advertisement added a default route"
ip -n "$N" -6 -o addr show scope global > "$WORK/g"
cat "$WORK/g"
[ "$(wc -l < "$WORK/g")" = 1 ] || fail "namespace has more than one global IPv6 address"
grep -q "inet6 $H6/64" "$WORK/g" || fail "copied address missing"

# First datagram of a remote peer to the forwarded port: echoed back
in_remote $UDPTOOL send "$H6" 7000 --expect-echo ||
	fail "first IPv6 UDP reply lost"
in_remote $UDPTOOL send "$H4" 7000 --expect-echo ||
	fail "IPv4 UDP reply lost"

kill "$PASTA_PID"
pass "link-local usable at start, one global IPv6 address, first reply delivered"
