#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_restart.sh - A new pasta binds the ports of one that is exiting
# (podman #24365: "podman restart" failed with "Failed to bind port ...
# (Address already in use)" while the old instance drained)
#
# pasta A forwards -t 7300 into N, where a client from R keeps a connection
# busy (16 KiB every 20 ms).  SIGTERM to A, and at once pasta B with the
# same -t 7300 into a second namespace: B starts (the kernel lets it bind:
# A closed its listener) and serves a 1 MiB upload (sha256 checked by the
# server) while A still runs; then the busy connection of A finishes and
# every byte it sent arrives (sha256 checked by the server in N).
# Before: B exits with "can't listen" as long as A drains.
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
setup_topology
N2=m-$TEST_ID
ip netns add "$N2" || fail "ip netns add $N2"
NAMESPACES="$NAMESPACES $N2"

start_pasta -t 7300 --drain-timeout 30
bg in_ns $T serve-hash 7300
wait_for in_ns sh -c "ss -ltn | grep -q ':7300 '" || fail "no server in N"
bg ip netns exec "$N2" $T serve-hash 7300
wait_for ip netns exec "$N2" sh -c "ss -ltn | grep -q ':7300 '" ||
	fail "no server in the second namespace"

bg in_remote $T trickle $H4 7300 "$WORK/stop"
TRICKLE=$BG_PID
wait_for sh -c "ip netns exec $N ss -tnH state established '( sport = :7300 )' | grep -q ." ||
	fail "the busy connection didn't reach N"
A=$PASTA_PID

kill -TERM $A
ip netns exec "$H" "$PASTA_BIN" -f -d --config-net -t 7300 \
	--netns "/run/netns/$N2" --pid "$WORK/b.pid" >"$WORK/b.log" 2>&1 &
B=$!
track $B
WAIT_S=20 wait_for test -s "$WORK/b.pid" ||
	{ cat "$WORK/b.log"; fail "the second pasta didn't start"; }
kill -0 $B 2>/dev/null || { cat "$WORK/b.log"; fail "the second pasta exited"; }
in_remote $T uploads $H4 7300 1 1048576 ||
	{ cat "$WORK/b.log"; fail "upload through the second pasta"; }
kill -0 $A 2>/dev/null ||
	{ cat "$WORK/pasta.log"; fail "the first pasta didn't wait for its busy connection"; }
log "ok: the second pasta serves port 7300 while the first drains"

touch "$WORK/stop"
wait $TRICKLE || { tail -5 "$WORK/pasta.log"; fail "the busy connection lost data"; }
WAIT_S=20 wait_for sh -c "! kill -0 $A" || fail "the first pasta didn't exit"
stop_daemon $B "$WORK/b.log" "pasta B"
stop_pasta
pass "restart: the next pasta binds at once, the old connection drains whole"
