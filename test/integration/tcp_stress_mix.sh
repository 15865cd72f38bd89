#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_stress_mix.sh - Many TCP connections at once, of mixed sizes and
# behaviours, every byte checked at both ends (stresstool.py)
#
# Each run is CONNS (default 400) connections, 100 at a time, each a case
# drawn from stresstool.py's default mix: 0 B to 4 MiB each way; readers
# that read at once, slowly, or stop for 3 s; senders that shut down their
# write side, close() with data still queued, or reset (SO_LINGER 0); a
# server that keeps sending long after the client's FIN.  Runs, with
# SO_PEEK_OFF and with --no-peek-offset:
#   - namespace -> host's loopback through the tap (gateway address)
#   - remote peer -> namespace through the tap (-t)
#   - host's loopback -> namespace, spliced (-t)
#   - namespace's loopback -> host, spliced (-T)
#   - namespace -> remote peer and remote peer -> namespace, with 2%
#     random loss on the namespace's tap (nftables, if nft is there), and
#     no resets in the mix: a lost RST isn't sent again, and a peer that
#     waits for data then waits as long as it would without us in between
#     (pasta's flow stays until the idle timeout)
# After each run: every connection that was not reset on purpose delivered
# every byte both ways (count and sha256 at both ends), the flows opened
# were all closed, pasta holds no more descriptors than before the run,
# and it is idle (at most 5 ticks in 2 s).
# opt-in: make check-stress (about 2.5 minutes)
# asan: no (minutes of traffic)
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/stresstool.py"
CONNS=${CONNS:-400}
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
command -v nft >/dev/null && have_nft=1 || have_nft=0

# run_mix LABEL NS HOST PORT [LOSS] - one run of the mix from NS to
# HOST:PORT, LOSS percent of TCP frames dropped on the namespace's tap
run_mix() {
	rm -f "$WORK/srv.log" "$WORK/cli.log"
	: > "$WORK/srv.log"
	for s in in_host in_ns in_remote; do
		case $s in
		in_host) p=7100 ;; in_ns) p=6100 ;; in_remote) p=7100 ;;
		esac
		bg $s $T serve $p "$WORK/srv.log" --bind ::
		srv_pids="$srv_pids $BG_PID"
	done
	wait_for in_host sh -c "ss -ltn | grep -q ':7100 '"
	wait_for in_ns sh -c "ss -ltn | grep -q ':6100 '"
	wait_for in_remote sh -c "ss -ltn | grep -q ':7100 '"
	if [ -n "${5:-}" ]; then
		cat > "$WORK/loss.nft" <<-EOF
		table inet loss {
		  chain in  { type filter hook input  priority 0; meta l4proto tcp numgen random mod 100 < $5 drop; }
		  chain out { type filter hook output priority 0; meta l4proto tcp numgen random mod 100 < $5 drop; }
		}
		EOF
		in_ns nft -f "$WORK/loss.nft" || fail "nft"
	fi
	fds0=$(ls /proc/$PASTA_PID/fd | wc -l)
	t0=$(date +%s)
	mix=default
	[ -n "${5:-}" ] && mix=norst	# a lost RST is never resent
	$2 $T run $3 $4 "$WORK/cli.log" $CONNS 100 --seed $seed --time 240 --mix $mix \
		> "$WORK/run.out" 2>&1 || { cat "$WORK/run.out"; fail "$1: run"; }
	$T check "$WORK/srv.log" "$WORK/cli.log" --wait 60 > "$WORK/check.out" ||
		{ head -n 30 "$WORK/check.out"; fail "$1: data differs"; }
	[ -n "${5:-}" ] && in_ns nft delete table inet loss
	t1=$(date +%s)
	sleep 2
	c0=$(cpu $PASTA_PID); sleep 2; c1=$(cpu $PASTA_PID)
	fds1=$(ls /proc/$PASTA_PID/fd | wc -l)
	[ $((c1 - c0)) -le 5 ] || fail "$1: pasta busy after the run ($((c1 - c0)) ticks in 2 s)"
	[ $fds1 -le $fds0 ] || fail "$1: pasta holds $fds1 descriptors, $fds0 before"
	log "$1: $(tail -n 1 "$WORK/check.out"), $((t1 - t0)) s"
	for p in $srv_pids; do kill $p 2>/dev/null; done
	srv_pids=""
	seed=$((seed + 1))
}

seed=1
srv_pids=""
for mode in "" "--no-peek-offset"; do
	start_pasta -t 6100 -T 7100 $mode
	m=${mode:-SO_PEEK_OFF}
	run_mix "$m ns -> host (tap)" in_ns $R4 7100
	run_mix "$m remote -> ns (tap)" in_remote $H4 6100
	run_mix "$m host -> ns (splice)" in_host 127.0.0.1 6100
	run_mix "$m ns -> host (splice, -T)" in_ns 127.0.0.1 7100
	if [ $have_nft = 1 ]; then
		run_mix "$m ns -> remote, 2% loss" in_ns 198.51.100.3 7100 2
		run_mix "$m remote -> ns, 2% loss" in_remote $H4 6100 2
	fi
	kill -USR1 $PASTA_PID
	sleep 0.5
	grep "stats: TCP flows opened" "$WORK/pasta.log" | tail -n 1 |
		awk '{ gsub(",", "", $9); if ($7 != $9) { print; exit 1 } }' ||
		fail "$m: flows opened and closed differ"
	pasta_alive
	stop_pasta
done
pass "mixed TCP stress: every byte intact, no leak, idle afterwards"
