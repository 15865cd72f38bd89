#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# flow_table_full.sh - More connections than --flow-max: the excess is refused
#
# With --flow-max 16, the namespace opens 24 connections one after the
# other to an echo server (H's loopback, through the gateway address): the
# first 16 must connect, the other 8 must be refused (RST: ECONNREFUSED),
# and the 16 must keep echoing.  While the table is full a connection to a
# -t forwarded port from R must be reset.  The refusals are counted (9 in
# the counters after SIGUSR1) and logged at most once per second.  Once the
# 16 are closed, new connections work again.
# asan: yes
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
setup_topology
start_pasta --flow-max 16 -t 5300
bg in_host python3 "$here/tcptool.py" serve-echo 5200
bg in_ns python3 "$here/tcptool.py" serve-echo 5300
# Both servers listen before the first connection (a loaded machine took
# longer than a fixed 0.3 s: the first connect() was refused)
wait_for in_host sh -c "ss -Hltn | grep -q ':5200 '" || fail "no echo server in H"
wait_for in_ns sh -c "ss -Hltn | grep -q ':5300 '" || fail "no echo server in N"

rm -f "$WORK/release"
in_ns timeout 120 python3 "$here/tcptool.py" hold $R4 5200 24 16 "$WORK/release" \
	>"$WORK/hold.out" 2>&1 &
holder=$!; track $holder
wait_for grep -q "connected and echo" "$WORK/hold.out" ||
	{ cat "$WORK/hold.out" "$WORK/pasta.log"; fail "first 16 connect, 8 refused"; }
log "$(head -1 "$WORK/hold.out")"

# Inbound while full: accepted by the kernel, then reset
in_remote timeout 20 python3 "$here/tcptool.py" expect-rst $H4 5300 ||
	fail "-t port while the table is full: no reset"

touch "$WORK/release"
wait $holder || { cat "$WORK/hold.out"; fail "held connections stopped working"; }
log "$(tail -1 "$WORK/hold.out")"
pasta_alive

kill -USR1 $PASTA_PID
wait_for grep -q "refused (table full) 9," "$WORK/pasta.log" ||
	{ grep stats: "$WORK/pasta.log"; fail "counter of refusals is not 9"; }

# At most one line per second: time stamps of -d output, in seconds
awk '/flow table full: refusing new flows/ { t = $1 + 0;
	if (n++ && t - last < 1.0) { print "lines " last " and " t; bad = 1 }
	last = t } END { exit bad }' "$WORK/pasta.log" ||
	fail "refusals logged more than once a second"
grep -c "flow table full" "$WORK/pasta.log" | {
	read -r n; log "refusal lines in the log: $n"; }

# All closed: room again
WAIT_S=20 wait_for in_ns timeout 5 python3 "$here/tcptool.py" hold $R4 5200 1 1 ||
	fail "no new connection after the table emptied"
pass "flow table full: excess refused, existing connections undisturbed"
