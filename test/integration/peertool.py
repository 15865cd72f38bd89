#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""peertool.py - Who-is-calling peers and connect() outcomes for the tests

  serve-peer PORT [--bind A]   for each connection: send the peer's address
                               and a newline (IPv4-mapped shown as IPv4),
                               close; exits after 60 s without connections
  peer HOST PORT               connect, print the line the server sends
  connect-errno HOST PORT      connect (8 s at most) and print the outcome
                               as the errno name the kernel gave
                               (ECONNREFUSED, EHOSTUNREACH, ...), or
                               "connected" or "timeout"
  connect-icmp HOST PORT       connect-errno, then the first ICMP or
                               ICMPv6 error a raw socket saw meanwhile
                               about a TCP packet to HOST PORT: "ERRNO
                               TYPE CODE FROM" ("ERRNO none" if none)
  icmp-src 4|6                 raw socket: print the source address of the
                               first echo request that arrives (10 s at most)
  udp-log PORT --bind A        for each datagram to A PORT: print "PEER
                               LENGTH SHA256" (flushed); exits after 60 s
                               without datagrams
  udp-send HOST PORT SPORT FILE  send FILE's contents as one datagram to
                               HOST PORT from port SPORT (SO_REUSEADDR:
                               a repeat has the same 4-tuple)
  udp-echo PORT --bind A       udp-log, and each datagram goes back to
                               its sender
  udp-ask HOST PORT FILE [--bind A]  send FILE's contents as one datagram,
                               print "SOURCE LENGTH SHA256" of the first
                               answer, or "timeout" after 3 s
"""
import errno
import ipaddress
import socket
import sys


def plain(addr):
    """Address as text, IPv4-mapped IPv6 shown as IPv4"""
    a = ipaddress.ip_address(addr.split('%')[0])
    if a.version == 6 and a.ipv4_mapped:
        a = a.ipv4_mapped
    return str(a)


def serve_peer(port, bind):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if bind and ':' not in bind:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind((bind or '::', port))
    s.listen(16)
    s.settimeout(60)
    while True:
        try:
            c, peer = s.accept()
        except socket.timeout:
            return 0
        c.sendall((plain(peer[0]) + '\n').encode())
        c.close()


def peer(host, port):
    c = socket.create_connection((host, port), timeout=8)
    line = c.makefile().readline().strip()
    print(line)
    return 0 if line else 1


def connect_errno(host, port):
    fam = socket.AF_INET6 if ':' in host else socket.AF_INET
    c = socket.socket(fam, socket.SOCK_STREAM)
    c.settimeout(8)
    try:
        c.connect((host, port))
        print('connected')
    except socket.timeout:
        print('timeout')
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))
    return 0


def connect_icmp(host, port):
    import select
    v6 = ':' in host
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    r = socket.socket(fam, socket.SOCK_RAW,
                      socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP)
    c = socket.socket(fam, socket.SOCK_STREAM)
    c.settimeout(8)
    try:
        c.connect((host, port))
        res = 'connected'
    except socket.timeout:
        res = 'timeout'
    except OSError as e:
        res = errno.errorcode.get(e.errno, str(e.errno))
    dst = socket.inet_pton(fam, host)
    while select.select([r], [], [], 0.5)[0]:
        data, src = r.recvfrom(2048)
        icmp = data if v6 else data[(data[0] & 15) * 4:]
        typ, code = icmp[0], icmp[1]
        if typ not in ((1, 2, 3, 4) if v6 else (3, 11, 12)):
            continue
        inner = icmp[8:]
        if v6:
            idst, proto, ihl = inner[24:40], inner[6], 40
        else:
            idst, proto, ihl = inner[16:20], inner[9], (inner[0] & 15) * 4
        if idst != dst or proto != 6 or \
                int.from_bytes(inner[ihl + 2:ihl + 4], 'big') != port:
            continue
        print('%s %d %d %s' % (res, typ, code, plain(src[0])))
        return 0
    print('%s none' % res)
    return 0


def icmp_src(fam):
    if fam == '4':
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                          socket.IPPROTO_ICMP)
    else:
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW,
                          socket.IPPROTO_ICMPV6)
    s.settimeout(10)
    while True:
        data, src = s.recvfrom(2048)
        typ = data[20] if fam == '4' else data[0]
        if typ == (8 if fam == '4' else 128):
            print(plain(src[0]))
            return 0


def udp_log(port, bind):
    import hashlib
    fam = socket.AF_INET6 if ':' in bind else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((bind, port))
    s.settimeout(60)
    while True:
        try:
            data, src = s.recvfrom(65536)
        except socket.timeout:
            return 0
        print('%s %d %s' % (plain(src[0]), len(data),
                            hashlib.sha256(data).hexdigest()), flush=True)


def udp_echo(port, bind):
    import hashlib
    fam = socket.AF_INET6 if ':' in bind else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((bind, port))
    s.settimeout(60)
    while True:
        try:
            data, src = s.recvfrom(65536)
        except socket.timeout:
            return 0
        print('%s %d %s' % (plain(src[0]), len(data),
                            hashlib.sha256(data).hexdigest()), flush=True)
        s.sendto(data, src)


def udp_ask(host, port, path, bind):
    import hashlib
    fam = socket.AF_INET6 if ':' in host else socket.AF_INET
    with open(path, 'rb') as f:
        data = f.read()
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if bind:
        s.bind((bind, 0))
    s.settimeout(3)
    s.sendto(data, (host, port))
    try:
        ans, src = s.recvfrom(65536)
    except socket.timeout:
        print('timeout')
        return 1
    print('%s %d %s' % (plain(src[0]), len(ans),
                        hashlib.sha256(ans).hexdigest()))
    return 0


def udp_send(host, port, sport, path):
    fam = socket.AF_INET6 if ':' in host else socket.AF_INET
    with open(path, 'rb') as f:
        data = f.read()
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('::' if fam == socket.AF_INET6 else '0.0.0.0', sport))
    s.sendto(data, (host, port))
    return 0


def main(argv):
    cmd = argv[1]
    bind = None
    if '--bind' in argv:
        i = argv.index('--bind')
        bind = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if cmd == 'serve-peer':
        return serve_peer(int(argv[2]), bind)
    if cmd == 'peer':
        return peer(argv[2], int(argv[3]))
    if cmd == 'connect-errno':
        return connect_errno(argv[2], int(argv[3]))
    if cmd == 'connect-icmp':
        return connect_icmp(argv[2], int(argv[3]))
    if cmd == 'icmp-src':
        return icmp_src(argv[2])
    if cmd == 'udp-log':
        return udp_log(int(argv[2]), bind)
    if cmd == 'udp-echo':
        return udp_echo(int(argv[2]), bind)
    if cmd == 'udp-ask':
        return udp_ask(argv[2], int(argv[3]), argv[4], bind)
    if cmd == 'udp-send':
        return udp_send(argv[2], int(argv[3]), int(argv[4]), argv[5])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
