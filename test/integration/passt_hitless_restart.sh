#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_hitless_restart.sh - A new passt takes over a running one's guest
# (its stream socket from the front-end) and TCP connection mid-transfer
# (--restart-from)
#
# passt A (-s SOCK -c CTL) serves a guest that speaks the stream itself
# (passt_client.py): it downloads 48 MB of a deterministic stream from a
# server on the host (through the gateway address).  Once the download is
# under way, passt B (same options, --restart-from CTL) is started: A must
# exit 0, B must run and log the version "passt --version" prints, and
# the download must finish through B with every byte (sha256 of the
# stream computed apart from the transfer), no reset, on the same stream
# socket (the guest never reconnects).  A new download through B works.
# Before: B doesn't know --restart-from, exits at once.
# asan: yes
. "$(dirname "$0")/lib.sh"

CL="python3 $(dirname "$0")/passt_client.py"
TT="python3 $(dirname "$0")/tcptool.py"
GW4=$R4		# the guest's gateway: H's default route, maps to the host
SOCK=$WORK/p.sock
CTL=$WORK/ctl
SIZE=48000000

setup_topology
bg in_host $TT serve-pattern 8081 --bind 127.0.0.1
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:8081 '" || fail "server"

start_passt "$SOCK" -c "$CTL"
A=$PASST_PID
in_host $CL tcp "$SOCK" $GW4 8081 warm 100000 >"$WORK/out0" 2>&1 ||
	{ cat "$WORK/out0"; fail "a first download"; }

bg in_host $CL tcp "$SOCK" $GW4 8081 big $SIZE
DL=$BG_PID
WAIT_S=20 wait_for sh -c "ip netns exec $H ss -tnH state established '( dport = :8081 )' | grep -q ." ||
	fail "the download didn't start"
sleep 0.5
passt_alive

ip netns exec "$H" "$PASST_BIN" -f -d ${B_TRACE:-} -s "$SOCK" -c "$CTL" \
	--restart-from "$CTL" >"$WORK/b.log" 2>&1 &
B=$!
track $B
WAIT_S=20 wait_for sh -c "! kill -0 $A" ||
	{ cat "$WORK/b.log"; fail "passt A is still running: nothing was handed over"; }
wait $A
RC=$?
[ $RC -eq 0 ] || { tail -20 "$WORK/passt.log"; fail "passt A exited with $RC"; }
PASST_PID=""
kill -0 $DL 2>/dev/null ||
	{ cat "$WORK/b.log"; fail "the download ended before the restart (make SIZE larger)"; }
WAIT_S=10 wait_for grep -q "took over" "$WORK/b.log" ||
	{ cat "$WORK/b.log"; fail "passt B didn't take over"; }
daemon_running $B || daemon_gone $B "$WORK/b.log" "passt B"
V=$("$PASST_BIN" --version | head -1)
grep -qF "($V)" "$WORK/b.log" ||
	{ head -20 "$WORK/b.log"; fail "passt B's log doesn't name '$V'"; }
log "ok: A ($A) exited 0 mid-download, B ($B) runs: $V"

wait $DL || { tail -30 "$WORK/b.log"; fail "the download was cut or changed"; }
log "ok: $SIZE bytes whole across the restart"
in_host $CL tcp "$SOCK" $GW4 8081 after 100000 >"$WORK/out1" 2>&1 ||
	{ cat "$WORK/out1"; tail -20 "$WORK/b.log"; fail "a new download through B"; }
stop_daemon $B "$WORK/b.log" "passt B"
pass "hitless restart: passt's guest stream and TCP download survive a new passt"
