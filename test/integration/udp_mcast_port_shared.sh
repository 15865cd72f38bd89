#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_mcast_port_shared.sh - a guest's multicast doesn't take the port of a
# host service that shares it (issue 26, item 2):
#  - a service of H bound to 0.0.0.0:5353 and [::]:5353 with SO_REUSEADDR
#    (as avahi-daemon binds mDNS, RFC 6762); the namespace sends from port
#    5353 to 224.0.0.251:5353 and ff05::fb:5353; R, a member of both
#    groups, gets the queries from another port of H (5353 is taken) and
#    answers to it: the answers reach the namespace's port 5353 from R;
#  - then R sends 10 unicast datagrams to H4:5353 and 10 to [H6]:5353:
#    Linux gives each to one of the sockets sharing the port (socket(7),
#    SO_REUSEADDR), and all 20 must reach the service, none the namespace;
#  - a query from a free port (1900, SSDP) leaves from that same port;
#  - a broadcast from port 5353 to 255.255.255.255:9997 (-u 9997) leaves
#    from the other port and isn't sent back through -u 9997 when H's
#    kernel loops it there;
#  - a broadcast from the namespace to 255.255.255.255:9999 reaches a
#    service of H bound to 0.0.0.0:9999 (the host's kernel delivers
#    broadcasts locally); with --no-map-gw it is refused (neither H's
#    service nor R gets it, pasta logs it as dropped).
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
ip -n "$H" route add 224.0.0.0/4 dev h0

in_host python3 - >"$WORK/svc" 2>&1 <<'PY' &
import socket, select, time
socks = []
for fam, addr, port in ((socket.AF_INET, '0.0.0.0', 5353),
                        (socket.AF_INET6, '::', 5353),
                        (socket.AF_INET, '0.0.0.0', 9999)):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    socks.append(s)
print('ready', flush=True)
end = time.time() + 90
while time.time() < end:
    r, _, _ = select.select(socks, [], [], 0.5)
    for s in r:
        d, a = s.recvfrom(2000)
        print('svc', d.decode(), a[0], flush=True)
PY
track $!
wait_for grep -q ready "$WORK/svc" || { cat "$WORK/svc"; fail "service in H"; }

in_remote python3 - >"$WORK/r" 2>&1 <<'PY' &
import socket, select, struct, time
idx = socket.if_nametoindex('r0')
socks = []
for g, port in (('224.0.0.251', 5353), ('239.255.255.250', 1900)):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('', port))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 socket.inet_aton(g) + socket.inet_aton('0.0.0.0') +
                 struct.pack('=i', idx))
    socks.append(s)
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s6.bind(('::', 5353))
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
              socket.inet_pton(socket.AF_INET6, 'ff05::fb') +
              struct.pack('=I', idx))
socks.append(s6)
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
b.bind(('', 9999))
socks.append(b)
print('ready', flush=True)
end = time.time() + 90
while time.time() < end:
    r, _, _ = select.select(socks, [], [], 0.5)
    for s in r:
        d, a = s.recvfrom(2000)
        print('got', d.decode(), a[0], a[1], flush=True)
        if d.startswith(b'query'):
            s.sendto(b'answer ' + d[6:], a[:2])
PY
track $!
wait_for grep -q ready "$WORK/r" || { cat "$WORK/r"; fail "receiver in R"; }

# Explicit -u and -U keep automatic forwarding out of the way: H's port
# 5353 is the service's, the namespace's is its own
start_pasta -u 9997 -U none

in_ns python3 - >"$WORK/ns" 2>&1 <<'PY' &
import socket, select, time
idx = socket.if_nametoindex('h0')
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s4.bind(('0.0.0.0', 5353))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s6.bind(('::', 5353))
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, idx)
ss = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ss.bind(('0.0.0.0', 1900))
sb = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sb.bind(('0.0.0.0', 9997))
s4.sendto(b'query v4', ('224.0.0.251', 5353))
s6.sendto(b'query v6', ('ff05::fb', 5353))
ss.sendto(b'query ssdp', ('239.255.255.250', 1900))
s4.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
s4.sendto(b'bcast-own', ('255.255.255.255', 9997))
print('sent', flush=True)
end = time.time() + 90
while time.time() < end:
    r, _, _ = select.select([s4, s6, ss, sb], [], [], 0.5)
    for s in r:
        d, a = s.recvfrom(2000)
        print('ns', s.getsockname()[1], d.decode(), a[0], a[1], flush=True)
PY
track $!
wait_for grep -q 'ns 5353 answer v4' "$WORK/ns"
wait_for grep -q 'ns 5353 answer v6' "$WORK/ns"
wait_for grep -q 'ns 1900 answer ssdp' "$WORK/ns"

in_remote python3 -c "
import socket
for fam, dst in ((socket.AF_INET, '$H4'), (socket.AF_INET6, '$H6')):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    for i in range(10):
        s.sendto(b'unicast %d' % i, (dst, 5353))
"
WAIT_S=5 wait_for sh -c "[ \$(grep -c '^svc unicast' $WORK/svc) -ge 20 ]"
sleep 0.5

in_ns python3 -c "
import socket
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
b.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
b.sendto(b'bcast-mapped', ('255.255.255.255', 9999))
"
WAIT_S=5 wait_for grep -q 'svc bcast-mapped' "$WORK/svc"
stop_pasta

start_pasta -u 9997 -U none --no-map-gw
in_ns python3 -c "
import socket
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
b.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
b.sendto(b'bcast-nomap', ('255.255.255.255', 9999))
b.sendto(b'bcast-nomap-subnet', ('198.51.100.255', 9999))
b.sendto(b'mcast-nomap', ('239.255.255.250', 1900))
"
WAIT_S=3 wait_for grep -q 'got mcast-nomap' "$WORK/r"
sleep 0.5

cat "$WORK/svc" "$WORK/r" "$WORK/ns"
n4=$(grep -c "^svc unicast .* $R4\$" "$WORK/svc")
n6=$(grep -c "^svc unicast .* $R6\$" "$WORK/svc")
nns=$(grep -c "unicast" "$WORK/ns")
log "unicast to H's port 5353: service got $n4/10 (IPv4), $n6/10 (IPv6), namespace $nns"
[ "$nns" -eq 0 ] || fail "$nns unicast datagrams for H's service reached the namespace"
[ "$n4" -eq 10 ] && [ "$n6" -eq 10 ] ||
	fail "H's service lost unicast datagrams ($n4/10 IPv4, $n6/10 IPv6)"
grep -q "^got query v4 $H4 " "$WORK/r" || fail "IPv4 query didn't reach R"
grep -q "^got query v4 $H4 5353\$" "$WORK/r" &&
	fail "IPv4 query left from port 5353, which H's service holds"
grep -q "^got query v6 $H6 " "$WORK/r" || fail "IPv6 query didn't reach R"
grep -q "^got query v6 $H6 5353\$" "$WORK/r" &&
	fail "IPv6 query left from port 5353, which H's service holds"
grep -qx "ns 5353 answer v4 $R4 5353" "$WORK/ns" ||
	fail "R's answer to the IPv4 query didn't reach the namespace's port 5353"
grep -qx "ns 5353 answer v6 $R6 5353" "$WORK/ns" ||
	fail "R's answer to the IPv6 query didn't reach the namespace's port 5353"
grep -qx "got query ssdp $H4 1900" "$WORK/r" ||
	fail "SSDP query from the free port 1900 didn't leave from port 1900"
grep -qx "ns 1900 answer ssdp $R4 1900" "$WORK/ns" ||
	fail "SSDP answer didn't reach the namespace"
# The namespace's kernel loops its broadcast to its own port 9997; H's
# kernel loops it to the -u 9997 listener, from the flow socket's port:
# that copy is ours and must not come back
grep -qx "ns 9997 bcast-own $H4 5353" "$WORK/ns" ||
	fail "the namespace's kernel didn't loop its broadcast (test set-up)"
[ "$(grep -c "^ns 9997 bcast-own" "$WORK/ns")" -eq 1 ] ||
	fail "a broadcast from the namespace came back through -u 9997"
grep -q "^svc bcast-mapped $H4\$" "$WORK/svc" ||
	fail "broadcast didn't reach H's service without --no-map-gw (test set-up)"
grep -q "^got mcast-nomap $H4 " "$WORK/r" ||
	fail "multicast with --no-map-gw didn't reach R"
grep -q "bcast-nomap" "$WORK/svc" &&
	fail "with --no-map-gw, a broadcast from the namespace reached H's service"
grep -q "bcast-nomap" "$WORK/r" &&
	fail "with --no-map-gw, a broadcast from the namespace left the host"
[ "$(grep -c 'dropped (broadcast with --no-map-gw' "$WORK/pasta.log")" -eq 2 ] ||
	{ cat "$WORK/pasta.log"; fail "broadcasts with --no-map-gw not logged as dropped"; }
pasta_alive
stop_pasta
pass "H's service keeps its unicast datagrams (20/20), answers map back to port 5353; broadcasts refused with --no-map-gw"
