#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vhost_migrate_qemu10.sh - Live migration of a guest on passt --vhost-user
# between two QEMU 10 instances (TCG), each with its own passt in H: the
# guest takes a DHCP lease and fetches a small file from H's loopback
# every few seconds (short connections).  First, with a connection from R
# to the guest held open (-t, a stalled download) and no passt-repair
# connected to the source, QMP "migrate" must fail: ours can't move open
# TCP connections without the helper and refuses before the guest leaves,
# so the guest must go on running on the source, its fetches and that
# download intact.  Then passt-repair connects, a second download from R is
# held open half-way (its client stops reading: the host socket's send
# queue holds the rest) and QMP "migrate" to the destination (started with
# -incoming, again if the failed attempt ended it); the source passt must
# have sent its device state with that connection, the destination passt
# loaded it and rebuilt the connection, QEMU must report "completed", the
# download must finish through the destination passt with the guest's
# sha256, and the guest's next fetches, now through the destination passt,
# must arrive intact (sha256), each a new connection of passt B's (its
# log).  The guest also holds a download of its own open across the move:
# from boot it fetches 2 MiB from a server in H through the gateway (port
# 8082), which sends 256 KiB and then nothing until the migration is over;
# the rest must arrive through passt B with the host's sha256.  And a
# connection the guest opens just before the move is still in its
# handshake at it: the guest's SYN to the gateway's port 8083 finds the
# server's port unreachable (nftables drops passt's SYNs in H) until the
# destination runs; the guest sends it again, to passt B, which must serve
# it (sha256).  Both passts share H, as a cluster's nodes
# share addresses: the source runs with --migrate-no-linger (its sockets
# and -t listeners must be gone before the destination binds the same
# ones), and the download's segments are held back (nftables) from the
# migration until the destination runs, as a cluster's network does while
# it switches.  After the migration both passts close their helper's
# connection (status 0, as upstream), and the source, started with
# --migrate-exit, exits with status 0.
#
# QEMU 10.0 or later is needed (QEMU10_DIR: make qemu10); the guests,
# QMP and passt-repair come from lib_migrate.sh.
#
# MIG_SRC_BIN or MIG_DST_BIN run another passt (upstream's, built from its
# tree) as the source or the destination, for interoperability; the checks
# of our own log lines, and the refused migration, are then left out for
# that side.  MIG_SRC_ARGS adds options to the source (--upstream-features,
# which a guest that moves to upstream's passt needs).
# opt-in: make check-migrate (fetches QEMU 10 into build/qemu10, about 1 minute)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_migrate.sh"

mig_init
GW4=$R4
SRC_BIN=${MIG_SRC_BIN:-$PASST_BIN}
DST_BIN=${MIG_DST_BIN:-$PASST_BIN}
SRC_OURS=1; [ "$SRC_BIN" = "$PASST_BIN" ] || SRC_OURS=0
DST_OURS=1; [ "$DST_BIN" = "$PASST_BIN" ] || DST_OURS=0

setup_topology
mkdir -p "$WORK/www" "$WORK/run"
head -c 262144 /dev/urandom > "$WORK/www/small"
want=$(sum "$WORK/www/small")
head -c 2097152 /dev/urandom > "$WORK/out"
want_out=$(sum "$WORK/out")
for port in 8080 8083; do
	( cd "$WORK/www" && exec ip netns exec "$H" python3 -m http.server $port --bind :: ) \
		>/dev/null 2>&1 &
	track $!
	wait_for in_host sh -c "ss -ltn | grep -q ':$port '" || fail "http server $port"
done
# The guest's own download, held: 256 KiB, then the rest once
# $WORK/go_out exists
cat > "$WORK/outsrv.py" <<EOP
import os, socket, time
l = socket.socket(socket.AF_INET6)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("::", 8082))
l.listen(4)
d = open("$WORK/out", "rb").read()
while True:
    c, a = l.accept()
    c.recv(4096)
    c.sendall(b"HTTP/1.0 200 OK\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(d))
    c.sendall(d[:262144])
    print("held", a, flush=True)
    while not os.path.exists("$WORK/go_out"):
        time.sleep(0.1)
    c.sendall(d[262144:])
    c.close()
    print("sent", flush=True)
EOP
( exec ip netns exec "$H" python3 "$WORK/outsrv.py" ) > "$WORK/outsrv.log" 2>&1 &
track $!
wait_for in_host sh -c "ss -ltn | grep -q ':8082 '" || fail "out server"

cat > "$WORK/run/run.sh" <<EOS
#!/bin/sh
mkdir -p /www
dd if=/dev/urandom of=/www/big bs=1024 count=512 2>/dev/null
sha256sum /www/big | sed 's/^/GUEST big /'
httpd -p 8081 -h /www
ip link set eth0 up
udhcpc -i eth0 -f -q -n -t 10 -T 2 -O mtu -s /etc/udhcpc/script ||
	echo "GUEST udhcpc failed"
( if timeout 600 wget -q -O /tmp/out http://$GW4:8082/out; then
	echo "GUEST out \$(wc -c < /tmp/out) \$(sha256sum /tmp/out | cut -d' ' -f1)"
  else
	echo "GUEST out failed"
  fi ) &
i=0
while [ \$i -lt 1000 ]; do
	if [ ! -e /tmp/syn_started ] &&
	   timeout 20 wget -q -O /tmp/synflag http://$GW4:8080/syn; then
		touch /tmp/syn_started
		echo "GUEST syn started"
		( if timeout 300 wget -q -O /tmp/s3 http://$GW4:8083/small; then
			echo "GUEST syn \$(wc -c < /tmp/s3) \$(sha256sum /tmp/s3 | cut -d' ' -f1)"
		  else
			echo "GUEST syn failed"
		  fi ) &
	fi
	if timeout 20 wget -q -O /tmp/s http://$GW4:8080/small; then
		echo "GUEST fetch \$i \$(wc -c < /tmp/s) \$(sha256sum /tmp/s | cut -d' ' -f1)"
	else
		echo "GUEST fetch \$i failed"
	fi
	i=\$((i + 1))
	sleep 4
done
EOS
chmod 755 "$WORK/run/run.sh"
mig_initrd

mkdir -m 1777 "$WORK/s"
SA=$WORK/s/a.sock
SB=$WORK/s/b.sock
OURS=$PASST_BIN
PASST_BIN=$SRC_BIN
start_passt "$SA" --vhost-user -t 8081 --migrate-exit --migrate-no-linger \
	${MIG_SRC_ARGS:-}
PASST_BIN=$OURS
PA=$PASST_PID
mig_passt "$DST_BIN" "$SB" "$WORK/passtB.log" || fail "passt B"
REPAIR=$(dirname "$PASST_BIN")/passt-repair
# helper_a - passt-repair for the source (ours: after the refusal, which
# is the one without it)
helper_a() {
	mig_helper "$REPAIR" "$SA" "$WORK/passt.log" || fail "helper A"
	RA=$BG_PID
}
[ $SRC_OURS = 1 ] || helper_a
mig_helper "$REPAIR" "$SB" "$WORK/passtB.log" || fail "helper B"
RB=$BG_PID

show() {
	for n in A B; do echo "--- console $n"; tr -d '\r' < "$WORK/console.$n"; done
	echo "--- passt A"; tail -n 30 "$WORK/passt.log"
	echo "--- passt B"; tail -n 30 "$WORK/passtB.log"
}

mig_qemu A "$SA"
QA=$BG_PID
mig_qemu B "$SB" -incoming "unix:$WORK/mig.sock"
QB=$BG_PID
WAIT_S=120 wait_for grep -q "^GUEST fetch 1 " "$WORK/console.A" ||
	{ show; fail "guest on A: no fetches"; }
got=$(sed -n 's/^GUEST fetch 1 //p' "$WORK/console.A" | tr -d '\r')
[ "$got" = "262144 $want" ] || { show; fail "fetch on A: '$got'"; }
log "guest on A fetches through passt A (ours: source $SRC_OURS, destination $DST_OURS)"
# A connection from R to the guest, held open: its client reads 16 KiB of
# the response, then nothing until the file named by its argument exists,
# then the rest
cat > "$WORK/hold.py" <<EOP
import hashlib, os, socket, sys, time
s = socket.create_connection(("$H4", 8081), timeout=60)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
s.sendall(b"GET /big HTTP/1.0\\r\\n\\r\\n")
d = b""
while len(d) < 16384:
    c = s.recv(16384 - len(d))
    if not c:
        break
    d += c
print("held", flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.1)
while True:
    c = s.recv(65536)
    if not c:
        break
    d += c
body = d.split(b"\\r\\n\\r\\n", 1)[1]
print(len(body), hashlib.sha256(body).hexdigest())
EOP
if [ $SRC_OURS = 1 ]; then
bg in_remote python3 "$WORK/hold.py" "$WORK/go" > "$WORK/big.out" 2>&1
CURL=$BG_PID
WAIT_S=30 wait_for grep -q "flow .* TCP .*:8081.*established" "$WORK/passt.log" ||
	{ show; fail "no connection to the guest"; }
mig_migrate A "unix:$WORK/mig.sock" 600 || { show; fail "QEMU won't migrate: $MIG_R"; }
st=$MIG_ST
[ "$st" = failed ] || { show; fail "migration with an open connection: '$st'"; }
grep -q "migration refused: [0-9]* TCP connections* open" "$WORK/passt.log" ||
	{ show; fail "passt A did not refuse"; }
log "migration with a connection open: $st ($(mig_qmp A query-migrate | cut -c1-200))"
mig_running A 300 ||
	{ mig_qmp A query-status; show; fail "source not running after the refusal"; }
n0=$(grep -c "^GUEST fetch" "$WORK/console.A")
WAIT_S=60 wait_for sh -c "[ \$(grep -c '^GUEST fetch' '$WORK/console.A') -ge $((n0 + 2)) ]" ||
	{ show; fail "guest on A: no fetches after the refusal"; }
touch "$WORK/go"
wait "$CURL" || { cat "$WORK/big.out"; show; fail "download from the guest broke"; }
want_big=$(sed -n 's/^GUEST big \([0-9a-f]*\).*/\1/p' "$WORK/console.A" | tr -d '\r')
[ "$(tail -n 1 "$WORK/big.out")" = "524288 $want_big" ] ||
	{ cat "$WORK/big.out"; show; fail "download from the guest differs"; }
log "refused cleanly: the guest runs on A, fetches and the 512 KiB download intact"
# ensure_b - a destination QEMU waiting for the migration (a failed one
# ends it)
ensure_b() {
	if ! kill -0 "$QB" 2>/dev/null; then
		log "destination QEMU ended with the failed migration: started again"
		rm -f "$WORK/mig.sock" "$WORK/qmp.B"
		: > "$WORK/console.B"
		mig_qemu B "$SB" -incoming "unix:$WORK/mig.sock"
		QB=$BG_PID
	fi
	# upstream's passt lets its helper go when the front-end leaves
	if ! kill -0 "$RB" 2>/dev/null; then
		wait "$RB"
		mig_helper "$REPAIR" "$SB" "$WORK/passtB.log" || fail "helper B again"
		RB=$BG_PID
	fi
	i=0
	until [ -S "$WORK/mig.sock" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
}
sleep 1
ensure_b
helper_a
fi

# The connection that moves: a download from R held half-way, its
# segments held back from the migration until the destination runs
bg in_remote python3 "$WORK/hold.py" "$WORK/go2" > "$WORK/big2.out" 2>&1
MOVE=$BG_PID
WAIT_S=60 wait_for grep -q held "$WORK/big2.out" ||
	{ show; fail "no download to move"; }
# MIG_CONNS=N (for timings, not a check of its own): N more downloads
# from R held open from their start, moved too
if [ "${MIG_CONNS:-0}" -gt 0 ]; then
	cat > "$WORK/many.py" <<EOP
import socket, sys, time
ss = []
for i in range(int(sys.argv[1])):
    s = socket.create_connection(("$H4", 8081), timeout=60)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"GET /big HTTP/1.0\\r\\n\\r\\n")
    ss.append(s)
print("open", len(ss), flush=True)
time.sleep(600)
EOP
	bg in_remote python3 "$WORK/many.py" "$MIG_CONNS" > "$WORK/many.out" 2>&1
	track $BG_PID
	WAIT_S=120 wait_for grep -q open "$WORK/many.out" ||
		{ cat "$WORK/many.out"; show; fail "$MIG_CONNS connections"; }
fi
# A connection the guest opens now, still in its handshake at the move:
# passt's SYNs to port 8083 are dropped until the destination runs
in_host nft -f - <<EON || fail "nft"
table inet migsyn {
	chain out { type filter hook output priority 0; tcp dport 8083 drop; }
}
EON
echo go > "$WORK/www/syn"
WAIT_S=60 wait_for grep -q "^GUEST syn started" "$WORK/console.A" ||
	{ show; fail "the guest didn't open its connection to 8083"; }
WAIT_S=30 wait_for grep -q "^held" "$WORK/outsrv.log" ||
	{ show; fail "the guest's own download isn't held open"; }
sleep 2
in_host nft -f - <<EON || fail "nft"
table inet mig {
	chain in { type filter hook input priority 0; tcp dport 8081 drop; }
	chain out { type filter hook output priority 0; tcp sport 8081 drop; }
}
EON

tries=0; st=""
while [ $tries -lt 10 ]; do
	tries=$((tries + 1))
	mig_migrate A "unix:$WORK/mig.sock" 1200 || { show; fail "QEMU won't migrate: $MIG_R"; }
	st=$MIG_ST
	[ "$st" = completed ] && break
	log "migration try $tries: $st ($(mig_qmp A query-migrate))"
	[ $SRC_OURS = 1 ] || break
	[ "$(grep -c "migration refused" "$WORK/passt.log")" -gt 1 ] || break
	sleep 1
	ensure_b
done
mig_qmp A query-migrate > "$WORK/qm.json"
log "migration: $(cat "$WORK/qm.json")"
[ "$st" = completed ] || { show; fail "migration $st after $tries tries"; }
# the destination runs: the guest's SYNs to 8083 get through from now on
in_host nft delete table inet migsyn
if [ $SRC_OURS = 1 ]; then
	grep -q "device state sent" "$WORK/passt.log" || { show; fail "passt A sent no state"; }
fi
if [ $DST_OURS = 1 ]; then
	WAIT_S=30 wait_for grep -q "device state loaded" "$WORK/passtB.log" ||
		{ show; fail "passt B loaded no state"; }
	log "passt B: $(grep -m1 'migration: guest' "$WORK/passtB.log")"
fi
mig_running B 300 || { mig_qmp B query-status; show; fail "destination not running"; }
n0=$(grep -c "^GUEST fetch" "$WORK/console.B" || true)
WAIT_S=60 wait_for sh -c "[ \$(grep -c '^GUEST fetch' '$WORK/console.B') -ge $((n0 + 2)) ]" ||
	{ show; fail "guest on B: no fetches after the migration"; }
tr -d '\r' < "$WORK/console.B" | grep "^GUEST fetch" | tail -n 2 |
	while read -r _ _ i len s; do
		[ "$len $s" = "262144 $want" ] || fail "fetch $i on B: '$len $s'"
	done || { show; fail "fetch on B differs"; }
log "after migration the guest fetches through passt B, intact"
if [ $DST_OURS = 1 ]; then
	nb=$(grep -c "flow .* TCP .*:8080.*established" "$WORK/passtB.log" || true)
	[ "$nb" -ge 1 ] || { show; fail "passt B served no new connection to 8080"; }
	log "passt B served $nb new connection(s) to port 8080"
fi
WAIT_S=150 wait_for grep -q "^GUEST syn [0-9f]" "$WORK/console.B" ||
	{ show; fail "the guest's connection in its handshake at the move: not served by passt B"; }
got=$(sed -n 's/^GUEST syn //p' "$WORK/console.B" | tr -d '\r')
[ "$got" = "262144 $want" ] || { show; fail "the connection opened during the move: '$got'"; }
if [ $DST_OURS = 1 ]; then
	grep -q "flow .* TCP .*:8083.*established" "$WORK/passtB.log" ||
		{ show; fail "passt B has no connection to 8083"; }
fi
if [ $SRC_OURS = 1 ]; then
	# the guest's SYN to 8083, and any fetch of its loop that happens to
	# be in its handshake too
	grep -q ":8083: closing (migrated in the handshake)" "$WORK/passt.log" &&
	grep -q "migration: [1-9][0-9]* TCP connections\{0,1\} in the handshake reset" "$WORK/passt.log" ||
		{ show; fail "passt A had no connection in its handshake at the move: not exercised"; }
fi
log "the guest's SYN in flight at the move was sent again and served by passt B, sha256 intact"
touch "$WORK/go_out"
WAIT_S=60 wait_for grep -q "^GUEST out [0-9f]" "$WORK/console.B" ||
	{ show; cat "$WORK/outsrv.log"; fail "the guest's own download didn't finish on B"; }
got=$(sed -n 's/^GUEST out //p' "$WORK/console.B" | tr -d '\r')
[ "$got" = "2097152 $want_out" ] || { show; fail "the guest's own download: '$got'"; }
log "the guest's own download (guest to host, through the gateway) held across the move finished through passt B, sha256 intact"
in_host nft delete table inet mig
touch "$WORK/go2"
wait "$MOVE" || { cat "$WORK/big2.out"; show; fail "the moved download broke"; }
want_big=$(sed -n 's/^GUEST big \([0-9a-f]*\).*/\1/p' "$WORK/console.A" | tr -d '\r')
[ "$(tail -n 1 "$WORK/big2.out")" = "524288 $want_big" ] ||
	{ cat "$WORK/big2.out"; show; fail "the moved download differs"; }
if [ $SRC_OURS = 1 ]; then
	grep -q "migration: [1-9][0-9]* TCP connections\{0,1\} handed over" "$WORK/passt.log" ||
		{ show; fail "passt A handed over no connection"; }
	log "passt A: $(grep -m1 'TCP connections\{0,1\} handed over' "$WORK/passt.log")"
fi
if [ $DST_OURS = 1 ]; then
	grep -q "migration: [1-9][0-9]* of [0-9]* TCP connections\{0,1\} restored" "$WORK/passtB.log" ||
		{ show; fail "passt B restored no connection"; }
	log "passt B: $(grep -m1 'TCP connections\{0,1\} restored' "$WORK/passtB.log")"
fi
log "the download held open across the migration finished through passt B, sha256 intact"
wait "$RA" || fail "helper A: status $? (0: closed by passt A)"
wait "$RB" || fail "helper B: status $? (0: closed by passt B)"
grep -qi "migration complete, exiting" "$WORK/passt.log" || fail "passt A: no --migrate-exit"
wait "$PA"; st=$?
[ $st = 0 ] || fail "passt A (--migrate-exit) exited with $st"
PASST_PID=""
log "both helpers let go with status 0; passt A exited with 0 (--migrate-exit)"
kill "$QA" "$QB" 2>/dev/null
pass "live migration over passt --vhost-user, QEMU 10, $tries tries"
