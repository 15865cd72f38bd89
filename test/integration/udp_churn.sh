#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_churn.sh - DNS-like churn is never refused: with --flow-max 64, the
# namespace sends 1920 queries, each from a new socket (a new source port,
# so a new flow), 32 in flight at a time, to an echo server on R.  Every
# query must get its own answer back (byte-identical, within 5 s), none may
# be refused: a full table makes room by evicting the least recently used
# UDP flow, an answered exchange, however recent (issue 31).  The counters
# after SIGUSR1 say none was refused and that evictions took answered
# flows.
#
# Expected values: echoes from a real peer (udptool.py echo), byte by byte;
# 1920 = 30 x --flow-max, so the table fills 30 times over.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
# not R4: that is the namespace's gateway, which means the host (--map-gw)
ip -n "$R" addr add 198.51.100.3/24 dev r0
bg in_remote python3 "$(dirname "$0")/udptool.py" echo 198.51.100.3 5353 120
start_pasta --flow-max 64
wait_for in_remote sh -c "ss -Huln | grep -q ':5353 '" || fail "echo server"

in_ns timeout 100 python3 - 198.51.100.3 <<'PY' || { grep -e "table full" -e "stats:" "$WORK/pasta.log" | tail -5; fail "queries lost"; }
import os, select, socket, sys, time
dst = (sys.argv[1], 5353)
lost = 0
for batch in range(60):
    socks = {}
    for i in range(32):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setblocking(False)
        q = os.urandom(8) + b'query %d/%d' % (batch, i)
        s.sendto(q, dst)
        socks[s] = q
    deadline = time.monotonic() + 5
    while socks and time.monotonic() < deadline:
        r, _, _ = select.select(list(socks), [], [], 0.5)
        for s in r:
            if s.recv(2048) == socks[s]:
                del socks[s]
                s.close()
    lost += len(socks)
    for s in socks:
        s.close()
print('%d queries, %d without their answer' % (32 * (batch + 1), lost))
sys.exit(1 if lost else 0)
PY
kill -USR1 "$PASTA_PID"
wait_for grep -q "stats: UDP flows" "$WORK/pasta.log" || fail "no UDP stats"
st=$(grep "stats: UDP flows" "$WORK/pasta.log" | tail -1)
log "$st"
echo "$st" | grep -q "refused 0," || fail "UDP flows refused: $st"
echo "$st" | grep -Eq "answered [1-9][0-9]*," ||
	fail "no answered flow evicted: $st"
pasta_alive
stop_pasta
pass "1920 DNS-like queries through a 64-entry table: all answered, none refused"
