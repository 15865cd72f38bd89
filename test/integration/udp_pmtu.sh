#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_pmtu.sh - path MTU errors about the guest's UDP datagrams come back to
# the guest: R forwards to a scratch namespace D over a link of MTU 1280;
# a 1400-byte datagram from the namespace to D leaves H with DF set (the
# host socket's default, IP_PMTUDISC_WANT in ip(7)), R can't forward it and
# answers fragmentation needed with next-hop MTU 1280 (RFC 1191, type 3 code
# 4) or packet too big with MTU 1280 (RFC 4443 3.2, type 2 code 0).  The
# namespace's socket (IP_RECVERR, IP_PMTUDISC_DO) must read that error,
# from R, with MTU 1280 (ee_info), and its route must then say 1280
# (IP_MTU / IPV6_MTU, ip(7), ipv6(7)), so that its next 1400-byte send fails
# with EMSGSIZE at once.
# asan: yes
. "$(dirname "$0")/lib.sh"

# D's own end stays at 1500: D advertises an MSS of 1460 (RFC 9293
# 3.7.1), so TCP from H has to learn the 1280 from R's error too
setup_routed 1280 203.0.113.1/24 2001:db8:9::1/64 203.0.113.9/24 2001:db8:9::9/64

start_pasta
in_ns python3 - <<'PY' || { grep -i -e udp -e icmp "$WORK/pasta.log"; fail "path MTU error not relayed"; }
import errno, select, socket, struct, sys
IP_RECVERR, IPV6_RECVERR = 11, 25
IP_MTU_DISCOVER, IP_PMTUDISC_DO, IP_MTU = 10, 2, 14
IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO, IPV6_MTU = 23, 2, 24
for fam, dst, lvl, erropt, pmtu_opt, mtu_opt, want in (
        (socket.AF_INET, '203.0.113.9', socket.IPPROTO_IP, IP_RECVERR,
         IP_MTU_DISCOVER, IP_MTU, (3, 4)),
        (socket.AF_INET6, '2001:db8:9::9', socket.IPPROTO_IPV6, IPV6_RECVERR,
         IPV6_MTU_DISCOVER, IPV6_MTU, (2, 0))):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(lvl, erropt, 1)
    s.setsockopt(lvl, pmtu_opt, IP_PMTUDISC_DO)
    s.connect((dst, 9))
    before = s.getsockopt(lvl, mtu_opt)
    got = None
    # the first datagram may meet a neighbour resolution on the way:
    # up to 3 tries, 3 s each
    for attempt in range(3):
        s.send(b'x' * 1400)
        p = select.poll()
        p.register(s, select.POLLERR)
        if not p.poll(3000):
            continue
        _, anc, _, _ = s.recvmsg(2000, 512, socket.MSG_ERRQUEUE)
        for l, t, d in anc:
            eerr, origin, typ, code, _pad, info = struct.unpack('IBBBBI', d[:12])
            off = socket.inet_ntop(fam, d[20:24] if fam == socket.AF_INET else d[24:40])
            print('%s: errno %d origin %d type %d code %d info %d from %s (path MTU before: %d)'
                  % (dst, eerr, origin, typ, code, info, off, before))
            got = (typ, code, info, eerr)
        if got:
            break
    if not got:
        sys.exit('%s: no error for a 1400-byte datagram' % dst)
    if got[:2] != want or got[2] != 1280 or got[3] != errno.EMSGSIZE:
        sys.exit('%s: got type/code/MTU/errno %s, expected %s, 1280, EMSGSIZE'
                 % (dst, got, want))
    after = s.getsockopt(lvl, mtu_opt)
    if after != 1280:
        sys.exit('%s: path MTU of the route is %d, expected 1280' % (dst, after))
    try:
        s.send(b'x' * 1400)
        sys.exit('%s: second 1400-byte send was accepted' % dst)
    except OSError as e:
        if e.errno != errno.EMSGSIZE:
            raise
    s.send(b'x' * 1200)	# fits: no error
    print('%s: route MTU now %d, 1400 bytes refused locally' % (dst, after))
PY

# TCP: the guest's connection ends at pasta, the host socket's kernel
# learns the path MTU from R; the data must arrive whole all the same
ip netns exec "$D" python3 "$(dirname "$0")/tcptool.py" serve-hash 5001 \
	>"$WORK/hash.log" 2>&1 &
track $!
wait_for sh -c "ip netns exec $D ss -Hltn | grep -q ':5001 '" || fail "no TCP sink in D"
for dst in 203.0.113.9 2001:db8:9::9; do
	in_ns python3 "$(dirname "$0")/tcptool.py" uploads "$dst" 5001 1 2000000 ||
		{ grep -i tcp "$WORK/pasta.log" | tail -20; fail "TCP upload to $dst across the 1280 link"; }
done
log "TCP: 2 MB to D per family across MTU 1280, hashes match"
pasta_alive
stop_pasta
pass "fragmentation needed and packet too big relayed with MTU 1280 (IPv4, IPv6); TCP across the smaller link intact"
