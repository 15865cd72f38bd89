#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vhost_user_frontend.sh - passt --vhost-user against a scripted front-end
#
# vhosttool.py plays QEMU: a bad message (oversized, short payload) and a
# ring that points outside guest memory each drop that front-end, with a
# warning, while passt keeps running and the next front-end is served; so
# does one that truncates its unsealed memory file after SET_MEM_TABLE and
# kicks (passt's access faults: its SIGBUS guard maps zeroes there, logs
# "guest memory faulted" and drops it); a
# proper set-up gets the ARP reply to its ARP request in its receive queue,
# behind a 12-byte virtio-net header with num_buffers 1.  Then
# --one-off: passt exits 0 once its front-end is dropped.
# --print-capabilities prints the vhost-user back-end JSON.
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 $(dirname "$0")/vhosttool.py"

caps=$("$PASST_BIN" --print-capabilities) || fail "--print-capabilities: exit $?"
printf '%s\n' "$caps" | python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(d.get("type") != "net")' ||
	fail "--print-capabilities: '$caps'"
# shellcheck disable=SC2116 # echo joins the JSON on one line
log "--print-capabilities: $(echo $caps)"

setup_topology
mkdir -m 1777 "$WORK/s"
S=$WORK/s/vu.sock
start_passt "$S" --vhost-user

f=$(in_host $T "$S" features) || fail "GET_FEATURES"
log "features offered: $f"
in_host $T "$S" oversized || fail "oversized message: connection not closed"
wait_for grep -q "message of more than" "$WORK/passt.log" || fail "no log line"
in_host $T "$S" short || fail "short payload: connection not closed"
wait_for grep -q "malformed message (request 2" "$WORK/passt.log" || fail "no log line"
in_host $T "$S" badring || fail "bad descriptor: connection not closed"
wait_for grep -q "queue 1: buffer outside guest memory" "$WORK/passt.log" ||
	fail "no log line for the bad ring"
kill -0 "$PASST_PID" || fail "passt died"
in_host $T "$S" shrink || fail "shrunk memory: connection not closed"
wait_for grep -q "guest memory faulted" "$WORK/passt.log" ||
	{ tail -n 20 "$WORK/passt.log"; fail "no log line for the shrunk memory"; }
kill -0 "$PASST_PID" || fail "passt died after the front-end shrank its memory"
log "a front-end that shrank its memory file was dropped, passt still runs"
r=$(in_host $T "$S" frames $H4 $R4) || { tail -n 20 "$WORK/passt.log"; fail "no frame in the receive queue"; }
set -- $r
[ "$2" = $((12 + 60)) ] && [ "$3" = 1 ] && [ "$4" = 0x806 ] ||
	fail "frame to the guest: used len $2, num_buffers $3, ethertype $4"
log "ARP reply in the receive queue: 60 bytes (padded) behind the header, num_buffers 1"
stop_passt

S=$WORK/s/vu1.sock
start_passt "$S" --vhost-user --one-off
in_host $T "$S" badring || fail "bad descriptor (--one-off): not closed"
WAIT_S=10 wait_for sh -c "! kill -0 $PASST_PID" || fail "--one-off: passt still running"
wait "$PASST_PID"; rc=$?
[ "$rc" = 0 ] || fail "--one-off: exit status $rc"
PASST_PID=""
pass "vhost-user front-ends: bad ones dropped, next one served, --one-off exits"
