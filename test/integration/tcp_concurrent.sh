#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_concurrent.sh - 200 concurrent connections carrying 1 MiB each, every
# stream verified by sha256, namespace -> host and remote -> namespace
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
setup_topology

for mode in "" "--no-peek-offset"; do
	start_pasta -t 6100 $mode
	bg in_host $T serve-pattern 7100 --bind 127.0.0.1
	bg in_ns $T serve-pattern 6100 --bind ::
	wait_for in_host sh -c "ss -ltn | grep -q ':7100 '"
	wait_for in_ns sh -c "ss -ltn | grep -q ':6100 '"

	in_ns $T concurrent $R4 7100 200 1048576 || fail "ns->host 200 x 1 MiB ($mode)"
	in_remote $T concurrent $H4 6100 200 1048576 || fail "remote->ns 200 x 1 MiB ($mode)"
	pasta_alive
	stop_pasta
	for p in $PIDS; do kill $p 2>/dev/null; done
	log "200 x 1 MiB both ways ${mode:-(SO_PEEK_OFF)}"
done
pass "200 concurrent connections intact"
