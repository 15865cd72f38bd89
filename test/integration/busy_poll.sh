#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# busy_poll.sh - pasta --busy-poll 200: 5,000 request/response round trips
# from the namespace to an echo server on the host's loopback (through the
# gateway) and 5,000 from the remote peer to one in the namespace (-t), each
# answer checked; then, with no traffic, the daemon must sleep: polling
# only goes on for 200 us after the last event (passt.1), so a second of
# idling costs it well under 0.1 s of CPU time (/proc/PID/stat utime +
# stime, clock ticks).  An invalid value is refused with the option named.
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
setup_topology
out=$("$PASTA_BIN" --busy-poll 1001 2>&1) && fail "--busy-poll 1001 accepted"
echo "$out" | grep -q -- "--busy-poll" || fail "no option in the error: $out"

start_pasta -t 6500 --busy-poll 200
bg in_host $T serve-echo 6501 --bind 127.0.0.1
bg in_ns $T serve-echo 6500 --bind 0.0.0.0
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:6501 '" || fail "host server"
wait_for in_ns sh -c "ss -ltn | grep -q ':6500 '" || fail "namespace server"

cat > "$WORK/pp.py" <<'PY'
import socket, sys, time
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
t0 = time.monotonic()
for i in range(5000):
    msg = b"%08d\n" % i
    c.sendall(msg)
    got = b""
    while len(got) < len(msg):
        d = c.recv(64)
        if not d:
            sys.exit("closed at %d" % i)
        got += d
    if got != msg:
        sys.exit("round trip %d: %r" % (i, got))
print("5000 round trips, %.1f us each" % ((time.monotonic() - t0) * 1e6 / 5000))
PY
out=$(in_ns timeout 60 python3 "$WORK/pp.py" $R4 6501 2>&1) ||
	{ echo "$out"; fail "namespace -> host"; }
log "namespace -> host: $out"
out=$(in_remote timeout 60 python3 "$WORK/pp.py" $H4 6500 2>&1) ||
	{ echo "$out"; fail "remote -> namespace"; }
log "remote -> namespace: $out"

pasta_alive
cpu() { awk '{ print $14 + $15 }' "/proc/$PASTA_PID/stat"; }
sleep 0.2
c0=$(cpu)
sleep 1
c1=$(cpu)
log "CPU while idle: $((c1 - c0)) ticks in 1 s"
[ $((c1 - c0)) -lt 10 ] || fail "still polling while idle: $((c1 - c0)) ticks in 1 s"
stop_pasta
pass "--busy-poll: round trips intact both ways, asleep when idle"
