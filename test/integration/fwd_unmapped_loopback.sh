#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fwd_unmapped_loopback.sh - passt.1, ADDRESS MAPPING: with --no-map-gw
# (or --map-host-loopback none) loopback traffic of the host can't reach
# the guest.  With --no-splice, a connection from H's 127.0.0.1 or ::1 to
# a -t port is reset (the client sees ECONNRESET, the server in N sees
# nothing) and a datagram from there to a -u port never arrives in N; both
# are counted in --stats.  Controls: the same connection and datagrams from
# R (a real peer, not the gateway) arrive in N from R's address, and without
# --no-splice loopback connections are spliced as before.
# asan: yes
. "$(dirname "$0")/lib.sh"
TCPTOOL="python3 $(dirname "$0")/tcptool.py"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
make_target_ns
in_ns sysctl -q -w net.ipv6.conf.default.autoconf=0

# R's first address is the gateway, which H's loopback would pass for if
# it weren't refused: R's own clients use a second one
ip -n "$R" addr add 198.51.100.3/24 dev r0
ip -n "$R" addr add 2001:db8:1::3/64 dev r0 nodad
RC4=198.51.100.3
RC6=2001:db8:1::3

# Peer recorder for N: one line per TCP connection ("tcp PEER") and per
# datagram ("udp PEER PAYLOAD"), on port 6100 (TCP) and 6101 (UDP), both
# families (dual-stack sockets).  A TCP client's line is answered "hi".
# As "client HOST PORT [SRC]": connect (from SRC), send a line, print the
# answer
cat > "$WORK/rec.py" <<'PY'
import socket, sys, threading
def peer(a):
    h = a[0]
    return h[7:] if h.startswith('::ffff:') else h
def tcp(out):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(('::', 6100)); s.listen(16)
    while True:
        c, a = s.accept()
        out.write('tcp %s\n' % peer(a))
        c.settimeout(5)
        try:
            c.makefile('rb').readline()
            c.sendall(b'hi\n')
            c.shutdown(socket.SHUT_WR)
            c.recv(10)
        except OSError:
            pass
        c.close()
def udp(out):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(('::', 6101))
    while True:
        d, a = s.recvfrom(2048)
        out.write('udp %s %s\n' % (peer(a), d.decode(errors='replace').strip()))
if sys.argv[1] == 'client':
    host, port = sys.argv[2], int(sys.argv[3])
    src = (sys.argv[4], 0) if len(sys.argv) > 4 else None
    c = socket.create_connection((host, port), 10, src)
    c.settimeout(10)
    c.sendall(b'hello\n')
    print(c.makefile('rb').readline().decode().strip())
    sys.exit(0)
out = open(sys.argv[1], 'a', buffering=1)
threading.Thread(target=tcp, args=(out,), daemon=True).start()
udp(out)
PY
bg in_ns timeout 120 python3 "$WORK/rec.py" "$WORK/rec"
wait_for in_ns sh -c "ss -Hltn | grep -q ':6100 '" || fail "recorder in N"

# tcp_ok SOURCE_NS ADDRESS [SRC] - a connection to ADDRESS:6100 (from SRC)
# gets its answer
tcp_ok() {
	[ "$($1 timeout 15 python3 "$WORK/rec.py" client $2 6100 ${3:-})" = hi ] ||
		fail "connection to $2 from ${1#in_} not served"
}

# Unmapped: --no-map-gw and --map-host-loopback none, both with --no-splice
for opt in --no-map-gw "--map-host-loopback none"; do
	: > "$WORK/rec"
	start_pasta $opt --no-splice -t 6100 -u 6101 --stats
	in_host $TCPTOOL expect-rst 127.0.0.1 6100 >/dev/null ||
		fail "$opt: no reset for 127.0.0.1"
	in_host $TCPTOOL expect-rst ::1 6100 >/dev/null ||
		fail "$opt: no reset for ::1"
	in_host $UDPTOOL send 127.0.0.1 6101 || fail "send from 127.0.0.1"
	in_host $UDPTOOL send ::1 6101 || fail "send from ::1"

	# Controls from R: they take the same path and do arrive
	tcp_ok in_remote $H4 $RC4
	tcp_ok in_remote $H6 $RC6
	in_remote socat -u - UDP4-SENDTO:$H4:6101,bind=$RC4 <<-X || fail "UDP from R, IPv4"
	from-r
	X
	in_remote socat -u - UDP6-SENDTO:[$H6]:6101,bind=[$RC6] <<-X || fail "UDP from R, IPv6"
	from-r
	X
	wait_for grep -q "^tcp $RC4\$" "$WORK/rec" || fail "$opt: no IPv4 connection from R"
	wait_for grep -q "^tcp $RC6\$" "$WORK/rec" || fail "$opt: no IPv6 connection from R"
	wait_for grep -q "^udp $RC4 " "$WORK/rec" || fail "$opt: IPv4 datagram from R lost"
	wait_for grep -q "^udp $RC6 " "$WORK/rec" || fail "$opt: IPv6 datagram from R lost"
	# Only R may be seen: nothing from the host disguised as the gateway
	n=$(grep -c -v -e "^tcp $RC4\$" -e "^tcp $RC6\$" -e "^udp $RC4 " \
		-e "^udp $RC6 " "$WORK/rec")
	[ "$n" -eq 0 ] || { cat "$WORK/rec"; fail "$opt: $n host-loopback flows reached N"; }
	pasta_alive
	stop_pasta
	grep -q "refused (unmapped host loopback) 2," "$WORK/pasta.log" ||
		fail "$opt: TCP refusals not counted"
	grep -q "dropped (unmapped host loopback) 2\$" "$WORK/pasta.log" ||
		fail "$opt: UDP drops not counted"
	log "$opt --no-splice: host loopback refused, R served"
done

# Spliced (no --no-splice): host loopback connections work as before
: > "$WORK/rec"
start_pasta --no-map-gw -t 6100 --stats
tcp_ok in_host 127.0.0.1
tcp_ok in_host ::1
pasta_alive
stop_pasta
grep -q "spliced flows 2 closed 2," "$WORK/pasta.log" ||
	fail "--no-map-gw: loopback connections were not spliced"
pass "unmapped host loopback refused on the tap path, spliced otherwise"
