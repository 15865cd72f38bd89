#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_follow_vpn.sh - UDP and ICMP echo flows of a pasta guest whose
# host-side address the host loses are closed, so that the guest's next
# datagram or echo request, with the same 4-tuple, leaves from an address
# the host has (passt.1, FOLLOWING THE HOST):
#  - a "VPN" appears on H while pasta runs: a second veth, v0 in H
#    (203.0.113.1/24, 2001:db8:3::1/64) to v1 in R (203.0.113.2/24,
#    2001:db8:3::2/64), with more specific routes than the default one to
#    R's loopback addresses 192.0.2.10 and 2001:db8:4::10;
#  - from N, one UDP datagram of each family (1000 random bytes) from a
#    fixed port to those addresses reaches R from the VPN's address
#    (the kernel picked it for the flow's socket), and "ping" of each
#    family gets replies;
#  - the VPN's addresses and routes go: the next datagram of the same
#    4-tuple reaches R from H's address on h0 (198.51.100.1,
#    2001:db8:1::1) with the same sha256, and the pings, which kept one
#    echo identifier all along, get replies again, their requests now from
#    198.51.100.1.  Before this, the flows kept a socket bound to an
#    address the host no longer had: every later send failed (IPv4:
#    EINVAL) until --udp-timeout (180 s) of silence, which a running ping
#    never leaves.
#  - a TCP connection open through the VPN then is reset (socat in N
#    exits), one through h0 (to 198.51.100.3) is untouched;
#  - the VPN comes back as the preferred default route (metric 50, h0's
#    is 100), as NetworkManager sets up VPNs: N gets its address and
#    default routes (203.0.113.1/24 via 203.0.113.2, 2001:db8:3::1/64 via
#    2001:db8:3::2), a TCP peer on R sees N's connections come from
#    203.0.113.1, 1 MiB goes through (sha256);
#  - the VPN's link is deleted: N is back on h0's address and routes, a
#    connection open through the VPN is reset, and a new one comes from
#    198.51.100.1 with 1 MiB (sha256).
# The moment pasta acted on the change is taken from its debug log (the
# "host: template interface" line each derivation writes); what is
# asserted is the data that reaches R.
# asan: yes
. "$(dirname "$0")/lib.sh"

PEER="python3 $(dirname "$0")/peertool.py"
PORT=10130
SPORT=10131
LPORT=10132	# long connections (socat, "sleep 60")
PPORT=10133	# serve-peer: who is calling
DPORT=10134	# data sink

setup_topology
# h0's default routes come second to a VPN's default routes (metric 50)
ip -n "$H" route del default
ip -n "$H" route add default via $R4 metric 100
ip -n "$H" -6 route del default
ip -n "$H" -6 route add default via $R6 metric 100
ip -n "$R" addr add 198.51.100.3/24 dev r0	# a peer (.2 is the gateway)
start_pasta

# The VPN, up after pasta: the kernel's routing, nothing of ours, sends
# new flows through it
ip link add v0 netns "$H" type veth peer name v1 netns "$R" || fail "veth v0"
ip -n "$H" link set v0 up
ip -n "$R" link set v1 up
ip -n "$H" addr add 203.0.113.1/24 dev v0
ip -n "$R" addr add 203.0.113.2/24 dev v1
ip -n "$H" addr add 2001:db8:3::1/64 dev v0 nodad
ip -n "$R" addr add 2001:db8:3::2/64 dev v1 nodad
ip -n "$R" addr add 192.0.2.10/32 dev lo
ip -n "$R" addr add 2001:db8:4::10/128 dev lo
wait_for sh -c "ip -n $H -6 route show table local | grep -q 'ff00::/8 dev v0' &&
		ip -n $R -6 route show table local | grep -q 'ff00::/8 dev v1'" ||
	fail "IPv6 not up on the VPN veth"
ip -n "$H" route add 192.0.2.0/24 via 203.0.113.2 dev v0 ||
	fail "route through the VPN"
ip -n "$H" -6 route add 2001:db8:4::/64 via 2001:db8:3::2 dev v0 ||
	fail "IPv6 route through the VPN"

head -c 1000 /dev/urandom > "$WORK/dgram"
SUM=$(sum "$WORK/dgram")
bg in_remote $PEER udp-log $PORT --bind 192.0.2.10 > "$WORK/r4"
bg in_remote $PEER udp-log $PORT --bind 2001:db8:4::10 > "$WORK/r6"
wait_for sh -c "ip netns exec $R ss -Huln | grep -q '192.0.2.10:$PORT ' &&
		ip netns exec $R ss -Huln | grep -q '2001:db8:4::10\]:$PORT '" ||
	fail "UDP receivers on R"

# shellcheck disable=SC2317 # called through wait_for
# got FILE PEER - FILE has a datagram from PEER of our 1000 bytes
got() { grep -q "^$2 1000 $SUM\$" "$1"; }

# Through the VPN: datagrams from its address
in_ns $PEER udp-send 192.0.2.10 $PORT $SPORT "$WORK/dgram"
in_ns $PEER udp-send 2001:db8:4::10 $PORT $SPORT "$WORK/dgram"
wait_for got "$WORK/r4" 203.0.113.1 ||
	{ cat "$WORK/r4"; fail "no IPv4 datagram through the VPN"; }
wait_for got "$WORK/r6" 2001:db8:3::1 ||
	{ cat "$WORK/r6"; fail "no IPv6 datagram through the VPN"; }
log "UDP through the VPN: from 203.0.113.1 and 2001:db8:3::1, sha256 matches"

bg in_remote socat TCP-LISTEN:$LPORT,reuseaddr,fork SYSTEM:"sleep 60"
bg in_remote $PEER serve-peer $PPORT
wait_for sh -c "ip netns exec $R ss -Htln | grep -q ':$LPORT ' &&
		ip netns exec $R ss -Htln | grep -q ':$PPORT '" ||
	fail "TCP listeners on R"
# conn DST - a connection from N to DST:LPORT, open until reset; sets CONN
conn() {
	bg in_ns socat SYSTEM:"sleep 60" TCP:"$1":$LPORT
	CONN=$BG_PID
	wait_for sh -c "ip netns exec $R ss -Htn state established '( sport = :$LPORT )' | grep -q '$1'" ||
		fail "connection from N to $1"
}
# gone PID - PID exited (or is a zombie)
gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' "/proc/$1/status"; }
conn 192.0.2.10; VPN_CONN=$CONN
conn 198.51.100.3; H0_CONN=$CONN

bg in_ns ping -n -i 0.2 -w 60 192.0.2.10 > "$WORK/ping4"
PING4=$BG_PID
bg in_ns ping -6 -n -i 0.2 -w 60 2001:db8:4::10 > "$WORK/ping6"
PING6=$BG_PID
# replies FILE - number of echo replies in ping's output FILE
replies() { grep -c 'bytes from' "$1"; }
wait_for sh -c "[ \$(grep -c 'bytes from' '$WORK/ping4') -ge 2 ] &&
		[ \$(grep -c 'bytes from' '$WORK/ping6') -ge 2 ]" ||
	{ cat "$WORK/ping4" "$WORK/ping6"; fail "no echo replies through the VPN"; }

# The VPN goes: its routes and addresses, in one batch
# derivations - how many times the daemon derived the host's picture (its
# debug line): the start's own changes (DAD of H's link-local addresses,
# say) settle first, so that the next one is the VPN going
derivations() { grep -c 'host: template interface' "$WORK/pasta.log"; }
_i=0
while [ $_i -lt 10 ]; do
	_n=$(derivations); sleep 1
	[ "$(derivations)" = "$_n" ] && break
	_i=$((_i + 1))
done
derived=$(derivations)
ip -n "$H" -batch - <<EOF || fail "VPN down"
route del 192.0.2.0/24
route del 2001:db8:4::/64
addr del 203.0.113.1/24 dev v0
addr del 2001:db8:3::1/64 dev v0
EOF
wait_for sh -c "[ \$(grep -c 'host: template interface' '$WORK/pasta.log') -gt $derived ]" ||
	{ cat "$WORK/pasta.log"; fail "pasta didn't see the VPN go"; }
sleep 0.5	# a second derivation, if the batch was seen in two parts
pasta_alive

# The next datagram of each flow: from H's address on h0
in_ns $PEER udp-send 192.0.2.10 $PORT $SPORT "$WORK/dgram"
in_ns $PEER udp-send 2001:db8:4::10 $PORT $SPORT "$WORK/dgram"
wait_for got "$WORK/r4" $H4 ||
	{ cat "$WORK/r4"; fail "the IPv4 datagram after the VPN went didn't arrive from $H4"; }
wait_for got "$WORK/r6" $H6 ||
	{ cat "$WORK/r6"; fail "the IPv6 datagram after the VPN went didn't arrive from $H6"; }
log "UDP after the VPN went: the same 4-tuples arrive from $H4 and $H6, sha256 matches"

# The pings, same identifiers: replies again, requests from H's address
n4=$(replies "$WORK/ping4"); n6=$(replies "$WORK/ping6")
WAIT_S=10 wait_for sh -c "[ \$(grep -c 'bytes from' '$WORK/ping4') -ge $((n4 + 3)) ] &&
			 [ \$(grep -c 'bytes from' '$WORK/ping6') -ge $((n6 + 3)) ]" ||
	{ tail -n 5 "$WORK/ping4" "$WORK/ping6"; fail "the pings got no more replies after the VPN went"; }
src=$(in_remote $PEER icmp-src 4)
[ "$src" = "$H4" ] || fail "echo requests after the VPN went come from '$src', not $H4"
log "ping after the VPN went: replies again, requests from $src"
kill $PING4 $PING6 2>/dev/null

wait_for gone $VPN_CONN || fail "the TCP connection through the VPN wasn't reset"
gone $H0_CONN && fail "the TCP connection through h0 ended"
ip netns exec "$R" ss -Htn state established "( sport = :$LPORT )" |
	grep -q 198.51.100.3 || fail "the TCP connection through h0 is gone on R"
log "TCP: the connection through the VPN was reset, the one through h0 is open"
kill $H0_CONN 2>/dev/null

# tcp_check SRC - from N, R's peer sees SRC, and 1 MiB to R's sink arrives
tcp_check() {
	_p=$(in_ns $PEER peer 192.0.2.10 $PPORT)
	[ "$_p" = "$1" ] || fail "R sees N's connection from '$_p', not $1"
	rm -f "$WORK/in"
	bg in_remote socat -u TCP-LISTEN:$DPORT,bind=192.0.2.10,reuseaddr \
		OPEN:"$WORK/in",creat,trunc
	wait_for sh -c "ip netns exec $R ss -Htln | grep -q ':$DPORT '" ||
		fail "sink on R"
	in_ns timeout 20 socat -u OPEN:"$WORK/out" TCP:192.0.2.10:$DPORT ||
		fail "TCP from N to R (from $1)"
	wait_for sh -c "[ \"\$(sha256sum < '$WORK/in' | cut -d' ' -f1)\" = '$(sum "$WORK/out")' ]" ||
		fail "sha256 of what R got from N (from $1) differs"
	log "TCP from N: R sees $1, 1 MiB, sha256 matches"
}
make_file "$WORK/out" 1

# shellcheck disable=SC2317 # called through wait_for
# mirrors ADDR4 GW4 ADDR6 GW6 OLD4 - N has the addresses and default routes
mirrors() {
	ip -n "$N" -o addr show | grep -q "inet $1/24" &&
	ip -n "$N" route show default | grep -q "via $2" &&
	ip -n "$N" -o addr show | grep -q "inet6 $3/64" &&
	ip -n "$N" -6 route show default | grep -q "via $4" &&
	! ip -n "$N" -o addr show | grep -q "inet $5/"
}

# The VPN again, now the preferred default route
ip -n "$H" addr add 203.0.113.1/24 dev v0
ip -n "$H" addr add 2001:db8:3::1/64 dev v0 nodad
ip -n "$H" route add default via 203.0.113.2 dev v0 metric 50 ||
	fail "default route through the VPN"
ip -n "$H" -6 route add default via 2001:db8:3::2 dev v0 metric 50 ||
	fail "IPv6 default route through the VPN"
wait_for mirrors 203.0.113.1 203.0.113.2 2001:db8:3::1 2001:db8:3::2 $H4 ||
	{ ip -n "$N" addr; ip -n "$N" route; ip -n "$N" -6 route;
	  fail "N doesn't mirror the VPN's address and default routes"; }
log "VPN as default route: N has $(ip -n "$N" -o -4 addr show scope global | awk '{print $4}'), $(ip -n "$N" route show default)"
tcp_check 203.0.113.1
conn 192.0.2.10; VPN_CONN=$CONN

# The VPN's link goes
ip -n "$H" link del v0 || fail "VPN link del"
wait_for mirrors $H4 $R4 $H6 $R6 203.0.113.1 ||
	{ ip -n "$N" addr; ip -n "$N" route; ip -n "$N" -6 route;
	  fail "N isn't back on h0's address and default routes"; }
wait_for gone $VPN_CONN || fail "the TCP connection through the VPN wasn't reset (link deleted)"
log "VPN link deleted: N back on h0, the connection through the VPN reset"
tcp_check $H4

pasta_alive
stop_pasta
pass "traffic follows a VPN that comes and goes; TCP, UDP and ICMP echo flows of its lost address end, the next ones use the address left"
