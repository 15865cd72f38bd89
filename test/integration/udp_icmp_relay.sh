#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_icmp_relay.sh - ICMP errors about the guest's UDP datagrams come back
# to the guest, as traceroute -U needs: R forwards (in its own scratch
# namespace) and routes 203.0.113.0/24; a datagram from the namespace to
# 203.0.113.9 with TTL 1 leaves H with TTL 1 (the guest's), R answers
# ICMP time exceeded (RFC 792, type 11 code 0), and the namespace's socket
# (IP_RECVERR) reads that error, from R (198.51.100.2), for its datagram.
# Same for IPv6 (RFC 4443 type 3, hop limit exceeded in transit).
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
in_remote sysctl -q -w net.ipv4.ip_forward=1
in_remote sysctl -q -w net.ipv6.conf.all.forwarding=1
ip -n "$R" route add 203.0.113.0/24 via $H4
ip -n "$R" -6 route add 2001:db8:9::/64 via $H6
start_pasta
in_ns python3 - <<'PY' || { grep -i -e udp -e icmp "$WORK/pasta.log"; fail "no ICMP error relayed"; }
import socket, select, sys, struct
IP_RECVERR, IPV6_RECVERR = 11, 25
for fam, dst, lvl, ttlopt, erropt, want in (
        (socket.AF_INET, '203.0.113.9', socket.IPPROTO_IP, socket.IP_TTL, IP_RECVERR, (11, 0)),
        (socket.AF_INET6, '2001:db8:9::9', socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, IPV6_RECVERR, (3, 0))):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(lvl, erropt, 1)
    s.setsockopt(lvl, ttlopt, 1)
    s.connect((dst, 33434))
    s.send(b'probe')
    p = select.poll()
    p.register(s, select.POLLERR)
    if not p.poll(5000):
        sys.exit('%s: no error within 5 s' % dst)
    _, anc, _, _ = s.recvmsg(100, 512, socket.MSG_ERRQUEUE)
    for l, t, d in anc:
        errno_, origin, typ, code = struct.unpack('IBBB', d[:7])
        off = socket.inet_ntop(fam, d[20:24] if fam == socket.AF_INET else d[24:40])
        print('%s: origin %d type %d code %d from %s' % (dst, origin, typ, code, off))
        if (typ, code) != want:
            sys.exit('%s: type %d code %d, expected %s' % (dst, typ, code, want))
PY
pasta_alive
stop_pasta
grep -q "relayed to the guest" "$WORK/pasta.log" || fail "not logged"
pass "ICMP time exceeded relayed for IPv4 and IPv6 UDP"
