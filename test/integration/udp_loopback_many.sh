#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_loopback_many.sh - 60 different host loopback peers of a -u port, more
# than the namespace sockets opened at set-up: the others come from the
# namespace socket helper after isolation (no re-entering the namespace).
# Every datagram is echoed by socat in the namespace, and none crosses the
# tap (pasta's "datagrams to guest" counter stays 0)
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
start_pasta -u 6300
bg in_ns socat UDP6-RECVFROM:6300,fork,reuseaddr EXEC:cat
wait_for in_ns sh -c "ss -lun | grep -q ':6300 '" || fail "socat"

in_host python3 - > "$WORK/out" <<PY
import socket
ok = 0
for i in range(60):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    s.sendto(b"hello %d" % i, ("127.0.0.1", 6300))
    try:
        d, _ = s.recvfrom(100)
        ok += d == b"hello %d" % i
    except OSError:
        pass
print(ok)
PY
[ "$(cat "$WORK/out")" = 60 ] || fail "only $(cat "$WORK/out") of 60 echoed"
kill -USR1 "$PASTA_PID"
wait_for grep -q "UDP flows" "$WORK/pasta.log"
grep "UDP flows" "$WORK/pasta.log" | tail -1
grep "UDP flows" "$WORK/pasta.log" | tail -1 | grep -q "datagrams to guest 0," ||
	fail "datagrams crossed the tap"
pasta_alive
stop_pasta
pass "60 loopback peers spliced"
