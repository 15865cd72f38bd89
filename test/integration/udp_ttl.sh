#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_ttl.sh - the guest's IPv4 TTL and IPv6 hop limit go out with its UDP
# datagrams (traceroute sets them per probe): datagrams sent from the
# namespace with TTL / hop limit 7, then 3, to R's 198.51.100.3 and
# 2001:db8:1::3 arrive there with 7 and then 3 (R is one hop from H, and a
# sender's own hop doesn't decrement, RFC 791 / RFC 8200), not with H's
# default of 64.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
ip -n "$R" addr add 2001:db8:1::3/64 dev r0 nodad
in_remote python3 - >"$WORK/r" 2>&1 <<'PY' &
import socket, select
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s4.setsockopt(socket.IPPROTO_IP, 12, 1)  # IP_RECVTTL
s4.bind(('198.51.100.3', 9010))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVHOPLIMIT, 1)
s6.bind(('2001:db8:1::3', 9010))
print('ready', flush=True)
got = 0
while got < 4:
    r, _, _ = select.select([s4, s6], [], [], 15)
    if not r:
        break
    for s in r:
        data, anc, _, _ = s.recvmsg(100, 100)
        for lvl, typ, d in anc:
            print(data.decode(), int.from_bytes(d[:4], 'little'), flush=True)
        got += 1
PY
track $!
wait_for grep -q ready "$WORK/r" || { cat "$WORK/r"; fail "receiver in R"; }
start_pasta
in_ns python3 - <<'PY' || fail "sender"
import socket, time
for fam, dst, lvl, opt in ((socket.AF_INET, '198.51.100.3', socket.IPPROTO_IP, socket.IP_TTL),
                          (socket.AF_INET6, '2001:db8:1::3', socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS)):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    for ttl in (7, 3):
        s.setsockopt(lvl, opt, ttl)
        s.sendto(b'%s-%d' % (dst.encode(), ttl), (dst, 9010))
        time.sleep(0.2)
PY
wait_for sh -c "[ \$(grep -c -- - $WORK/r) -ge 4 ]" || { cat "$WORK/r"; fail "datagrams missing"; }
cat "$WORK/r"
for l in "198.51.100.3-7 7" "198.51.100.3-3 3" "2001:db8:1::3-7 7" "2001:db8:1::3-3 3"; do
	grep -qx "$l" "$WORK/r" || fail "expected '$l' (datagram, TTL on arrival)"
done
pasta_alive
stop_pasta
pass "guest TTL and hop limit applied to its UDP datagrams"
