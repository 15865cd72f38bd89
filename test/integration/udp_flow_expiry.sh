#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_flow_expiry.sh - with --udp-timeout 1, a flow from the namespace
# (source port 40000, kept on the host) has its host socket open right
# after a datagram, closed a little after a second of silence (ss in H no
# longer lists it), and a new datagram opens it again, echo included.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
bg in_remote $UDPTOOL echo 198.51.100.3 5001 120
start_pasta --udp-timeout 1
wait_for in_remote sh -c "ss -uln | grep -q ':5001 '" || fail "echo server"

# pasta's socket for the flow: bound to port 40000, connected to R
flow_sock() {
	in_host ss -Huan "sport = :40000" | grep -q '198\.51\.100\.3:5001'
}

in_ns $UDPTOOL send 198.51.100.3 5001 --sport 40000 --expect-echo ||
	fail "first datagram"
flow_sock || fail "no host socket on port 40000 after the datagram"
log "flow socket open: $(in_host ss -Huan 'sport = :40000' | tr -s ' ')"

WAIT_S=10 wait_for sh -c "! ip netns exec $H ss -Huan 'sport = :40000' | grep -q 198.51.100.3" ||
	fail "flow socket still open 10 s after a 1 s timeout"
log "flow socket closed after the idle timeout"

in_ns $UDPTOOL send 198.51.100.3 5001 --sport 40000 --expect-echo ||
	fail "datagram after expiry"
flow_sock || fail "no new host socket after expiry"
pasta_alive
stop_pasta
pass "idle UDP flow expires and comes back"
