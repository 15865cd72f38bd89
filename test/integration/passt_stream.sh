#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_stream.sh - passt mode with a client that speaks the stream framing
# itself (passt_client.py, no QEMU): DHCP lease with the host's values and
# with -a -n -g -M -m -D -S, --no-dhcp-dns/--no-dhcp-search, ARP, a TCP
# download (also with a reader that stalls, so writes come up short),
# frames split across writes and several per write, malformed lengths,
# flows closed when a client goes, -1, -F, the default socket path with
# daemonizing, the pid file and the switch to nobody, libvirt's argument
# set with -t, a socket path that can't be bound.
# asan: yes
. "$(dirname "$0")/lib.sh"

CL="python3 $(dirname "$0")/passt_client.py"
TT="python3 $(dirname "$0")/tcptool.py"
GW4=$R4		# the guest's gateway: H's default route

setup_topology
SD=$WORK/s
mkdir -m 1777 "$SD"	# like /tmp: nobody may remove its own socket here

bg in_host $TT serve-pattern 8081 --bind 127.0.0.1
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:8081 '" || fail "server"

# client CMD SOCK ARGS... - run the client in H, output in $WORK/out
client() {
	in_host $CL "$@" >"$WORK/out" 2>&1 || { cat "$WORK/out"; cat "$WORK/passt.log"; fail "client $1"; }
}
# val KEY - value printed by the last client run
val() { sed -n "s/^$1 //p" "$WORK/out" | head -n 1; }
expect() { # KEY VALUE
	[ "$(val "$1")" = "$2" ] || { cat "$WORK/out"; fail "$1 is '$(val "$1")', expected '$2'"; }
}
alive() { kill -0 "$PASST_PID" 2>/dev/null || { cat "$WORK/passt.log"; fail "passt died"; }; }

# 1. Values copied from the host (H: 198.51.100.1/24 via 198.51.100.2)
S=$SD/p.sock
start_passt "$S"
client lease "$S"
expect address $H4
expect mask 255.255.255.0
expect router $GW4
expect mtu 65520
expect server_mac 9a:55:9a:55:9a:55
client arp "$S" $GW4
expect arp 9a:55:9a:55:9a:55
log "lease and ARP with the host's values"

# 2. TCP through the gateway address to the host's loopback
client tcp "$S" $GW4 8081 small 100000
grep -q "sha256 ok" "$WORK/out" || fail "small download"
client slow "$S" $GW4 8081 slow 4000000
expect gaps 0
kill -USR1 "$PASST_PID"
wait_for grep -q "stream short writes" "$WORK/passt.log" || fail "no stats"
short=$(sed -n 's/.*stream short writes \([0-9]*\).*/\1/p' "$WORK/passt.log" | tail -n 1)
[ "${short:-0}" -gt 0 ] || fail "the slow reader caused no short write"
log "downloads intact, $short short writes resumed without gaps"

# 3. Framing: several frames per write, a frame a byte at a time
client split "$S" $GW4
log "split and batched frames"

# 4. Malformed lengths drop the connection; passt serves the next client
for len in 0 13 65550 0x7fffffff 0xffffffff; do
	client bad "$S" $len $GW4
	alive
done
client lease "$S"
expect address $H4
log "bad lengths drop only that client"

# 5. A client's flows close when it goes
bg in_host $CL hold "$S" $GW4 8081 >"$WORK/hold" 2>&1
HOLD=$BG_PID
wait_for grep -q holding "$WORK/hold" || { cat "$WORK/hold"; fail "hold"; }
in_host ss -tn state established "( dport = :8081 )" | grep -q 8081 ||
	fail "no connection to the host server"
kill $HOLD
wait_for sh -c "! ip netns exec $H ss -tn state established '( dport = :8081 )' | grep -q 8081" ||
	fail "connection of a gone client still open"
client lease "$S"
log "flows closed with their client, next client served"
stop_passt
[ ! -e "$S" ] || fail "socket file left after exit"
# Started as root: runs as nobody (conf: --runas default)
grep -q "running as UID 65534" "$WORK/passt.log" || fail "no switch to nobody"

# 6. Overrides, then --no-dhcp-dns --no-dhcp-search
start_passt "$S" -a 203.0.113.5 -n 24 -g 203.0.113.1 -M 02:00:00:aa:bb:cc \
	-m 1400 -D 203.0.113.53 -S example.org
client lease "$S"
expect address 203.0.113.5
expect mask 255.255.255.0
expect router 203.0.113.1
expect dns 203.0.113.53
expect mtu 1400
expect server_mac 02:00:00:aa:bb:cc
# RFC 1035 section 3.1 encoding of example.org, as option 119 (RFC 3397)
expect search 076578616d706c65036f726700
stop_passt
start_passt "$S" -D 203.0.113.53 -S example.org --no-dhcp-dns --no-dhcp-search
client lease "$S"
expect dns none
expect search none
stop_passt
log "-a -n -g -M -m -D -S and --no-dhcp-dns --no-dhcp-search"

# 7. -1: exit when the client goes, socket removed
start_passt "$S" -1
client lease "$S"
wait_for sh -c "! kill -0 $PASST_PID" || fail "-1: still running"
wait $PASST_PID; rc=$?
[ $rc -eq 0 ] || fail "-1: exit status $rc"
[ ! -e "$S" ] || fail "-1: socket file left"
log "--one-off"

# 8. -F: an already connected socket
in_host $CL withfd $GW4 "$PASST_BIN" -f -d -F "{fd}" >"$WORK/out" 2>&1 ||
	{ cat "$WORK/out"; fail "-F"; }
expect exit 0
expect address $H4
log "-F"

# 8b. -F with a descriptor that is not a connected stream socket: refused
for k in udp listen dgram unconnected; do
	in_host python3 - "$PASST_BIN" "$k" >"$WORK/out" 2>&1 <<'EOF' ||
import socket, subprocess, sys
k = sys.argv[2]
if k == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
elif k == "listen":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0passt-stream-test-%d" % id(s))
    s.listen(1)
elif k == "dgram":
    s = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0]
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
fd = s.fileno()
p = subprocess.run([sys.argv[1], "-f", "-F", str(fd)], pass_fds=[fd],
                   stderr=subprocess.PIPE, timeout=5)
want = b"passt: -F/--fd: %d is not a connected stream socket\n" % fd
if p.returncode != 1 or p.stderr != want:
    print(p.returncode, p.stderr)
    sys.exit(1)
EOF
		{ cat "$WORK/out"; fail "-F with a $k socket"; }
done
log "-F: UDP, listening, datagram and unconnected sockets refused"

# 9. Default path, daemon, pid file; the path is printed before detaching
in_host "$PASST_BIN" -P "$WORK/pid" >"$WORK/start.log" 2>&1 ||
	{ cat "$WORK/start.log"; fail "daemon start"; }
DS=$(sed -n 's/.*socket bound at \(\/tmp\/passt_[0-9]*\.socket\).*/\1/p' "$WORK/start.log")
[ -n "$DS" ] || { cat "$WORK/start.log"; fail "no /tmp/passt_N.socket printed"; }
PASST_PID=$(cat "$WORK/pid")	# there as soon as the command returns
track $PASST_PID
kill -0 "$PASST_PID" || fail "no process $PASST_PID from the pid file"
[ -S "$DS" ] || fail "$DS missing"
# Another suite running at the same time may bind the same default path
# once ours is gone: only this socket's own inode must be gone
DS_INO=$(stat -c %i "$DS")
wait_for grep -q "^Uid:.*65534" "/proc/$PASST_PID/status" || fail "daemon not nobody"
client lease "$DS"
expect address $H4
kill $PASST_PID
wait_for sh -c "! kill -0 $PASST_PID" || fail "daemon did not exit"
[ ! -e "$DS" ] || [ "$(stat -c %i "$DS" 2>/dev/null)" != "$DS_INO" ] ||
	fail "$DS left after exit"
log "daemon on $DS"

# 9b. Started as an ordinary user: no privileges needed
ip netns exec "$H" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$PASST_BIN" -f -d -s "$SD/user.sock" >"$WORK/passt.log" 2>&1 &
PASST_PID=$!
track $PASST_PID
wait_for test -S "$SD/user.sock" || { cat "$WORK/passt.log"; fail "unprivileged start"; }
client tcp "$SD/user.sock" $GW4 8081 user 100000
grep -q "sha256 ok" "$WORK/out" || fail "unprivileged download"
stop_passt
[ ! -e "$SD/user.sock" ] || fail "unprivileged: socket file left"
log "runs as an ordinary user"

# 10. A path that can't be bound is an error now, not a silent daemon
if in_host "$PASST_BIN" -s "$WORK/no/such/dir/sock" >"$WORK/err" 2>&1; then
	fail "unbindable path accepted"
fi
grep -q "no/such/dir/sock" "$WORK/err" || { cat "$WORK/err"; fail "no message"; }
start_passt "$S"
if in_host "$PASST_BIN" -s "$S" >"$WORK/err" 2>&1; then
	fail "path in use accepted"
fi
stop_passt
# A forwarded port that can't be bound: error, and no socket file left
if in_host "$PASST_BIN" -s "$SD/t.sock" -t 127.0.0.1/8081 >"$WORK/err" 2>&1; then
	fail "-t on a port in use accepted"
fi
[ ! -e "$SD/t.sock" ] || fail "socket file left by a failed start"
# A stale socket file is taken over, a regular file is never removed
python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('$S')"
start_passt "$S"
stop_passt
echo keep > "$SD/file"
if in_host "$PASST_BIN" -f -s "$SD/file" >"$WORK/err" 2>&1; then
	fail "regular file used as socket path"
fi
[ "$(cat "$SD/file")" = keep ] || fail "regular file replaced"
log "unbindable paths rejected at start, stale socket taken over"

# 11. libvirt's argument set (no -f: it daemonizes), inbound with -t
in_host "$PASST_BIN" --one-off --socket "$S" --mac-addr 02:00:00:00:00:99 \
	--mtu 1400 --interface h0 --log-file "$WORK/lv.log" \
	--address $H4 --netmask 24 --address $H6 -t 8090 -u 8091 \
	--pid "$WORK/lv.pid" >"$WORK/err" 2>&1 || { cat "$WORK/err"; fail "libvirt args"; }
PASST_PID=$(cat "$WORK/lv.pid")
track $PASST_PID
passt_expect_syn "$S" 8090 "$WORK/lv.log"
grep -q "mtu 1400" "$WORK/syn" || { cat "$WORK/syn"; fail "--mtu"; }
grep -q "server_mac 02:00:00:00:00:99" "$WORK/syn" || fail "--mac-addr"
wait_for sh -c "! kill -0 $PASST_PID" || fail "--one-off daemon still running"
[ ! -e "$S" ] || fail "socket left"
[ -s "$WORK/lv.log" ] || fail "--log-file empty"
grep -q "^template interface: h0" "$WORK/lv.log" ||
	{ cat "$WORK/lv.log"; fail "--log-file lacks the start-up lines"; }
log "libvirt arguments"

pass "passt stream mode"
