#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_keepalive.sh - TCP keepalives of the namespace's kernel are answered:
# a connection through the tap, idle with SO_KEEPALIVE (TCP_KEEPIDLE 1 s,
# TCP_KEEPINTVL 1 s, TCP_KEEPCNT 2: dead after about 3 s of unanswered
# probes, tcp(7)), still carries data after 4.5 s.  A keepalive is an empty
# segment at SEG.SEQ = RCV.NXT - 1, not acceptable, and RFC 9293 3.10.7.4
# says to answer it with an ACK.  Both ways: the namespace's client to the
# host's loopback through the gateway, and a remote client to a server in
# the namespace through -t, where the namespace's side sends keepalives.
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
setup_topology
start_pasta -t 6400
bg in_host $T serve-echo 6401 --bind 127.0.0.1
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:6401 '" || fail "host server"

# keepalive_idle HOST PORT - connect, keepalives on, idle 4.5 s, then echo
cat > "$WORK/ka.py" <<'PY'
import socket, sys, time
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
c.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 2)
time.sleep(4.5)
c.sendall(b"still here\n")
got = b""
while not got.endswith(b"\n"):
    d = c.recv(100)
    if not d:
        break
    got += d
if got != b"still here\n":
    sys.exit("echo: %r" % got)
print("alive after 4.5 s of keepalives")
PY
out=$(in_ns timeout 20 python3 "$WORK/ka.py" $R4 6401 2>&1) ||
	{ echo "$out"; fail "namespace -> host: keepalives unanswered"; }
log "namespace -> host: $out"

# The namespace's server sends the keepalives on an inbound connection
cat > "$WORK/ka_srv.py" <<'PY'
import socket
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", 6400))
s.listen(5)
while True:
    c, _ = s.accept()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 2)
    got = b""
    try:
        while not got.endswith(b"\n"):
            d = c.recv(100)
            if not d:
                break
            got += d
        c.sendall(got)
    except OSError:
        pass
    c.close()
PY
bg in_ns python3 "$WORK/ka_srv.py"
wait_for in_ns sh -c "ss -ltn | grep -q ':6400 '" || fail "namespace server"
in_remote timeout 20 python3 "$WORK/ka.py" $H4 6400 > "$WORK/ka_in.out" 2>&1 &
kp=$!
# The socket pasta accepted has keepalives of its own (the host peer may
# vanish), set on the listener and inherited (ss -o: the kernel's timer)
wait_for in_host sh -c "ss -Htno state established '( sport = :6400 )' | grep -q 'timer:(keepalive'" ||
	{ in_host ss -Htno state established; fail "accepted host socket: no keepalive timer"; }
wait $kp || { cat "$WORK/ka_in.out"; fail "remote -> namespace: the namespace's keepalives unanswered"; }
log "remote -> namespace: $(cat "$WORK/ka_in.out")"
pasta_alive
pass "keepalives answered both ways, idle connections stay up, accepted socket keeps alive"
