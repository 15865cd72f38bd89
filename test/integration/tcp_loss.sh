#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_loss.sh - 20 MiB each way with 1% random loss on the namespace's tap
# (nftables numgen drops on input and output: this kernel has no netem);
# the data must arrive intact, which needs retransmission from the host
# socket's queue (host -> ns) and from the guest (ns -> host).  The tap MTU
# is 1500 so that 20 MiB are ~14,000 segments each way: with 64 KiB frames
# a run could see no loss at all in one direction.
. "$(dirname "$0")/lib.sh"

command -v nft >/dev/null || fail "nft missing (make deps installs nftables)"
T="python3 -u $(dirname "$0")/tcptool.py"
setup_topology

cat > "$WORK/loss.nft" <<NFT
table inet loss {
	chain in  { type filter hook input  priority 0; meta l4proto tcp numgen random mod 100 < 1 counter drop; }
	chain out { type filter hook output priority 0; meta l4proto tcp numgen random mod 100 < 1 counter drop; }
}
NFT

for mode in "" "--no-peek-offset"; do
	start_pasta -m 1500 -t 6200 $mode
	in_ns nft -f "$WORK/loss.nft" || fail "nft rules"
	bg in_host $T serve-pattern 7200 --bind 127.0.0.1
	bg in_ns $T serve-pattern 6200 --bind ::
	wait_for in_host sh -c "ss -ltn | grep -q ':7200 '"
	wait_for in_ns sh -c "ss -ltn | grep -q ':6200 '"

	# host -> ns: our retransmissions (pattern served on H, fetched in N)
	in_ns $T fetch $R4 7200 lossA 20971520 || fail "20 MiB host->ns with loss ($mode)"
	# ns -> host: guest retransmissions (served in N, fetched from R)
	in_remote $T fetch $H4 6200 lossB 20971520 || fail "20 MiB ns->remote with loss ($mode)"
	in_ns nft list table inet loss > "$WORK/nft"
	grep -q "counter packets [1-9].* drop" "$WORK/nft" || { cat "$WORK/nft"; fail "nothing was dropped"; }
	kill -USR1 $PASTA_PID; sleep 0.2
	grep "retransmissions" "$WORK/pasta.log" | tail -1
	grep "retransmissions" "$WORK/pasta.log" | tail -1 | grep -q "retransmissions 0 " &&
		fail "no retransmission happened: the loss rules did nothing?"
	in_ns nft delete table inet loss
	pasta_alive
	stop_pasta
	for p in $PIDS; do kill $p 2>/dev/null; done
	log "20 MiB both ways with 1% loss ${mode:-(SO_PEEK_OFF)}"
done
pass "transfers with 1% loss intact"
