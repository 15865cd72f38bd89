#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_uploads_backlog.sh - 200 concurrent 1 MiB uploads from a remote peer
# into the namespace through -t, to a server whose listen backlog is 5 (as
# socat's): its accept queue overflows, the namespace's kernel drops our
# handshake ACKs and early data and retransmits its SYN-ACKs.  Every upload
# must be answered with its own size and sha256, IPv4 and IPv6, with
# SO_PEEK_OFF and with --no-peek-offset.
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
N_UP=${N_UP:-200}
setup_topology

for mode in "" "--no-peek-offset"; do
	start_pasta -t 6300 $mode
	bg in_ns $T serve-hash 6300 --bind :: --backlog 5
	wait_for in_ns sh -c "ss -ltn | grep -q ':6300 '"

	for dst in $H4 $H6; do
		out=$(timeout 60 ip netns exec "$R" $T uploads $dst 6300 $N_UP 1048576) ||
			{ echo "$out"; in_ns ss -tnoi > $WORK/ss_ns.txt; in_host ss -tnoi > $WORK/ss_host.txt; in_ns nstat -az > $WORK/nstat_ns.txt; kill -USR1 $PASTA_PID; sleep 0.3; grep stats "$WORK/pasta.log"; fail "uploads to $dst ($mode)"; }
		log "$dst ${mode:-(SO_PEEK_OFF)}: $out"
	done
	pasta_alive
	kill -USR1 $PASTA_PID; sleep 0.2
	grep 'stats: TCP' "$WORK/pasta.log" | tail -n 2
	stop_pasta
	for p in $PIDS; do kill $p 2>/dev/null; done
done
pass "$N_UP concurrent uploads into a small backlog intact"
