#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_kernel_guest.sh - passt mode under load, with a real kernel TCP/IP
# stack as the guest: a tap device in namespace N relayed to passt's UNIX
# socket with the stream framing (tap_relay.py, as QEMU's -netdev stream).
# N_FLOWS (default 200) concurrent 1 MiB uploads from the remote peer into
# the guest through -t, to a server whose listen backlog is 5 (its accept
# queue overflows: SYN cookies, dropped handshake ACKs), and N_FLOWS
# concurrent 1 MiB downloads by the guest from the host's loopback through
# the gateway address, and N_FLOWS concurrent 1 MiB uploads by the guest to
# a server on the host's loopback.  Every stream is checked (size and
# sha256).
#
# That last server's backlog holds every flow: when a host listener's
# accept queue overflows, its SYN cookies are checked against whichever
# segment of the connection comes next (net/ipv4/syncookies.c,
# __cookie_v4_check() takes SEG.SEQ - 1 as the client's ISN), so a data
# segment that overtakes a dropped one fails the check and the host's
# kernel resets the connection (TcpExtSyncookiesFailed, about 1 in 3 runs
# on a loaded machine): a reset of the kernel's making, whatever the client.
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
RELAY="python3 -u $(dirname "$0")/tap_relay.py"
N_FLOWS=${N_FLOWS:-200}
setup_topology
make_target_ns
SOCK=$WORK/passt.sock

start_passt "$SOCK" -t 6300
in_ns ip link set lo up
ip netns exec "$N" $RELAY "$SOCK" tap0 >"$WORK/relay.log" 2>&1 &
RELAY_PID=$!; track $RELAY_PID
wait_for grep -q "relay: up" "$WORK/relay.log" ||
	{ cat "$WORK/relay.log" "$WORK/passt.log"; fail "relay did not connect"; }
# The guest takes the host's address and gateway, as from passt's DHCP
in_ns ip addr add $H4/24 dev tap0
in_ns ip route add default via $R4
wait_for grep -q "client connected" "$WORK/passt.log" || fail "no client"

bg in_ns $T serve-hash 6300 --bind 0.0.0.0 --backlog 5
wait_for in_ns sh -c "ss -ltn | grep -q ':6300 '" || fail "guest server"
bg in_host $T serve-pattern 8081 --bind 127.0.0.1
bg in_host $T serve-hash 8082 --bind 127.0.0.1 --backlog $((N_FLOWS + 16))
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:8082 '" || fail "host server"

dump() {
	kill -USR1 $PASST_PID; sleep 0.3
	grep stats: "$WORK/passt.log" | tail -n 12
	tail -n 5 "$WORK/relay.log"
}

out=$(timeout 90 ip netns exec "$R" $T uploads $H4 6300 $N_FLOWS 1048576) ||
	{ echo "$out"; dump; fail "uploads into the guest"; }
log "uploads: $out"
out=$(timeout 90 ip netns exec "$N" $T concurrent $R4 8081 $N_FLOWS 1048576) ||
	{ echo "$out"; dump; fail "downloads by the guest"; }
log "downloads: $out"
out=$(timeout 90 ip netns exec "$N" $T uploads $R4 8082 $N_FLOWS 1048576) ||
	{ echo "$out"; dump; fail "uploads by the guest"; }
log "uploads by the guest: $out"
kill -0 $PASST_PID || { cat "$WORK/passt.log"; fail "passt died"; }
kill -USR1 $PASST_PID; sleep 0.3
grep 'stats: TCP' "$WORK/passt.log" | tail -n 3
stop_passt
pass "passt, kernel guest: $N_FLOWS uploads in, $N_FLOWS downloads and $N_FLOWS uploads out, intact"
