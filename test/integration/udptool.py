#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/udptool.py - UDP peers for the integration tests
#
#   udptool.py pingpong HOST PORT COUNT MAX [--sport P]
#       COUNT datagrams, sizes spread evenly from 1 to MAX bytes, each sent
#       and waited for before the next: every echo must be byte-identical
#   udptool.py burst HOST PORT COUNT SIZE
#       COUNT numbered datagrams back to back, then read the echoes: all
#       must come back, in order
#   udptool.py flows HOST PORT NFLOWS ROUNDS SIZES
#       NFLOWS sockets (each its own source port: one flow each) send to an
#       echo server, ROUNDS rounds of 4 x 8 datagrams per flow, interleaved
#       8 by 8 (so that one batch of a daemon holds runs of several flows),
#       the flow's size from the comma-separated SIZES (the eighth of each
#       run half of it plus 16, every other round one of SIZE + 5 in the
#       middle: runs of equal sizes end there); each carries flow, sequence
#       number and length, then bytes from a generator seeded with them.
#       After each round every echo must be back: whole, byte-identical,
#       in order per flow, nothing lost or duplicated
#   udptool.py echo ADDR PORT [SECONDS]
#       echo server: every datagram back to its sender, as is
#   udptool.py gsoecho ADDR PORT [SECONDS]
#       echo server with UDP_GRO (udp(7)): what it reads may be several
#       datagrams of one sender (a cmsg SOL_UDP/UDP_GRO gives their
#       size): it sends them back the same way, with UDP_SEGMENT, so the
#       sender gets the same datagrams
#   udptool.py gso HOST PORT ROUNDS SPECS
#       a plain socket sends ROUNDS rounds of super-datagrams, one
#       sendmsg() each with a UDP_SEGMENT cmsg (udp(7), Linux 4.18): SPECS
#       is a comma-separated list of SEG:TOTAL, TOTAL bytes cut by the
#       kernel into datagrams of SEG bytes, the last one shorter if TOTAL
#       isn't a multiple of SEG.  Each datagram is numbered and filled
#       from a generator seeded with its number.  After each round every
#       echo must be back as its own datagram, in order: the size and the
#       sha256 of each one are compared with what was sent
#   udptool.py refused HOST PORT
#       connected socket, one datagram: exit 0 if recv() then fails with
#       ECONNREFUSED (an ICMP port unreachable came back)
#   udptool.py send HOST PORT [--sport P] [--expect-echo]
#       one datagram from source port P (default any)
#   udptool.py many HOST PORT COUNT SPORT
#       one datagram from each of COUNT sockets, source ports SPORT onwards
#   udptool.py recverr HOST PORT [TTL]
#       connected socket with IP_RECVERR/IPV6_RECVERR (ip(7), ipv6(7)), TTL
#       or hop limit TTL if given: send one datagram (up to 3 tries, 3 s
#       each) and print the first error of its queue as "TYPE CODE ERRNO
#       OFFENDER" (ICMP type and code, errno name, address of the node
#       that sent it), or "none"
#   udptool.py inject IFACE SRCMAC DSTMAC SRC DST DPORT PAYLOAD
#       one hand-made Ethernet/IP/UDP frame (checksums computed here, RFC
#       1071, RFC 768) written to IFACE with a packet socket: for
#       destinations the kernel itself would never send
#
# Exit status 0 on success, 1 with a message on stderr otherwise.  Every
# wait is bounded (socket timeouts: UDPTOOL_TIMEOUT seconds, default 5).
import hashlib
import os
import random
import select
import struct
import socket
import sys
import time

SO_SNDBUFFORCE, SO_RCVBUFFORCE = 32, 33    # asm-generic/socket.h


def family(host):
    return socket.AF_INET6 if ':' in host else socket.AF_INET


def payload(i, size):
    """Deterministic bytes for datagram i: a counter, then a hash stream"""
    head = i.to_bytes(4, 'big')
    out = bytearray(head)
    seed = hashlib.sha256(head).digest()
    while len(out) < size:
        seed = hashlib.sha256(seed).digest()
        out += seed
    return bytes(out[:size])


def sock_for(host, port, sport=None,
             timeout=float(os.environ.get('UDPTOOL_TIMEOUT', '5'))):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    if sport:
        s.bind(('::' if family(host) == socket.AF_INET6 else '0.0.0.0',
                sport))
    s.connect((host, port))
    s.settimeout(timeout)
    return s


def pingpong(host, port, count, maxsize, sport=None):
    s = sock_for(host, port, sport)
    for i in range(count):
        size = 1 + (maxsize - 1) * i // (count - 1) if count > 1 else maxsize
        data = payload(i, size)
        s.send(data)
        try:
            got = s.recv(65536)
        except socket.timeout:
            sys.exit("datagram %d (%d bytes): no echo" % (i, size))
        if got != data:
            sys.exit("datagram %d (%d bytes): echo of %d bytes differs"
                     % (i, size, len(got)))
    print("pingpong: %d datagrams, 1 to %d bytes, all intact"
          % (count, maxsize))


def burst(host, port, count, size):
    s = sock_for(host, port)
    for i in range(count):
        s.send(payload(i, size))
    for i in range(count):
        try:
            got = s.recv(65536)
        except socket.timeout:
            sys.exit("burst: only %d of %d echoes" % (i, count))
        n = int.from_bytes(got[:4], 'big')
        if n != i:
            sys.exit("burst: echo %d is datagram %d (order changed)" % (i, n))
        if got != payload(i, size):
            sys.exit("burst: datagram %d differs" % i)
    print("burst: %d datagrams of %d bytes, in order" % (count, size))


def echo(addr, port, seconds):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    try:    # as root, beyond net.core.rmem_max: bursts of flows
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
    except OSError:
        pass
    s.bind((addr, port))
    s.settimeout(1.0)
    end = time.time() + seconds
    while time.time() < end:
        try:
            data, peer = s.recvfrom(65536)
        except socket.timeout:
            continue
        s.sendto(data, peer)


SOL_UDP, UDP_SEGMENT, UDP_GRO = 17, 103, 104     # linux/udp.h


def gsoecho(addr, port, seconds):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.setsockopt(SOL_UDP, UDP_GRO, 1)
    for opt in (SO_RCVBUFFORCE, SO_SNDBUFFORCE):
        try:
            s.setsockopt(socket.SOL_SOCKET, opt, 16 << 20)
        except OSError:
            pass
    s.bind((addr, port))
    s.settimeout(1.0)
    end = time.time() + seconds
    while time.time() < end:
        try:
            data, anc, _, peer = s.recvmsg(65536, socket.CMSG_SPACE(4))
        except socket.timeout:
            continue
        seg = 0
        for level, typ, val in anc:
            if level == SOL_UDP and typ == UDP_GRO:
                seg = struct.unpack('=i', val[:4])[0]
        if seg and len(data) > seg:
            s.sendmsg([data], [(SOL_UDP, UDP_SEGMENT,
                                struct.pack('=H', seg))], 0, peer)
        else:
            s.sendto(data, peer)


def gso_dgram(seq, size):
    """Datagram seq of a gso run: header (magic, seq, size), then bytes of
    a generator seeded with seq; at least 12 bytes"""
    head = struct.pack('!4sII', b'UDPG', seq, size)
    body = random.Random(seq).randbytes(max(0, size - len(head)))
    return (head + body)[:size] if size >= len(head) else head[:size]


def gso(host, port, rounds, specs):
    s = sock_for(host, port)
    for opt in (SO_RCVBUFFORCE, SO_SNDBUFFORCE):
        try:
            s.setsockopt(socket.SOL_SOCKET, opt, 16 << 20)
        except OSError:
            pass
    seq = 0
    ndg = nbytes = 0
    for rnd in range(rounds):
        want = []
        for seg, total in specs:
            sizes = [seg] * (total // seg) + ([total % seg] if total % seg
                                             else [])
            dgs = [gso_dgram(seq + i, n) for i, n in enumerate(sizes)]
            seq += len(sizes)
            buf = b''.join(dgs)
            if total > seg:
                s.sendmsg([buf], [(SOL_UDP, UDP_SEGMENT,
                                   struct.pack('=H', seg))])
            else:
                s.send(buf)
            want += [(len(d), hashlib.sha256(d).hexdigest()) for d in dgs]
        for i, (size, digest) in enumerate(want):
            try:
                d = s.recv(65536)
            except socket.timeout:
                sys.exit('round %d: echo %d of %d missing (%d bytes)' %
                         (rnd, i, len(want), size))
            if len(d) != size or hashlib.sha256(d).hexdigest() != digest:
                sys.exit('round %d: echo %d is %d bytes (want %d), sha256 '
                         '%s (want %s): boundaries or content changed' %
                         (rnd, i, len(d), size,
                          hashlib.sha256(d).hexdigest()[:16], digest[:16]))
            ndg += 1
            nbytes += len(d)
    print('gso: %d super-datagrams, %d datagrams, %d bytes echoed whole, '
          'in order, sizes and sha256 equal' %
          (rounds * len(specs), ndg, nbytes))


def flow_dgram(flow, seq, size):
    """Datagram seq of a flow: header (magic, flow, seq, size), then bytes
    of a generator seeded with them"""
    head = struct.pack('!4sIII', b'UDPB', flow, seq, size)
    body = random.Random((flow << 32) | seq).randbytes(size - len(head))
    return head + body


def flow_sizes(base, rnd):
    """Sizes of one run of 8 datagrams of a flow whose size is base"""
    out = [base] * 8
    if rnd % 2:
        out[3] = min(base + 5, 65000)
    out[7] = base // 2 + 16
    return [max(16, x) for x in out]


def flows(host, port, nflows, rounds, sizes):
    bases = [sizes[f % len(sizes)] for f in range(nflows)]
    socks = []
    for f in range(nflows):
        s = sock_for(host, port)
        for opt in (SO_RCVBUFFORCE, SO_SNDBUFFORCE):
            try:
                s.setsockopt(socket.SOL_SOCKET, opt, 16 << 20)
            except OSError:
                pass
        s.setblocking(False)
        socks.append(s)
    sent = [0] * nflows
    got = [0] * nflows
    nbytes = 0
    timeout = float(os.environ.get('UDPTOOL_TIMEOUT', '5'))
    for rnd in range(rounds):
        want = {}
        for chunk in range(4):
            for f in range(nflows):
                for k, size in enumerate(flow_sizes(bases[f], rnd)):
                    d = flow_dgram(f, sent[f], size)
                    want[(f, sent[f])] = d
                    socks[f].send(d)
                    sent[f] += 1
        end = time.time() + timeout
        while want and time.time() < end:
            r, _, _ = select.select(socks, [], [], 0.2)
            for s in r:
                f = socks.index(s)
                while True:
                    try:
                        d = s.recv(65536)
                    except BlockingIOError:
                        break
                    if len(d) < 16 or d[:4] != b'UDPB':
                        print('flow %d: %d bytes, not one of ours' %
                              (f, len(d)), file=sys.stderr)
                        sys.exit(1)
                    _, ff, seq, size = struct.unpack('!4sIII', d[:16])
                    exp = want.pop((ff, seq), None)
                    if ff != f or seq != got[f] or exp is None:
                        print('flow %d: got flow %d seq %d, expected seq '
                              '%d (lost, duplicated or out of order)' %
                              (f, ff, seq, got[f]), file=sys.stderr)
                        sys.exit(1)
                    if d != exp:
                        print('flow %d seq %d: %d bytes, expected %d, '
                              'content differs' % (f, seq, len(d), size),
                              file=sys.stderr)
                        sys.exit(1)
                    got[f] += 1
                    nbytes += len(d)
        if want:
            lost = sorted(want)[:5]
            print('round %d: %d echoes missing after %.0f s, first %s' %
                  (rnd, len(want), timeout, lost), file=sys.stderr)
            sys.exit(1)
    print('%d flows, %d datagrams and %d bytes echoed whole, in order' %
          (nflows, sum(got), nbytes))


def refused(host, port):
    s = sock_for(host, port, timeout=3.0)
    for _ in range(3):
        s.send(b'anyone there?')
        try:
            s.recv(100)
            sys.exit("refused: got an answer")
        except ConnectionRefusedError:
            print("refused: ECONNREFUSED")
            return
        except socket.timeout:
            continue
    sys.exit("refused: no error reported")


def send(host, port, sport, expect_echo):
    s = sock_for(host, port, sport)
    s.send(b'hello')
    if expect_echo:
        try:
            if s.recv(100) != b'hello':
                sys.exit("send: wrong echo")
        except socket.timeout:
            sys.exit("send: no echo")


def many(host, port, count, sport):
    socks = [sock_for(host, port, sport + i) for i in range(count)]
    for s in socks:
        s.send(b'hello')


def recverr(host, port, ttl):
    import errno
    import select
    import struct
    fam = family(host)
    lvl = socket.IPPROTO_IPV6 if fam == socket.AF_INET6 else socket.IPPROTO_IP
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(lvl, 25 if fam == socket.AF_INET6 else 11, 1)  # *_RECVERR
    if ttl:
        s.setsockopt(lvl, socket.IPV6_UNICAST_HOPS if fam == socket.AF_INET6
                     else socket.IP_TTL, ttl)
    s.connect((host, port))
    for _ in range(3):
        s.send(b'probe')
        p = select.poll()
        p.register(s, select.POLLERR)
        if not p.poll(3000):
            continue
        _, anc, _, _ = s.recvmsg(100, 512, socket.MSG_ERRQUEUE)
        for _l, _t, d in anc:
            eerr, _origin, typ, code = struct.unpack('IBBB', d[:7])
            off = d[20:24] if fam == socket.AF_INET else d[24:40]
            print('%d %d %s %s' % (typ, code, errno.errorcode.get(eerr, eerr),
                                   socket.inet_ntop(fam, off)))
            return
    print('none')


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(int.from_bytes(data[i:i + 2], 'big')
            for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def inject(iface, smac, dmac, src, dst, dport, data):
    mac = lambda m: bytes(int(x, 16) for x in m.split(':'))
    v6 = ':' in dst
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    sa, da = socket.inet_pton(fam, src), socket.inet_pton(fam, dst)
    ulen = 8 + len(data)
    udp = (40000).to_bytes(2, 'big') + dport.to_bytes(2, 'big') + \
        ulen.to_bytes(2, 'big')
    if v6:
        ph = sa + da + ulen.to_bytes(4, 'big') + b'\0\0\0\x11'
    else:
        ph = sa + da + b'\0\x11' + ulen.to_bytes(2, 'big')
    ck = csum(ph + udp + b'\0\0' + data) or 0xffff
    udp += ck.to_bytes(2, 'big') + data
    if v6:
        ip = b'\x60\0\0\0' + ulen.to_bytes(2, 'big') + b'\x11\x40' + sa + da
        et = b'\x86\xdd'
    else:
        ip = b'\x45\0' + (20 + ulen).to_bytes(2, 'big') + \
            b'\0\0\x40\0\x40\x11\0\0' + sa + da
        ip = ip[:10] + csum(ip).to_bytes(2, 'big') + ip[12:]
        et = b'\x08\x00'
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    s.send(mac(dmac) + mac(smac) + et + ip + udp)


def main(argv):
    cmd = argv[1]
    if cmd == 'pingpong':
        sport = int(argv[7]) if len(argv) > 7 and argv[6] == '--sport' else None
        pingpong(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), sport)
    elif cmd == 'burst':
        burst(argv[2], int(argv[3]), int(argv[4]), int(argv[5]))
    elif cmd == 'flows':
        flows(argv[2], int(argv[3]), int(argv[4]), int(argv[5]),
              [int(x) for x in argv[6].split(',')])
    elif cmd == 'echo':
        echo(argv[2], int(argv[3]), float(argv[4]) if len(argv) > 4 else 60)
    elif cmd == 'gsoecho':
        gsoecho(argv[2], int(argv[3]),
                float(argv[4]) if len(argv) > 4 else 60)
    elif cmd == 'gso':
        gso(argv[2], int(argv[3]), int(argv[4]),
            [tuple(int(y) for y in x.split(':')) for x in
             argv[5].split(',')])
    elif cmd == 'refused':
        refused(argv[2], int(argv[3]))
    elif cmd == 'send':
        sport = int(argv[argv.index('--sport') + 1]) if '--sport' in argv \
            else None
        send(argv[2], int(argv[3]), sport, '--expect-echo' in argv)
    elif cmd == 'many':
        many(argv[2], int(argv[3]), int(argv[4]), int(argv[5]))
    elif cmd == 'recverr':
        recverr(argv[2], int(argv[3]), int(argv[4]) if len(argv) > 4 else 0)
    elif cmd == 'inject':
        inject(argv[2], argv[3], argv[4], argv[5], argv[6], int(argv[7]),
               argv[8].encode())
    else:
        sys.exit("unknown command " + cmd)


if __name__ == '__main__':
    main(sys.argv)
