#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_follow_host.sh - passt follows the host's network while it runs
# (passt.1, FOLLOWING THE HOST): a guest (passt_client.py, speaking the
# stream itself) gets a DHCP lease with H's address, gateway and the
# mapped name server, for 600 s (RFC 2132 option 51: a guest renews after
# half of it, RFC 2131 4.4.5); H is re-addressed (198.51.100.1/24 ->
# 203.0.113.1/24, default route via a new address of R, 203.0.113.2); the
# next lease has the new address, router and name server.  With
# --no-follow-host the lease is infinite (0xffffffff, RFC 2131 3.3) and the
# old values stay (checked after 2 s: a negative needs some time).
# asan: yes
. "$(dirname "$0")/lib.sh"

CL="python3 $(dirname "$0")/passt_client.py"
setup_topology
SD=$WORK/s
mkdir -m 1777 "$SD"
S=$SD/p.sock

# client CMD ARGS... - run the client in H, output in $WORK/out
client() {
	in_host $CL "$@" >"$WORK/out" 2>&1 ||
		{ cat "$WORK/out"; cat "$WORK/passt.log"; fail "client $1"; }
}
val() { sed -n "s/^$1 //p" "$WORK/out" | head -n 1; }
expect() { # KEY VALUE
	[ "$(val "$1")" = "$2" ] ||
		{ cat "$WORK/out"; fail "$1 is '$(val "$1")', expected '$2'"; }
}
readdress() {
	ip -n "$R" addr add 203.0.113.2/24 dev r0
	ip -n "$H" addr del $H4/24 dev h0
	ip -n "$H" addr add 203.0.113.1/24 dev h0
	ip -n "$H" route replace default via 203.0.113.2
}
restore() {
	ip -n "$H" addr del 203.0.113.1/24 dev h0
	ip -n "$R" addr del 203.0.113.2/24 dev r0
	ip -n "$H" addr add $H4/24 dev h0
	ip -n "$H" route replace default via $R4
}

start_passt "$S" --no-follow-host
client lease "$S"
expect address $H4
expect lease 4294967295
readdress
sleep 2
client lease "$S"
expect address $H4
expect router $R4
grep -q "host changed" "$WORK/passt.log" && fail "--no-follow-host: logged a change"
log "--no-follow-host: infinite lease, start-up values stay"
stop_passt
restore

start_passt "$S"
client lease "$S"
expect address $H4
expect router $R4
expect dns $R4		# resolv.conf names 127.0.0.1: the mapped gateway
expect lease 600
readdress
wait_for grep -q "host changed: IPv4 gateway" "$WORK/passt.log" ||
	{ cat "$WORK/passt.log"; fail "no change seen"; }
client lease "$S"
expect address 203.0.113.1
expect mask 255.255.255.0
expect router 203.0.113.2
expect dns 203.0.113.2
expect lease 600
log "after re-addressing H, the lease has $(val address) via $(val router)"
kill -0 "$PASST_PID" || fail "passt died"
stop_passt
pass "passt follows the host's address, gateway and name server"
