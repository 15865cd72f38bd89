#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_outbound_if.sh - --outbound-if4 binds the sockets of connections the
# namespace starts to an interface (SO_BINDTODEVICE): H gets a second link
# to R, h1 203.0.113.1/24 <-> r1 203.0.113.2/24.  With pasta
# --outbound-if4 h1 -i h0, a connection to R's address on the first link
# (198.51.100.3) must leave through h1, so the server in R sees the source
# address of h1, 203.0.113.1 (with the host's routing it would be
# 198.51.100.1, via h0).  A connection to the gateway address (H's
# loopback) is not bound and still works.
# asan: yes
. "$(dirname "$0")/lib.sh"
PEER="python3 $(dirname "$0")/peertool.py"

setup_topology
ip link add h1 netns "$H" type veth peer name r1 netns "$R" || fail "veth"
ip -n "$H" addr add 203.0.113.1/24 dev h1
ip -n "$R" addr add 203.0.113.2/24 dev r1
ip -n "$H" link set h1 up
ip -n "$R" link set r1 up
ip -n "$R" addr add 198.51.100.3/24 dev r0
bg in_remote $PEER serve-peer 7500
bg in_host $PEER serve-peer 7501 --bind 127.0.0.1
wait_for in_remote sh -c "ss -Htln | grep -q ':7500 '" || fail "server in R"
wait_for in_host sh -c "ss -Htln | grep -q ':7501 '" || fail "server in H"
start_pasta -i h0 --outbound-if4 h1

got=$(in_ns $PEER peer 198.51.100.3 7500) || { cat "$WORK/pasta.log"; fail "connection to R"; }
[ "$got" = 203.0.113.1 ] || fail "R saw peer '$got', expected 203.0.113.1 (h1)"
got=$(in_ns $PEER peer $R4 7501) || fail "connection to H's loopback"
[ "$got" = 127.0.0.1 ] || fail "loopback: peer '$got', expected 127.0.0.1"

pasta_alive
stop_pasta
pass "--outbound-if4 binds TCP sockets to the interface, not loopback ones"
