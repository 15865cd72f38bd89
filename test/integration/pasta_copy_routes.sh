#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_copy_routes.sh - --config-net copies every global address and the
# routes of the template interface; --no-copy-addrs, --no-copy-routes, -a
# and -g (per family) restrict that to one address and the default route
#
# Expected values are what the test configures on H with iproute2: a second
# address per family (198.51.100.4/24, 2001:db8:1::4/64), routes to
# 203.0.113.0/24 via R (metric 50), to the on-link 203.0.113.128/25 and
# 2001:db8:2::/64, and to 2001:db8:99::/48 via R.  Upstream pasta(1): by
# default all addresses but link-local ones and all routes of the template
# interface are copied; -a implies --no-copy-addrs and -g --no-copy-routes
# for that IP version.  Finally a TCP connection from N, bound to the second
# address, reaches an echo server on R (socat).
# asan: yes
. "$(dirname "$0")/lib.sh"

PORT=10081

setup_topology
ip -n "$H" addr add 198.51.100.4/24 dev h0
ip -n "$H" addr add 2001:db8:1::4/64 dev h0 nodad
ip -n "$H" route add 203.0.113.0/25 via $R4 metric 50
ip -n "$H" route add 203.0.113.128/25 dev h0
ip -n "$H" -6 route add 2001:db8:2::/64 dev h0 metric 10
ip -n "$H" -6 route add 2001:db8:99::/48 via $R6
ip -n "$R" addr add 203.0.113.2/32 dev lo
ip -n "$R" addr add 2001:db8:99::2/128 dev lo

# show: addresses and routes of N, into $WORK/$1.{a,r}
show() {
	ip -n "$N" -o addr show dev h0 scope global > "$WORK/$1.a"
	{ ip -n "$N" -4 route show; ip -n "$N" -6 route show; } > "$WORK/$1.r"
	cat "$WORK/$1.a" "$WORK/$1.r"
}
# count FILE PATTERN - lines of FILE matching PATTERN
count() { grep -c -e "$2" "$1"; }

start_pasta
show all
for a in "inet $H4/24" "inet 198.51.100.4/24" "inet6 $H6/64" \
	 "inet6 2001:db8:1::4/64"; do
	grep -q "$a " "$WORK/all.a" || fail "default: '$a' not copied"
done
for r in "203.0.113.0/25 via $R4 dev h0 .*metric 50" \
	 "203.0.113.128/25 dev h0" "2001:db8:2::/64 dev h0 .*metric 10" \
	 "2001:db8:99::/48 via $R6 dev h0" "default via $R4 dev h0" \
	 "default via $R6 dev h0"; do
	grep -q "$r" "$WORK/all.r" || fail "default: route '$r' not copied"
done
grep -q "$H4/24 .*secondary" "$WORK/all.a" &&
	fail "the first address is not the primary one"

bg in_remote socat TCP4-LISTEN:$PORT,bind=203.0.113.2,fork,reuseaddr PIPE
bg in_remote socat TCP6-LISTEN:$PORT,bind='[2001:db8:99::2]',fork,reuseaddr PIPE
wait_for sh -c "ip netns exec $R ss -Htln | grep -q ':$PORT '" ||
	fail "echo servers on R"
out=$(echo hello4 | in_ns timeout 10 socat -t 5 - \
	TCP4:203.0.113.2:$PORT,bind=198.51.100.4)
[ "$out" = hello4 ] || fail "TCP from 198.51.100.4 to R: got '$out'"
out=$(echo hello6 | in_ns timeout 10 socat -t 5 - \
	TCP6:'[2001:db8:99::2]':$PORT,bind='[2001:db8:1::4]')
[ "$out" = hello6 ] || fail "TCP from 2001:db8:1::4 to R: got '$out'"
stop_pasta
ip netns del "$N"; ip netns add "$N" || fail "ip netns add $N"

start_pasta --no-copy-addrs --no-copy-routes
show none
[ "$(count "$WORK/none.a" 'inet ')" = 1 ] || fail "--no-copy-addrs: IPv4"
[ "$(count "$WORK/none.a" 'inet6 ')" = 1 ] || fail "--no-copy-addrs: IPv6"
grep -q -e "203.0.113" -e "2001:db8:2::" -e "2001:db8:99::" "$WORK/none.r" &&
	fail "--no-copy-routes: routes copied"
grep -q "default via $R4 dev h0" "$WORK/none.r" || fail "IPv4 default route"
grep -q "default via $R6 dev h0" "$WORK/none.r" || fail "IPv6 default route"
stop_pasta
ip netns del "$N"; ip netns add "$N" || fail "ip netns add $N"

# -a and -g for IPv4 only: IPv6 still gets everything
start_pasta -a 198.51.100.4/24 -g $R4
show v4
[ "$(count "$WORK/v4.a" 'inet ')" = 1 ] || fail "-a: more IPv4 addresses"
grep -q "inet 198.51.100.4/24 " "$WORK/v4.a" || fail "-a: not the given one"
[ "$(count "$WORK/v4.a" 'inet6 ')" = 2 ] || fail "-a IPv4: IPv6 addresses"
grep -q "203.0.113" "$WORK/v4.r" && fail "-g: IPv4 routes copied"
grep -q "2001:db8:99::/48 via $R6" "$WORK/v4.r" || fail "-g IPv4: IPv6 routes"
stop_pasta

pass "addresses and routes copied, and not with --no-copy-*, -a, -g"
