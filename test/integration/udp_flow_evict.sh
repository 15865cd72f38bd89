#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_flow_evict.sh - idle UDP flows don't lock the flow table: with
# --flow-max 8 full of UDP flows idle for more than a second (a program that
# opens a socket per DNS query leaves such flows for the whole idle
# timeout), a new TCP connection and a new UDP flow still open, taking the
# places of the oldest idle UDP flows.
#
# Expected values: echoes from real peers (udptool.py, tcptool.py).
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"
TT="python3 $(dirname "$0")/tcptool.py"

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
bg in_remote $UDPTOOL echo 198.51.100.3 5001 120
bg in_remote $TT serve-echo 5002 --bind 198.51.100.3
start_pasta --flow-max 8 --udp-timeout 180
wait_for in_remote sh -c "ss -uln | grep -q ':5001 '" || fail "echo server"

in_ns $UDPTOOL many 198.51.100.3 5001 8 41000 || fail "8 flows"
sleep 1.5
in_ns timeout 20 $TT churn 198.51.100.3 5002 3 1 ||
	{ tail -20 "$WORK/pasta.log"; fail "TCP refused: idle UDP flows hold the table"; }
in_ns $UDPTOOL send 198.51.100.3 5001 --sport 42000 --expect-echo ||
	fail "new UDP flow refused"
kill -USR1 "$PASTA_PID"
wait_for grep -q "evicted [1-9]" "$WORK/pasta.log" ||
	{ grep stats "$WORK/pasta.log"; fail "no evictions counted"; }
pasta_alive
stop_pasta
pass "idle UDP flows evicted for new TCP and UDP flows"
