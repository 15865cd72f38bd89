#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# flood_tap.sh - 100,000 hostile frames during a 50 MiB transfer
#
# A 50 MiB stream goes from H (tcptool serve-pattern on loopback, through
# the gateway address) to the namespace while flood.py, inside the
# namespace, writes 100,000 random and mutated frames to the tap through a
# raw packet socket (bad lengths and checksums, bogus options, IPv6
# extension header chains, zero-length and oversized frames, frames of
# unknown flows).  The stream must arrive intact (sha256 of the
# deterministic pattern), pasta must stay up with its resident memory under
# a fixed bound (the flow table and buffers are static: nothing grows per
# frame), malformed frames must show up in the drop counters, and a new
# connection must work afterwards.
# asan: yes
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
FRAMES=${FRAMES:-100000}
SIZE=$((50 * 1024 * 1024))
RSS_MAX_KIB=${RSS_MAX_KIB:-49152}		# release build
grep -q __asan_init "$PASST_BIN" && RSS_MAX_KIB=262144	# ASan shadow, quarantine

setup_topology
start_pasta
bg in_host python3 "$here/tcptool.py" serve-pattern 5100
sleep 0.3
iface=$(ip -n "$N" -o link show | awk -F': ' '$2 != "lo" { print $2; exit }')
iface=${iface%@*}

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$PASTA_PID/status"; }
rss0=$(rss)

in_ns timeout 300 python3 "$here/tcptool.py" fetch $R4 5100 flood $SIZE \
	>"$WORK/fetch.out" 2>&1 &
fetcher=$!; track $fetcher

in_ns timeout 300 python3 "$here/flood.py" "$iface" $FRAMES --avoid-port 5100 \
	>"$WORK/flood.out" 2>&1 &
flooder=$!; track $flooder

rss_max=$rss0
while kill -0 $flooder 2>/dev/null || kill -0 $fetcher 2>/dev/null; do
	pasta_alive
	r=$(rss); [ "${r:-0}" -gt "$rss_max" ] && rss_max=$r
	sleep 0.5
done
wait $flooder || { cat "$WORK/flood.out"; fail "flood.py failed"; }
log "$(cat "$WORK/flood.out")"
wait $fetcher || { cat "$WORK/fetch.out"; tail -20 "$WORK/pasta.log"; fail "the transfer broke during the flood"; }
log "transfer during the flood: $(cat "$WORK/fetch.out")"
pasta_alive

r=$(rss); [ "$r" -gt "$rss_max" ] && rss_max=$r
log "pasta RSS: $rss0 KiB before, at most $rss_max KiB during (bound $RSS_MAX_KIB KiB)"
[ "$rss_max" -le "$RSS_MAX_KIB" ] || fail "RSS $rss_max KiB above $RSS_MAX_KIB KiB"

kill -USR1 $PASTA_PID
wait_for grep -q "stats: malformed frames dropped" "$WORK/pasta.log" ||
	fail "no counters after SIGUSR1"
grep "stats:" "$WORK/pasta.log" | sed 's/^/    /'
dropped=$(sed -n 's/.*stats: malformed frames dropped \([0-9]*\),.*/\1/p' "$WORK/pasta.log" | tail -1)
[ "${dropped:-0}" -gt 1000 ] || fail "only ${dropped:-0} malformed frames counted"

in_ns timeout 60 python3 "$here/tcptool.py" fetch $R4 5100 after 1048576 ||
	fail "new connection after the flood"
stop_pasta
pass "$FRAMES hostile frames: transfer intact, RSS bounded, drops counted"
