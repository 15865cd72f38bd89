#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_config_net.sh - pasta copies H's addresses, routes and sets the MTU
#
# Expected values come from what the test configured on H (198.51.100.1/24
# via 198.51.100.2, 2001:db8:1::1/64 via 2001:db8:1::2) and pasta's
# documented default MTU (65520).
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
start_pasta

ip -n "$N" -o -4 addr show > "$WORK/a4"
ip -n "$N" -o -6 addr show scope global > "$WORK/a6"
ip -n "$N" -4 route show default > "$WORK/r4"
ip -n "$N" -6 route show default > "$WORK/r6"
cat "$WORK/a4" "$WORK/a6" "$WORK/r4" "$WORK/r6"

grep -q "inet $H4/24 .* h0" "$WORK/a4" || fail "IPv4 address not copied"
grep -q "inet6 $H6/64" "$WORK/a6" || fail "IPv6 address not copied"
grep -q "default via $R4 dev h0" "$WORK/r4" || fail "IPv4 default route"
grep -q "default via $R6 dev h0" "$WORK/r6" || fail "IPv6 default route"
mtu=$(cat /sys/class/net/lo/mtu >/dev/null; ip -n "$N" -o link show h0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
[ "$mtu" = 65520 ] || fail "MTU is '$mtu', expected 65520"
ip -n "$N" -o link show lo | grep -q "UP" || fail "lo is not up"

stop_pasta
pass "addresses, routes and MTU copied"
