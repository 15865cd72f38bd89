#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_mcast_in_host.sh - multicast sent by programs of the host itself,
# which the host's kernel loops to its own sockets (IP_MULTICAST_LOOP, on
# by default, ip(7)), reaches the namespace through a wildcard -u rule as
# the multicast it was (issue 32, item 5):
#  - -u 0.0.0.0/5353: a program of H joined 224.0.0.251 on lo, another
#    sends an mDNS query (RFC 6762 5) to 224.0.0.251:5353 out of lo, from
#    127.0.0.1: the namespace gets it with IP destination 224.0.0.251
#    (IP_PKTINFO) in a frame to 01:00:5e:00:00:fb (RFC 1112 6.4), not
#    spliced to its unicast address; its answer to the group doesn't come
#    back to it;
#  - -u 5355 (a rule without address: one dual-stack socket, for which
#    Linux leaves IP_MULTICAST_ALL off): a program of H joined 224.0.0.252
#    on h0, another sends an LLMNR query (RFC 4795 2) there from H's
#    address: the namespace gets it as multicast to 224.0.0.252.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
ip -n "$H" link set lo multicast on
in_host python3 -c "
import socket, struct, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for g, dev in (('224.0.0.251', 'lo'), ('224.0.0.252', 'h0')):
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 socket.inet_aton(g) + socket.inet_aton('0.0.0.0') +
                 struct.pack('=i', socket.if_nametoindex(dev)))
print('joined', flush=True)
time.sleep(90)" >"$WORK/h" 2>&1 &
track $!
wait_for grep -q joined "$WORK/h" || { cat "$WORK/h"; fail "member in H"; }
start_pasta -u 0.0.0.0/5353 -u 5355 -U none

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
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    socks[s] = (g, port)
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
            continue
        data, anc, _, src = s.recvmsg(2000, 100)
        dst = '-'
        for lvl, typ, d in anc:
            if lvl == socket.IPPROTO_IP and typ == 8:
                dst = socket.inet_ntoa(d[8:12])
        print('got', data.decode(), socks[s][1], dst, flush=True)
        g, port = socks[s]
        if port == 5353 and not answered:
            s.sendto(b'answer', (g, port))
            answered = True
PY
track $!
wait_for grep -q ready "$WORK/ns" || { cat "$WORK/ns"; fail "receiver in namespace"; }

in_host python3 -c "
import socket, struct
lo = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
lo.bind(('127.0.0.1', 0))
lo.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
              socket.inet_aton('0.0.0.0') + socket.inet_aton('0.0.0.0') +
              struct.pack('=i', socket.if_nametoindex('lo')))
lo.sendto(b'mdns-query', ('224.0.0.251', 5353))
h = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
h.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
             socket.inet_aton('0.0.0.0') + socket.inet_aton('$H4') +
             struct.pack('=i', socket.if_nametoindex('h0')))
h.sendto(b'llmnr-query', ('224.0.0.252', 5355))
"
wait_for sh -c "grep -q 'got mdns' $WORK/ns && grep -q 'got llmnr' $WORK/ns"
sleep 1
cat "$WORK/ns"
grep -qx "got mdns-query 5353 224.0.0.251" "$WORK/ns" ||
	fail "mDNS query from the host's lo not received as multicast to 224.0.0.251"
grep -qx "frame 01:00:5e:00:00:fb 224.0.0.251" "$WORK/ns" ||
	fail "mDNS query not in a frame to 01:00:5e:00:00:fb"
grep -qx "got llmnr-query 5355 224.0.0.252" "$WORK/ns" ||
	fail "-u 5355: LLMNR query from the host not received as multicast"
grep -qx "frame 01:00:5e:00:00:fc 224.0.0.252" "$WORK/ns" ||
	fail "LLMNR query not in a frame to 01:00:5e:00:00:fc"
[ "$(grep -c '^got ' "$WORK/ns")" -eq 2 ] ||
	fail "the namespace heard its own answer back (or got a query twice)"
pasta_alive
stop_pasta
pass "multicast from the host's own programs arrives as multicast (lo and h0, IPv4 and dual-stack -u sockets)"
