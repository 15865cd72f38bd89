#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_mcast_out.sh - multicast and broadcast datagrams from the namespace
# leave the host, and unicast answers come back from the responder:
#  - an SSDP M-SEARCH to 239.255.255.250:1900 with TTL 2 (UPnP Device
#    Architecture 1.1, 1.3.2) arrives in R, a member of the group, with
#    TTL 2 (R is on H's link: the sender's own hop doesn't decrement, RFC
#    791), from H's address; R's unicast answer from 198.51.100.2:1900
#    reaches the namespace's socket from 198.51.100.2:1900;
#  - the same to ff05::c (site-local SSDP, RFC 4291 2.7) with hop limit 3,
#    answered from 2001:db8:1::2;
#  - broadcasts to 255.255.255.255 and to the subnet's 198.51.100.255
#    (RFC 919, RFC 922) arrive in R;
#  - a datagram to ff02::c (link-local scope) stays on the namespace's link:
#    R doesn't get it, pasta logs it as dropped;
#  - H's kernel loops broadcasts back locally: with -u 9998, a broadcast
#    from port 9998 to 255.255.255.255:9998 reaches R, and neither our own
#    socket nor the -u 9998 socket sends it back (the namespace's socket
#    hears only its own kernel's copy, from its own address, not one from
#    the gateway, as which H's address appears).
# H has a multicast route (224.0.0.0/4 dev h0), as the issue describes.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
ip -n "$H" route add 224.0.0.0/4 dev h0
in_remote python3 - >"$WORK/r" 2>&1 <<'PY' &
import socket, select, struct, time
idx = socket.if_nametoindex('r0')
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s4.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s4.setsockopt(socket.IPPROTO_IP, 12, 1)  # IP_RECVTTL
s4.bind(('', 1900))
s4.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
              socket.inet_aton('239.255.255.250') +
              socket.inet_aton('0.0.0.0') + struct.pack('=i', idx))
b4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
b4.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
b4.bind(('', 9999))
b8 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
b8.bind(('', 9998))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s6.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVHOPLIMIT, 1)
s6.bind(('::', 1900))
for g in ('ff05::c', 'ff02::c'):
    s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
                  socket.inet_pton(socket.AF_INET6, g) + struct.pack('=I', idx))
a4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
a4.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
a4.bind(('198.51.100.2', 1900))
a6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
a6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
a6.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
a6.bind(('2001:db8:1::2', 1900))
print('ready', flush=True)
end = time.time() + 15
while time.time() < end:
    r, _, _ = select.select([s4, b4, b8, s6], [], [], 1)
    for s in r:
        data, anc, _, src = s.recvmsg(2000, 100)
        hop = [int.from_bytes(d[:4], 'little') for _, _, d in anc]
        print('got', data.decode(), src[0], hop[0] if hop else '-', flush=True)
        if data.startswith(b'M-SEARCH'):
            (a4 if s is s4 else a6).sendto(b'HTTP/1.1 200 OK ' + data[9:],
                                           src[:2])
PY
track $!
wait_for grep -q ready "$WORK/r" || { cat "$WORK/r"; fail "receiver in R"; }
start_pasta -u 9998
in_ns python3 - >"$WORK/ns" 2>&1 <<'PY'
import socket, struct
idx = socket.if_nametoindex('h0')
res = []
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s4.bind(('0.0.0.0', 40001))
s4.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
s4.settimeout(3)
s4.sendto(b'M-SEARCH v4', ('239.255.255.250', 1900))
try:
    d, a = s4.recvfrom(2000)
    print('reply4', d.decode(), a[0], a[1], flush=True)
except socket.timeout:
    print('reply4 none', flush=True)
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.bind(('::', 40002))
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 3)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, idx)
s6.settimeout(3)
s6.sendto(b'M-SEARCH v6', ('ff05::c', 1900))
try:
    d, a = s6.recvfrom(2000)
    print('reply6', d.decode(), a[0], a[1], flush=True)
except socket.timeout:
    print('reply6 none', flush=True)
s6.sendto(b'link-local', ('ff02::c', 1900, 0, idx))
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
b.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
b.sendto(b'bcast-limited', ('255.255.255.255', 9999))
b.sendto(b'bcast-subnet', ('198.51.100.255', 9999))
b.settimeout(1)
try:
    d, a = b.recvfrom(2000)
    print('heard back', d.decode(), a[0], flush=True)
except socket.timeout:
    pass
o = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
o.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
o.bind(('0.0.0.0', 9998))
o.sendto(b'bcast-own', ('255.255.255.255', 9998))
o.settimeout(1)
try:
    while True:
        d, a = o.recvfrom(2000)
        print('heard', d.decode(), a[0], flush=True)
except socket.timeout:
    pass
PY
cat "$WORK/ns"
wait_for sh -c "grep -q bcast-own $WORK/r && grep -q bcast-limited $WORK/r" || true
sleep 0.3
cat "$WORK/r"
grep -qx "got M-SEARCH v4 $H4 2" "$WORK/r" || fail "SSDP query (TTL 2) did not reach R from $H4"
grep -qx "reply4 HTTP/1.1 200 OK v4 $R4 1900" "$WORK/ns" || fail "unicast answer to the IPv4 query missing or from the wrong source"
grep -qx "got M-SEARCH v6 $H6 3" "$WORK/r" || fail "ff05::c query (hop limit 3) did not reach R from $H6"
grep -qx "reply6 HTTP/1.1 200 OK v6 $R6 1900" "$WORK/ns" || fail "unicast answer to the IPv6 query missing or from the wrong source"
grep -q "^got bcast-limited $H4" "$WORK/r" || fail "limited broadcast did not reach R"
grep -q "^got bcast-subnet $H4" "$WORK/r" || fail "subnet broadcast did not reach R"
grep -q "^got bcast-own $H4" "$WORK/r" || fail "broadcast to port 9998 did not reach R"
grep -q "^heard back" "$WORK/ns" && fail "a broadcast came back to the namespace"
grep -qx "heard bcast-own $H4" "$WORK/ns" || fail "the namespace's kernel didn't loop its broadcast (test set-up)"
[ "$(grep -c '^heard ' "$WORK/ns")" -eq 1 ] || fail "the broadcast to port 9998 came back through pasta"
grep -q "link-local" "$WORK/r" && fail "ff02::c datagram left the namespace's link"
grep -q "ff02::c.*dropped (IPv6 group of link-local scope" "$WORK/pasta.log" || { cat "$WORK/pasta.log"; fail "ff02::c datagram not logged as dropped"; }
pasta_alive
stop_pasta
pass "SSDP over IPv4 and IPv6, broadcasts sent; answers from the responder; ff02:: kept local"
