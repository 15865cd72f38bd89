#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_mcast_in.sh - multicast to a forwarded port reaches the namespace as
# the multicast it was, and the namespace's multicast answer doesn't loop
# back to it:
#  - with -u 0.0.0.0/5353 and a program of H that joined 224.0.0.251 on h0
#    (as avahi-daemon does), an mDNS query R sends to 224.0.0.251:5353
#    (RFC 6762 5) arrives in the namespace with IP destination 224.0.0.251
#    (IP_PKTINFO) in an Ethernet frame to 01:00:5e:00:00:fb (RFC 1112 6.4),
#    from 198.51.100.2:5353;
#  - the namespace's responder answers to 224.0.0.251:5353 from port 5353
#    (RFC 6762 6): R, a member, gets the answer from H's address, and the
#    namespace's socket sees only R's query (our own listener doesn't hear
#    the answer and send it back);
#  - with -u 224.0.0.252/5355 (a rule bound to a group: pasta joins it),
#    an LLMNR query (RFC 4795 2) to 224.0.0.252:5355 arrives as such too;
#  - with -u ff05::fb/5356, a datagram to the site-local group ff05::fb
#    arrives with IPv6 destination ff05::fb (IPV6_PKTINFO), from
#    2001:db8:1::2, in a frame to 33:33:00:00:00:fb (RFC 2464 7).
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
# A program of H that joined the mDNS group on h0, bound elsewhere
in_host python3 -c "
import socket, struct, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             socket.inet_aton('224.0.0.251') + socket.inet_aton('0.0.0.0') +
             struct.pack('=i', socket.if_nametoindex('h0')))
print('joined', flush=True)
time.sleep(90)" >"$WORK/h" 2>&1 &
track $!
wait_for grep -q joined "$WORK/h" || { cat "$WORK/h"; fail "member in H"; }
start_pasta -u 0.0.0.0/5353 -u 224.0.0.252/5355 -u ff05::fb/5356

in_ns python3 - >"$WORK/ns" 2>&1 <<'PY' &
import socket, select, struct, time
idx = socket.if_nametoindex('h0')
socks = {}
for g, port in (('224.0.0.251', 5353), ('224.0.0.252', 5355)):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IP, 8, 1)  # IP_PKTINFO
    s.bind(('', port))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 socket.inet_aton(g) + socket.inet_aton('0.0.0.0') +
                 struct.pack('=i', idx))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    # The namespace's kernel would loop the answer to this socket itself
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    socks[s] = (g, port)
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVPKTINFO, 1)
s6.bind(('::', 5356))
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
              socket.inet_pton(socket.AF_INET6, 'ff05::fb') +
              struct.pack('=I', idx))
socks[s6] = ('ff05::fb', 5356)
p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
p.bind(('h0', 0))
print('ready', flush=True)
end = time.time() + 60
answered = False
while time.time() < end:
    r, _, _ = select.select(list(socks) + [p], [], [], 0.5)
    for s in r:
        if s is p:
            f = p.recv(2000)
            if f[12:14] == b'\x08\x00' and f[23] == 17 and \
               f[36:38] in (b'\x14\xe9', b'\x14\xeb'):
                print('frame', f[0:6].hex(':'), socket.inet_ntoa(f[30:34]),
                      flush=True)
            if f[12:14] == b'\x86\xdd' and f[20] == 17 and \
               f[56:58] == b'\x14\xec':
                print('frame', f[0:6].hex(':'),
                      socket.inet_ntop(socket.AF_INET6, f[38:54]), flush=True)
            continue
        data, anc, _, src = s.recvmsg(2000, 100)
        dst = '-'
        for lvl, typ, d in anc:
            if lvl == socket.IPPROTO_IP and typ == 8:  # IP_PKTINFO
                dst = socket.inet_ntoa(d[8:12])
            if lvl == socket.IPPROTO_IPV6 and typ == socket.IPV6_PKTINFO:
                dst = socket.inet_ntop(socket.AF_INET6, d[:16])
        print('got', data.decode(), src[0], src[1], dst, flush=True)
        g, port = socks[s]
        if port == 5353 and not answered:
            s.sendto(b'answer', (g, port))
            answered = True
PY
track $!
wait_for grep -q ready "$WORK/ns" || { cat "$WORK/ns"; fail "receiver in namespace"; }

in_remote python3 - >"$WORK/r" 2>&1 <<'PY'
import socket, struct, select, time
idx = socket.if_nametoindex('r0')
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('', 5353))
mreq = socket.inet_aton('224.0.0.251') + socket.inet_aton('0.0.0.0') + \
       struct.pack('=i', idx)
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, mreq)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
s.sendto(b'mdns-query', ('224.0.0.251', 5353))
l = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
l.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, mreq)
l.sendto(b'llmnr-query', ('224.0.0.252', 5355))
m6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
m6.bind(('2001:db8:1::2', 0))
m6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, idx)
m6.sendto(b'site-query', ('ff05::fb', 5356))
end = time.time() + 4
while time.time() < end:
    r, _, _ = select.select([s], [], [], 0.5)
    if r:
        d, a = s.recvfrom(2000)
        print('got', d.decode(), a[0], a[1], flush=True)
        break
PY
sleep 1
cat "$WORK/ns" "$WORK/r"
grep -qx "got mdns-query $R4 5353 224.0.0.251" "$WORK/ns" ||
	fail "mDNS query not received in the namespace as multicast to 224.0.0.251"
grep -qx "frame 01:00:5e:00:00:fb 224.0.0.251" "$WORK/ns" ||
	fail "mDNS query not in a frame to 01:00:5e:00:00:fb"
grep -qx "got llmnr-query $R4 [0-9]* 224.0.0.252" "$WORK/ns" ||
	fail "-u 224.0.0.252/5355: LLMNR query not received as multicast"
grep -qx "got site-query $R6 [0-9]* ff05::fb" "$WORK/ns" ||
	fail "-u ff05::fb/5356: datagram not received as multicast to ff05::fb"
grep -qx "frame 33:33:00:00:00:fb ff05::fb" "$WORK/ns" ||
	fail "ff05::fb datagram not in a frame to 33:33:00:00:00:fb"
grep -qx "got answer $H4 5353" "$WORK/r" ||
	fail "the namespace's multicast answer didn't reach R from $H4:5353"
[ "$(grep -c '^got ' "$WORK/ns")" -eq 3 ] ||
	fail "the namespace heard its own answer back (or lost a query)"
pasta_alive
stop_pasta
pass "mDNS, LLMNR and ff05::fb datagrams arrive as multicast, the answer leaves without looping back"
