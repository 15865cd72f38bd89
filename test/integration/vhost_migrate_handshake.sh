#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vhost_migrate_handshake.sh - A migration source ends the TCP connections
#			       still in their handshake with the guest
#
# passt --vhost-user -t 8081 with vhosttool.py as its front-end, which
# negotiates DEVICE_STATE, posts no receive buffer (the guest never
# answers anything) and sends one SYN from the guest to the gateway's port
# 8090 (passt connects to the server listening there in H, which accepts:
# passt's SYN-ACK to the guest stays unanswered).  A client in R connects
# to H's port 8081 (passt accepts it and sends its SYN to the guest, which
# stays unanswered too).  Then the front-end saves the device state as a
# migration source's QEMU does (SET_DEVICE_STATE_FD, CHECK_DEVICE_STATE),
# and stays connected, as a paused QEMU does.  Neither connection moves
# (only established ones do, in upstream's stream as in ours): both host
# peers must see an RST at once, not after passt's handshake retries to a
# guest that is gone (SYN_RETRIES: over two minutes), nor never.  Each
# waits 45 s at most.  The guest's side of those (its SYN sent again to
# the destination, served there) is checked by make check-migrate.
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 $(dirname "$0")/vhosttool.py"
setup_topology
mkdir -m 1777 "$WORK/s"
S=$WORK/s/vu.sock
start_passt "$S" --vhost-user -t 8081

# peer.py ROLE - "server": accept one connection on 8090; "client":
# connect to H's 8081; then wait for data, end or reset, and print what
# came and how long after the migration ($WORK/go)
cat > "$WORK/peer.py" <<EOP
import errno, os, socket, sys, time
if sys.argv[1] == "server":
    l = socket.socket()
    l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind(("0.0.0.0", 8090))
    l.listen(1)
    print("listening", flush=True)
    s, _ = l.accept()
    print("accepted", flush=True)
else:
    s = socket.create_connection(("$H4", 8081), timeout=10)
    print("connected", flush=True)
s.settimeout(45)
try:
    d = s.recv(1)
    what = "data" if d else "eof"
except ConnectionResetError:
    what = "reset"
except socket.timeout:
    what = "timeout"
go = "$WORK/go"
after = time.time() - os.stat(go).st_mtime if os.path.exists(go) else -1
print("%s %.1f" % (what, after), flush=True)
EOP

bg in_host python3 "$WORK/peer.py" server > "$WORK/server.out" 2>&1
wait_for grep -q listening "$WORK/server.out" || fail "server"
bg in_host $T "$S" migsave "$WORK/go" "$H4" "$R4" 8090 > "$WORK/fe.out" 2>&1
FE=$BG_PID
wait_for grep -q ready "$WORK/fe.out" || { cat "$WORK/fe.out"; fail "front-end"; }
wait_for grep -q accepted "$WORK/server.out" ||
	{ tail -n 20 "$WORK/passt.log"; fail "the guest's SYN didn't reach the server"; }
bg in_remote python3 "$WORK/peer.py" client > "$WORK/client.out" 2>&1
wait_for grep -q connected "$WORK/client.out" || fail "client"
wait_for grep -q "8081.*\(SYN\|accepted\)\|accepted.*8081" "$WORK/passt.log" || sleep 1
sleep 1
grep -q "^\(eof\|reset\|data\)" "$WORK/server.out" "$WORK/client.out" &&
	fail "a connection ended before the migration: $(cat "$WORK/server.out" "$WORK/client.out")"
touch "$WORK/go"
wait_for grep -q "^saved .* check 0" "$WORK/fe.out" ||
	{ cat "$WORK/fe.out"; tail -n 20 "$WORK/passt.log"; fail "state not saved"; }
WAIT_S=60 wait_for grep -q "^[a-z]* [0-9]" "$WORK/server.out" || fail "server: no outcome"
WAIT_S=60 wait_for grep -q "^[a-z]* [0-9]" "$WORK/client.out" || fail "client: no outcome"
srv=$(tail -n 1 "$WORK/server.out")
cli=$(tail -n 1 "$WORK/client.out")
log "after the migration: host server (guest's connection) $srv s, host client (through -t) $cli s"
grep -q "migration complete" "$WORK/passt.log" || fail "passt: no 'migration complete'"
case "$srv" in reset*) ;; *) fail "host server: '$srv', not reset" ;; esac
case "$cli" in reset*|eof*) ;; *) fail "host client: '$cli', not reset or end" ;; esac
kill "$FE" 2>/dev/null
stop_passt
pass "connections in their handshake at migration: both host peers reset at once"
