#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_follow_vpn.sh - a passt guest's UDP flow whose host-side address the
# host loses is closed, so that its next datagram, same 4-tuple, leaves from
# an address the host has (passt.1, FOLLOWING THE HOST).  A passt guest
# keeps its address all along (its lease is renewed later), so only the
# host side changes:
#  - H has a "VPN", v0 (203.0.113.1/24) to R's v1 (203.0.113.2/24), with
#    a more specific route to R's loopback address 192.0.2.10 than the
#    default route;
#  - the guest (passt_client.py, attached all along) sends 1000 random
#    bytes from port 10171 to 192.0.2.10:10170: R gets them from
#    203.0.113.1;
#  - the VPN's route and address go; once passt derived the host again (its
#    debug line "host: template interface"), the guest sends the same
#    datagram again: R gets it from H's 198.51.100.1, same sha256.  Before,
#    the flow's socket kept 203.0.113.1 and the send failed (EINVAL) until
#    180 s without datagrams.
# asan: yes
. "$(dirname "$0")/lib.sh"

CL="python3 $(dirname "$0")/passt_client.py"
PEER="python3 $(dirname "$0")/peertool.py"
PORT=10170
SPORT=10171

setup_topology
SD=$WORK/s
mkdir -m 1777 "$SD"
S=$SD/p.sock

ip link add v0 netns "$H" type veth peer name v1 netns "$R" || fail "veth v0"
ip -n "$H" link set v0 up
ip -n "$R" link set v1 up
ip -n "$H" addr add 203.0.113.1/24 dev v0
ip -n "$R" addr add 203.0.113.2/24 dev v1
ip -n "$R" addr add 192.0.2.10/32 dev lo
ip -n "$H" route add 192.0.2.0/24 via 203.0.113.2 dev v0 ||
	fail "route through the VPN"

head -c 1000 /dev/urandom > "$WORK/dgram"
SUM=$(sum "$WORK/dgram")
bg in_remote $PEER udp-log $PORT --bind 192.0.2.10 > "$WORK/r4"
wait_for sh -c "ip netns exec $R ss -Huln | grep -q '192.0.2.10:$PORT '" ||
	fail "UDP receiver on R"

start_passt "$S"
bg in_host $CL udp-twice "$S" 192.0.2.10 $PORT $SPORT "$WORK/dgram" \
	"$WORK/go" > "$WORK/client" 2>&1
CLIENT=$BG_PID
# shellcheck disable=SC2317 # called through wait_for
# got PEER - R got our 1000 bytes from PEER
got() { grep -q "^$1 1000 $SUM\$" "$WORK/r4"; }
wait_for got 203.0.113.1 ||
	{ cat "$WORK/client" "$WORK/r4"; fail "no datagram through the VPN"; }
log "the guest's datagram went through the VPN: from 203.0.113.1"

# derivations - how many times the daemon derived the host's picture (its
# debug line): the start's own changes (DAD of H's link-local addresses,
# say) settle first, so that the next one is the VPN going
derivations() { grep -c 'host: template interface' "$WORK/passt.log"; }
_i=0
while [ $_i -lt 10 ]; do
	_n=$(derivations); sleep 1
	[ "$(derivations)" = "$_n" ] && break
	_i=$((_i + 1))
done
derived=$(derivations)
ip -n "$H" route del 192.0.2.0/24
ip -n "$H" addr del 203.0.113.1/24 dev v0
wait_for sh -c "[ \$(grep -c 'host: template interface' '$WORK/passt.log') -gt $derived ]" ||
	{ cat "$WORK/passt.log"; fail "passt didn't see the VPN go"; }
sleep 0.5	# a second derivation, if the changes were seen in two parts
touch "$WORK/go"
wait $CLIENT || { cat "$WORK/client"; fail "client"; }
wait_for got $H4 ||
	{ cat "$WORK/r4"; fail "the next datagram of the same 4-tuple didn't arrive from $H4"; }
log "the next datagram, same 4-tuple: from $H4, sha256 matches"
passt_alive
stop_passt
pass "a passt guest's UDP flow from a lost host address is closed; the next datagram uses the address left"
