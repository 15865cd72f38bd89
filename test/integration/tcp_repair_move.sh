#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_repair_move.sh - A live TCP connection moved to a new socket with
#			passt's TCP_REPAIR dump and restore, and passt-repair
#
# tcp_repair_move.c, in H, holds a connection to a peer in R over the veth,
# with data going both ways at once (the peer reads slowly, so our send
# queue is full; we stop reading for a while, so our receive queue is).
# Half-way, its segments are held back by nftables in H (as a cluster's
# network does while the VM moves), and the socket is switched to TCP_REPAIR
# by passt-repair, dumped (passt/tcp_repair.c), its record encoded and
# decoded (passt/tcp_migrate.c), closed, rebuilt on a new socket, taken out
# of repair mode; the segments flow again.  Both streams must arrive whole:
# sha256 of each file against what the other end received, for IPv4 and for
# IPv6, with both queues non-empty at the move.  Then 1000 idle loopback
# connections are moved at once (the helper gets 253 sockets per message)
# and each must carry a byte both ways after it; the times of the steps are
# logged.  Then the closing states (RFC 9293 3.3.2; kernel numbers from
# include/net/tcp_states.h), IPv4: FIN-WAIT-1 (4) with the last 48 KiB of
# our stream and our FIN unacknowledged at the move (held back), CLOSE-WAIT
# (8) with half of a 96 KiB stream and the peer's FIN unread, and LAST-ACK
# (9), both at once, and FIN-WAIT-2 (5: our FIN acknowledged, the peer
# still sending).  Each byte must arrive once (sha256 on both sides), and
# each FIN after the last one: the peer's reader ends, and so does ours
# (the rebuilt socket doesn't hold the peer's FIN: we end at the queue's
# end, as passt does).  No QEMU, no passt process: the code that moves a
# guest's connections, on its own.
# asan: no
. "$(dirname "$0")/lib.sh"

REPAIR=$(dirname "$PASST_BIN")/passt-repair
[ -x "$REPAIR" ] || fail "no $REPAIR (make builds it)"
command -v nft >/dev/null || skip "no nft"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
${CC:-cc} -O2 -D_GNU_SOURCE -Wall -Wextra -o "$WORK/move" \
	"$SRC/test/integration/tcp_repair_move.c" "$SRC/passt/tcp_repair.c" \
	"$SRC/passt/tcp_migrate.c" || fail "can't build tcp_repair_move.c"
setup_topology
make_file "$WORK/up.big" 6
make_file "$WORK/down.big" 12
head -c 98304 /dev/urandom > "$WORK/up.small"
head -c 98304 /dev/urandom > "$WORK/down.small"

cat > "$WORK/peer.py" <<'EOF'
import socket, sys, time, select
fam = socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET
l = socket.socket(fam, socket.SOCK_STREAM)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
l.bind((sys.argv[1], int(sys.argv[2])))
l.listen(1)
print("listening", flush=True)
c, _ = l.accept()
down = open(sys.argv[3], 'rb').read()
out = open(sys.argv[4], 'wb')
off, eof, end = 0, False, time.time() + 120
c.setblocking(False)
while (not eof or off < len(down)) and time.time() < end:
    w = [c] if off < len(down) else []
    r, w, _ = select.select([c] if not eof else [], w, [], 0.01)
    if w:
        try:
            off += c.send(down[off:off + 32768])  # at most 32 KiB per 10 ms
        except BlockingIOError:
            pass
        if off == len(down):
            c.shutdown(socket.SHUT_WR)
    if r:
        d = c.recv(16384)    # slowly: at most 16 KiB per 10 ms
        if not d:
            eof = True
        out.write(d)
    time.sleep(0.01)
out.close()
print("peer done" if eof and off == len(down) else "peer timeout", flush=True)
EOF

# move NAME PEER_ADDR PORT [STATE UP DOWN MOVE_FIN] - STATE: the kernel's
# state at the move (default 1, ESTABLISHED, with both queues non-empty),
# UP and DOWN: big or small
move() {
	st_want=${4:-1}
	cp "$WORK/up.${5:-big}" "$WORK/up"
	cp "$WORK/down.${6:-big}" "$WORK/down"
	rm -f "$WORK/r.sock" "$WORK/ctl" "$WORK/down.rx" "$WORK/up.rx"
	in_remote python3 "$WORK/peer.py" "$2" "$3" "$WORK/down" \
		"$WORK/up.rx" > "$WORK/peer.$1" 2>&1 &
	pp=$!
	track $pp
	wait_for grep -q listening "$WORK/peer.$1" || fail "$1: peer"
	mkfifo "$WORK/ctl"
	MOVE_FIN=${7:-} in_host "$WORK/move" "$REPAIR" "$WORK" "$2" "$3" "$WORK/up" \
		"$WORK/down" < "$WORK/ctl" > "$WORK/move.$1" 2>&1 &
	mp=$!
	track $mp
	exec 3> "$WORK/ctl"
	wait_for grep -q '^hold' "$WORK/move.$1" || { cat "$WORK/move.$1"; fail "$1: no hold"; }
	# our segments leave (they count as sent) and are lost on the way
	in_host nft -f - <<EOF || fail "nft"
table inet rmove {
	chain in { type filter hook input priority 0; tcp sport $3 drop; }
}
EOF
	in_remote nft -f - <<EOF || fail "nft"
table inet rmove {
	chain in { type filter hook input priority 0; tcp dport $3 drop; }
}
EOF
	echo g >&3
	wait_for grep -q '^restored' "$WORK/move.$1" || { cat "$WORK/move.$1"; fail "$1: not restored"; }
	in_host nft delete table inet rmove
	in_remote nft delete table inet rmove
	echo g >&3
	exec 3>&-
	st=0
	wait $mp || st=$?
	wait $pp
	cat "$WORK/move.$1" "$WORK/peer.$1"
	grep -q "peer done" "$WORK/peer.$1" || fail "$1: the peer didn't get our whole stream and its end"
	[ $st = 0 ] || fail "$1: tcp_repair_move exited with $st"
	grep -q '^done' "$WORK/move.$1" || fail "$1: transfer not done"
	line=$(grep '^moved' "$WORK/move.$1")
	set -- "$1" $line
	# moved state S sndq N notsent N rcvq N ...
	[ "$4" = "$st_want" ] || fail "$1: state $4, not $st_want"
	case $st_want in 1|4|9)
	[ "$6" -gt 0 ] || fail "$1: send queue empty at the move: test not exercised" ;;
	esac
	case $st_want in 1|8|9)
	[ "${10}" -gt 0 ] || fail "$1: receive queue empty at the move: test not exercised" ;;
	esac
	[ "$(sum "$WORK/down.rx")" = "$(sum "$WORK/down")" ] ||
		fail "$1: peer-to-us stream: sha256 differs ($(stat -c %s "$WORK/down.rx") bytes)"
	[ "$(sum "$WORK/up.rx")" = "$(sum "$WORK/up")" ] ||
		fail "$1: us-to-peer stream: sha256 differs ($(stat -c %s "$WORK/up.rx") bytes)"
	log "$1: moved with sndq $6 (notsent $8), rcvq ${10}: both streams whole"
}

move ipv4 $R4 40001
move ipv6 $R6 40002
move fin-wait-1 $R4 40003 4 small big w
move close-wait $R4 40004 8 big small r
move last-ack $R4 40005 9 small small rw
move fin-wait-2 $R4 40006 5 small big r2

# 1000 idle loopback connections moved at once, repair mode switched 253
# sockets per message: each must carry a byte both ways afterwards
rm -f "$WORK/r.sock"
# shellcheck disable=SC3045 # ulimit -n: dash and bash both have it
out=$( (ulimit -n 8192 && MOVE_N=1000 in_host "$WORK/move" --scale "$REPAIR" "$WORK") 2>&1) ||
	fail "1000 connections: $out"
echo "$out"
case "$out" in *"scale 1000 "*" broken 0") ;; *) fail "1000 connections: $out" ;; esac
log "1000 connections moved in $(echo "$out" | sed 's/.*total_us \([0-9]*\).*/\1/') us"
pass "connections survive a TCP_REPAIR dump and restore, both ways, v4 and v6, in FIN-WAIT-1/2, CLOSE-WAIT and LAST-ACK, and 1000 at once"
