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
#   udptool.py echo ADDR PORT [SECONDS]
#       echo server: every datagram back to its sender, as is
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
import socket
import sys
import time


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
    s.bind((addr, port))
    s.settimeout(1.0)
    end = time.time() + seconds
    while time.time() < end:
        try:
            data, peer = s.recvfrom(65536)
        except socket.timeout:
            continue
        s.sendto(data, peer)


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
    elif cmd == 'echo':
        echo(argv[2], int(argv[3]), float(argv[4]) if len(argv) > 4 else 60)
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
