#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# log_file_size.sh - -l FILE --log-size 16384 with --trace: 1,500 UDP
# datagrams from the namespace, each to a new port of R (a new flow, debug
# lines and per-frame trace lines each: about 300 KB of messages).  The
# file never exceeds 16,384 bytes (checked every 100 datagrams and at the
# end), it says that older messages were dropped, its last lines are about
# the last datagrams, and every line is complete.  Also: --log-size below
# 4096 is refused at start, naming the option, with status 1.
# asan: yes
. "$(dirname "$0")/lib.sh"

LOG=$WORK/limited.log
SIZE=16384

out=$("$PASTA_BIN" --log-size 4095 \
	-l "$LOG" true 2>&1); rc=$?
[ $rc -eq 1 ] || fail "--log-size 4095: exit status $rc, expected 1"
echo "$out" | grep -q -- "--log-size" ||
	fail "--log-size 4095: message doesn't name the option: $out"
rm -f "$LOG"

setup_topology
# R takes 198.51.100.3 and drops the datagrams silently: no ARP failures
# or port unreachable errors (which pasta relays to the guest, logging
# them) trail the last datagram's lines
ip -n "$R" addr add 198.51.100.3/24 dev r0
in_remote nft -f - <<'NFT' || fail "nft"
table inet sink {
	chain in {
		type filter hook input priority 0;
		udp dport 20000-21499 drop;
	}
}
NFT
PASTA_DEBUG=--trace start_pasta -l "$LOG" --log-size $SIZE

size() { stat -c %s "$LOG"; }

i=0
while [ $i -lt 15 ]; do
	in_ns python3 - $((20000 + i * 100)) <<'PY' || fail "sending"
import socket, sys
base = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for p in range(base, base + 100):
    s.sendto(b"x" * 20, ("198.51.100.3", p))
PY
	sleep 0.2
	[ "$(size)" -le $SIZE ] || fail "log file is $(size) bytes, over $SIZE"
	i=$((i + 1))
done

# The last datagram went to port 21499: its trace and flow lines are last
wait_for sh -c "tail -n 20 '$LOG' | grep -q ':21499'" || {
	tail -n 20 "$LOG"; fail "newest messages (port 21499) not in the file"; }
pasta_alive
stop_pasta

[ "$(size)" -le $SIZE ] || fail "log file is $(size) bytes, over $SIZE"
grep -q "log file reached --log-size $SIZE: dropped" "$LOG" ||
	fail "no notice about dropped messages"
# Complete lines: the file ends with a newline, every line starts with
# a time stamp ("seconds.milliseconds level: ")
[ -z "$(tail -c 1 "$LOG")" ] || fail "last line incomplete"
bad=$(grep -cvE '^[0-9]+\.[0-9]{3} [a-z]+: ' "$LOG")
[ "$bad" -eq 0 ] || { grep -vE '^[0-9]+\.[0-9]{3} [a-z]+: ' "$LOG" | head;
	fail "$bad lines without a time stamp (cut lines?)"; }
grep -q ':20000' "$LOG" && fail "oldest messages (port 20000) still there"
log "log file $(size) bytes, $(grep -c . "$LOG") lines"
pass "--log-size $SIZE holds under a flood of flows, newest lines kept"
