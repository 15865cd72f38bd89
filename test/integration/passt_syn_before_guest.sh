#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_syn_before_guest.sh - A connection to a -t port of passt while no
# guest is attached is kept, not reset: its SYN reaches the guest as soon
# as one attaches (here 3 s later: before the kernel-like retry at 1 + 2 +
# 4 s), and the host client was never reset meanwhile.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
S=$WORK/p.sock
start_passt "$S" -t 10011
in_remote python3 -c "
import socket
s = socket.create_connection(('$H4', 10011), timeout=5)
print('connected', flush=True)
s.settimeout(60)
try:
    d = s.recv(1)
    print('closed' if not d else 'data')
except OSError as e:
    print('reset', e)
" >"$WORK/client" 2>&1 &
track $!
wait_for grep -q connected "$WORK/client" || fail "host client didn't connect"
sleep 2.5		# SYN and its first retry go nowhere
grep -q -e reset -e closed "$WORK/client" && fail "host client: $(cat "$WORK/client")"
in_host python3 "$(dirname "$0")/passt_client.py" expect-syn-now "$S" 10011 \
	>"$WORK/syn" 2>&1 || { cat "$WORK/syn"; tail "$WORK/passt.log"; fail "no SYN after the guest attached"; }
# Measured by the client from its connect(), so Python's start-up on a
# loaded machine isn't in it; the retry it must beat is seconds away
# (RTO 1 s doubling, RFC 6298 2.1 and 5.5: 7 s, then 15 s after the first)
dt=$(sed -n 's/^ms //p' "$WORK/syn")
[ -n "$dt" ] && [ "$dt" -lt 2500 ] || fail "SYN came ${dt:-?} ms after the guest attached"
pass "connection kept while no guest; SYN $dt ms after the guest attached"
