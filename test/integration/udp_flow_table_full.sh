#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_flow_table_full.sh - with --flow-max 8, a flow opened first keeps
# working after the namespace tried to open 40 more (each from its own
# source port): the extra ones are dropped, pasta stays up, and once the
# idle ones expire (--udp-timeout 6) new flows open again.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
bg in_remote $UDPTOOL echo 198.51.100.3 5001 120
start_pasta --flow-max 8 --udp-timeout 6
wait_for in_remote sh -c "ss -uln | grep -q ':5001 '" || fail "echo server"

in_ns $UDPTOOL send 198.51.100.3 5001 --sport 41000 --expect-echo ||
	fail "first flow"
in_ns $UDPTOOL many 198.51.100.3 5001 40 41001 || fail "40 more flows"
in_ns $UDPTOOL send 198.51.100.3 5001 --sport 41000 --expect-echo ||
	fail "first flow broken after 40 more"
n=$(in_host ss -Huan "dport = :5001" | grep -c 198.51.100.3)
[ "$n" -eq 8 ] || fail "$n host sockets open with --flow-max 8, expected 8"
log "$n flows open, the first one still echoes"

sleep 7
in_ns $UDPTOOL send 198.51.100.3 5001 --sport 42000 --expect-echo ||
	fail "new flow after expiry"
pasta_alive
stop_pasta
pass "a full flow table refuses new UDP flows only"
