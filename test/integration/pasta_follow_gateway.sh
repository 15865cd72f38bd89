#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_follow_gateway.sh - only H's default gateway changes, its address
# stays (passt.1, FOLLOWING THE HOST): 198.51.100.2 -> 198.51.100.4 and
# 2001:db8:1::2 -> 2001:db8:1::4, both addresses of R.
#  - N keeps its addresses and gets the new default routes;
#  - the gateway address N sees keeps meaning the host
#    (--map-host-loopback's default is the gateway): before, a connection
#    from N to 198.51.100.2 reaches a server on H's 127.0.0.1 (it sees
#    the peer 127.0.0.1) and one to 198.51.100.4 reaches R (which sees
#    H's 198.51.100.1); after, the other way round; IPv6 the same with
#    ::1 and 2001:db8:1::1;
#  - a TCP transfer from N to R (198.51.100.3) open across the change
#    carries on: half of 1 MiB before, half after, sha256 of the whole;
#  - one "host changed" line per gateway.
# asan: yes
. "$(dirname "$0")/lib.sh"

PEER="python3 $(dirname "$0")/peertool.py"
PPORT=10140	# serve-peer on R (all addresses) and on H's loopback
DPORT=10141	# data sink on R

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
ip -n "$R" addr add 198.51.100.4/24 dev r0
ip -n "$R" addr add 2001:db8:1::4/64 dev r0 nodad
start_pasta

bg in_remote $PEER serve-peer $PPORT
bg in_host $PEER serve-peer $PPORT --bind 127.0.0.1
bg in_host $PEER serve-peer $PPORT --bind ::1
wait_for sh -c "[ \$(ip netns exec $H ss -Htln | grep -c ':$PPORT ') -eq 2 ] &&
		ip netns exec $R ss -Htln | grep -q ':$PPORT '" ||
	fail "peer servers"

# who ADDR EXPECTED - the server N reaches at ADDR sees it as EXPECTED
who() {
	_p=$(in_ns $PEER peer "$1" $PPORT)
	[ "$_p" = "$2" ] || fail "$1 from N: the server saw '$_p', not $2 ($3)"
}
who $R4 127.0.0.1 "the gateway is H"
who 198.51.100.4 $H4 "another address of R"
who $R6 ::1 "the gateway is H"
who 2001:db8:1::4 $H6 "another address of R"
log "before: the gateway addresses reach H's loopback, .4 and ::4 reach R"

# A transfer open across the change: half before, half after
make_file "$WORK/out" 1
head -c 524288 "$WORK/out" > "$WORK/out1"
tail -c 524288 "$WORK/out" > "$WORK/out2"
bg in_remote socat -u TCP-LISTEN:$DPORT,bind=198.51.100.3,reuseaddr \
	OPEN:"$WORK/in",creat,trunc
wait_for sh -c "ip netns exec $R ss -Htln | grep -q ':$DPORT '" || fail "sink on R"
bg in_ns sh -c "{ cat '$WORK/out1'
		  i=0
		  while [ ! -e '$WORK/go' ] && [ \$i -lt 300 ]; do
			sleep 0.1; i=\$((i + 1))
		  done
		  cat '$WORK/out2'
		} | socat -u STDIN TCP:198.51.100.3:$DPORT"
XFER=$BG_PID
wait_for sh -c "[ \$(stat -c %s '$WORK/in') -eq 524288 ]" ||
	fail "the first half didn't arrive"

ip -n "$H" route replace default via 198.51.100.4
ip -n "$H" -6 route replace default via 2001:db8:1::4
# shellcheck disable=SC2317 # called through wait_for
# gw - N's addresses stay, its default routes are the new ones
gw() {
	ip -n "$N" route show default | grep -q "via 198.51.100.4" &&
	ip -n "$N" -6 route show default | grep -q "via 2001:db8:1::4" &&
	ip -n "$N" -o addr show | grep -q "inet $H4/24" &&
	ip -n "$N" -o addr show | grep -q "inet6 $H6/64"
}
wait_for gw || { cat "$WORK/pasta.log"; ip -n "$N" addr; ip -n "$N" route;
		 ip -n "$N" -6 route; fail "N doesn't have the new gateways"; }
for w in "IPv4 gateway $R4 -> 198.51.100.4" "IPv6 gateway $R6 -> 2001:db8:1::4"; do
	grep -q "host changed: $w" "$WORK/pasta.log" || fail "no info line '$w'"
done
grep "host changed" "$WORK/pasta.log" | grep -q address &&
	fail "an address was said to change: $(grep 'host changed' "$WORK/pasta.log")"
log "N: $(ip -n "$N" route show default), $(ip -n "$N" -6 route show default | head -n 1)"

touch "$WORK/go"
wait $XFER || fail "the transfer open across the change failed"
wait_for sh -c "[ \"\$(sha256sum < '$WORK/in' | cut -d' ' -f1)\" = '$(sum "$WORK/out")' ]" ||
	fail "sha256 of the transfer across the change differs ($(stat -c %s "$WORK/in") bytes)"
log "a TCP transfer open across the change carried on: 1 MiB, sha256 matches"

who 198.51.100.4 127.0.0.1 "the new gateway is H"
who $R4 $H4 "the old gateway is now another address of R"
who 2001:db8:1::4 ::1 "the new gateway is H"
who $R6 $H6 "the old gateway is now another address of R"
log "after: the new gateway addresses reach H's loopback, the old ones R"

pasta_alive
stop_pasta
pass "a gateway-only change: N's routes follow, the gateway still means the host, connections survive"
