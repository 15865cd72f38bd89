#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_guest_probe.sh - A guest that kept its configuration and says
# nothing is reachable through -t as soon as it attaches
#
# As after a restart of passt: the guest (a kernel stack in N, on a
# persistent tap relayed to passt's socket by tap_relay.py) has its address
# and route already, IPv6 off, and sends nothing by itself.  passt asks for
# it when it attaches (an ARP request for its address, RFC 826) and learns
# its MAC from the answer: a 1 MiB upload from R through -t 7400 reaches the
# guest's server whole (sha256).  Before, frames to it went to the broadcast
# address, which Linux TCP drops: the upload timed out.
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
setup_topology
make_target_ns
SOCK=$WORK/passt.sock

in_ns ip link set lo up
in_ns sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
	net.ipv6.conf.default.disable_ipv6=1
in_ns ip tuntap add dev tap0 mode tap || fail "persistent tap"
in_ns ip link set tap0 up
in_ns ip addr add $H4/24 dev tap0
in_ns ip route add default via $R4
bg in_ns $T serve-hash 7400 --bind 0.0.0.0
wait_for in_ns sh -c "ss -ltn | grep -q ':7400 '" || fail "guest server"

start_passt "$SOCK" -t 7400
ip netns exec "$N" python3 -u "$(dirname "$0")/tap_relay.py" "$SOCK" tap0 \
	1500 >"$WORK/relay.log" 2>&1 &
track $!
wait_for grep -q "relay: up" "$WORK/relay.log" ||
	{ cat "$WORK/relay.log" "$WORK/passt.log"; fail "relay did not connect"; }

out=$(timeout 15 ip netns exec "$R" $T uploads $H4 7400 1 1048576) ||
	{ echo "$out"; tail -5 "$WORK/passt.log"; fail "upload into the silent guest"; }
log "upload: $out"
stop_passt
pass "a silent guest is found when it attaches (ARP), -t reaches it"
