#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_local_mode.sh - an offline host (only lo, no route at all) still
# gets a connected namespace: link-local addresses (169.254.2.1/16 via
# 169.254.2.2, as passt.1 documents for local mode), and the gateway
# address reaches the host's loopback (ping and an HTTP download)
# asan: yes
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to create namespaces"
ip netns add "$H" || fail "ip netns add"
NAMESPACES="$NAMESPACES $H"
ip -n "$H" link set lo up
in_host sysctl -q -w net.ipv4.ping_group_range="0 2147483647"
mkdir -p "/etc/netns/$H"
echo "nameserver 127.0.0.1" > "/etc/netns/$H/resolv.conf"

start_pasta
cat "$WORK/pasta.log"
ip -n "$N" -o -4 addr show | grep -q "inet 169.254.2.1/16" ||
	{ ip -n "$N" addr; fail "no local-mode address"; }
ip -n "$N" -4 route show default | grep -q "via 169.254.2.2" ||
	{ ip -n "$N" route; fail "no local-mode default route"; }
in_ns ping -c2 -i0.2 -W2 169.254.2.2 >/dev/null || fail "ping the gateway"

mkdir -p "$WORK/www"
echo "local mode works" > "$WORK/www/f"
( cd "$WORK/www" && exec ip netns exec "$H" python3 -m http.server 8082 --bind 127.0.0.1 ) \
	>/dev/null 2>&1 &
track $!
wait_for in_host sh -c "ss -ltn | grep -q ':8082 '" || fail "http server"
[ "$(in_ns curl -sf http://169.254.2.2:8082/f)" = "local mode works" ] ||
	fail "HTTP through the gateway address"
stop_pasta
pass "local mode on an offline host"
