#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_curl_gateway.sh - curl in the namespace fetches a file from an HTTP
# server on the host's loopback through the gateway address (IPv4, IPv6),
# with SO_PEEK_OFF and with --no-peek-offset; sha256 must match
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
mkdir -p "$WORK/www"
make_file "$WORK/www/file" 32
want=$(sum "$WORK/www/file")
( cd "$WORK/www" && exec ip netns exec "$H" python3 -m http.server 8080 --bind :: ) \
	>/dev/null 2>&1 &
track $!
wait_for in_host sh -c "ss -ltn | grep -q ':8080 '" || fail "http server"

for mode in "" "--no-peek-offset"; do
	start_pasta $mode
	in_ns curl -sf -o "$WORK/g4" "http://$R4:8080/file" || fail "curl IPv4 ($mode)"
	[ "$(sum "$WORK/g4")" = "$want" ] || fail "IPv4 sha256 differs ($mode)"
	in_ns curl -sf -g -o "$WORK/g6" "http://[$R6]:8080/file" || fail "curl IPv6 ($mode)"
	[ "$(sum "$WORK/g6")" = "$want" ] || fail "IPv6 sha256 differs ($mode)"
	log "curl IPv4 and IPv6 intact ${mode:-(SO_PEEK_OFF)}"
	stop_pasta
done
pass "curl through the gateway address"
