#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_close.sh - half-close, RST both ways, refused connect (RFC 9293 3.6,
# 3.10.7): what a real peer on the other side observes
#
# - half-close: the client sends 2 MiB, shuts down its write side, and still
#   receives the server's whole 1 MiB reply (ns -> host and host -> ns)
# - a server resetting (SO_LINGER 0) gives ECONNRESET to the client on the
#   other side of pasta, and a client resetting gives ECONNRESET to the server
# - connecting to a port where nothing listens gives ECONNREFUSED
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
setup_topology

for mode in "" "--no-peek-offset"; do
	start_pasta -t 6001-6003 $mode

	# Half-close, namespace client -> host server (through the gateway)
	bg in_host $T serve-halfclose 7001 --bind 127.0.0.1
	wait_for in_host sh -c "ss -ltn | grep -q ':7001 '"
	in_ns $T halfclose $R4 7001 2097152 || fail "half-close ns->host ($mode)"
	# Half-close, remote client -> namespace server (through -t)
	bg in_ns $T serve-halfclose 6001 --bind 0.0.0.0
	wait_for in_ns sh -c "ss -ltn | grep -q ':6001 '"
	in_remote $T halfclose $H4 6001 2097152 || fail "half-close host->ns ($mode)"

	# Server resets: the client on the other side sees it
	bg in_host $T serve-rst 7002 --bind 127.0.0.1
	wait_for in_host sh -c "ss -ltn | grep -q ':7002 '"
	in_ns $T expect-rst $R4 7002 || fail "RST host->ns not propagated ($mode)"
	bg in_ns $T serve-rst 6002 --bind 0.0.0.0
	wait_for in_ns sh -c "ss -ltn | grep -q ':6002 '"
	in_remote $T expect-rst $H4 6002 || fail "RST ns->remote not propagated ($mode)"

	# Client resets: the server on the other side sees it
	in_host $T serve-expect-rst 7003 --bind 127.0.0.1 > "$WORK/srv" 2>&1 &
	srv=$!; track $srv
	wait_for in_host sh -c "ss -ltn | grep -q ':7003 '"
	in_ns $T send-rst $R4 7003
	wait $srv || { cat "$WORK/srv"; fail "RST ns->host not propagated ($mode)"; }
	in_ns $T serve-expect-rst 6003 --bind 0.0.0.0 > "$WORK/srv" 2>&1 &
	srv=$!; track $srv
	wait_for in_ns sh -c "ss -ltn | grep -q ':6003 '"
	in_remote $T send-rst $H4 6003
	wait $srv || { cat "$WORK/srv"; fail "RST remote->ns not propagated ($mode)"; }

	# Refused: nothing listens on H's loopback port 7999
	in_ns $T expect-refused $R4 7999 || fail "refused connect ($mode)"
	in_ns $T expect-refused "$R6" 7999 || fail "refused connect IPv6 ($mode)"

	pasta_alive
	stop_pasta
	for p in $PIDS; do kill $p 2>/dev/null; done
	log "half-close, RST and refusal ok ${mode:-(SO_PEEK_OFF)}"
done
pass "half-close, RST both ways, refused connect"
