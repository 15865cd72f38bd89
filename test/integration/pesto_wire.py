#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# pesto_wire.py - A small client of pesto's wire protocol (upstream passt
# 2026-07, version 2), written from the protocol's facts, not from our C:
#
#   server -> client on connect:
#     hello   magic "basil:s\0" (8), version, pif name size (128), IFNAMSIZ
#             (16): big-endian u32 each
#     tables  u8 pif id (HOST 1, TAP 2, SPLICE 3), name[128], u32 caps,
#             u32 count, count rules; u8 0 ends the list
#   client -> server, to change something: u8 pif id, u32 count, rules, for
#   each table it keeps; u8 0.  No reply.
#   rule (56 bytes): addr[16] (IPv4-mapped), taddr[16] (zero: default),
#   ifname[16], first, last, to (big-endian u16), proto (6, 17), flags
#   (dual stack 1, weak 2, scan 4)
#
# Usage:
#   pesto_wire.py show SOCK             print hello and rules, one per line
#   pesto_wire.py add SOCK PIF RULE     read the tables, append a rule to
#                                       table PIF (HOST or SPLICE), send all
#   pesto_wire.py del SOCK PIF RULE     same, without the rule given
#   pesto_wire.py raw SOCK HEX [HOLD_S] read the tables, send HEX bytes,
#                                       keep the connection HOLD_S seconds
#   pesto_wire.py fakeserver SOCK VER   serve one client a hello of VER
# RULE is PROTO:ADDR:FIRST-LAST:TADDR:TO:FLAGS, ADDR "*" for dual stack
# (::, flag 1 added), TADDR "-" for none, e.g. tcp:*:5701-5701:-:5701:0.
import ipaddress
import socket
import struct
import sys
import time

PIFS = {"HOST": 1, "TAP": 2, "SPLICE": 3}
PROTO = {"tcp": 6, "udp": 17}


def recv_exact(s, n):
    """Read exactly n bytes, or fail"""
    b = b""
    while len(b) < n:
        d = s.recv(n - len(b))
        if not d:
            raise EOFError("stream ended after %d of %d bytes" % (len(b), n))
        b += d
    return b


def addr16(text):
    """16-byte address: IPv4-mapped for IPv4, zero for '*' and '-'"""
    if text in ("*", "-"):
        return bytes(16)
    a = ipaddress.ip_address(text.strip("[]"))
    if a.version == 4:
        return bytes(10) + b"\xff\xff" + a.packed
    return a.packed


def addr_text(b):
    """Address of 16 bytes, as text"""
    if b[:12] == bytes(10) + b"\xff\xff":
        return str(ipaddress.IPv4Address(b[12:]))
    return "[%s]" % ipaddress.IPv6Address(b)


def rule_pack(text):
    """56-byte rule from PROTO:ADDR:FIRST-LAST:TADDR:TO:FLAGS"""
    proto, rest = text.split(":", 1)
    # the addresses may hold colons: split from the right
    parts = rest.rsplit(":", 4)
    addr, ports, taddr, to, flags = parts
    first, last = (int(x) for x in ports.split("-"))
    flags = int(flags) | (1 if addr == "*" else 0)
    return (addr16(addr) + addr16(taddr) + bytes(16) +
            struct.pack(">HHHBB", first, last, int(to), PROTO[proto], flags))


def rule_text(pif, r):
    """One rule, as a line"""
    addr, taddr, ifname = r[:16], r[16:32], r[32:48].rstrip(b"\0").decode()
    first, last, to, proto, flags = struct.unpack(">HHHBB", r[48:56])
    name = {6: "tcp", 17: "udp"}.get(proto, str(proto))
    a = "*" if flags & 1 else addr_text(addr)
    t = "-" if taddr in (bytes(16), bytes(10) + b"\xff\xff" + bytes(4)) \
        else addr_text(taddr)
    return "%s %s %s%s %d-%d => %s %d flags %d" % (
        pif, name, a, "%" + ifname if ifname else "", first, last, t, to,
        flags)


def greeting(s):
    """Read hello and tables: ((version, namesize, ifnamsiz), [(id, name,
    caps, [rules])])"""
    h = recv_exact(s, 20)
    if h[:8] != b"basil:s\0":
        raise ValueError("bad magic %r" % h[:8])
    hello = struct.unpack(">III", h[8:])
    tables = []
    while True:
        pif = recv_exact(s, 1)[0]
        if pif == 0:
            return hello, tables
        info = recv_exact(s, 136)
        name = info[:128].split(b"\0")[0].decode()
        caps, count = struct.unpack(">II", info[128:])
        rules = [recv_exact(s, 56) for _ in range(count)]
        tables.append((pif, name, caps, rules))


def connect(path):
    """Connected stream socket"""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(path)
    return s


def send_tables(s, tables):
    """Replacement tables, upstream's client framing"""
    out = b""
    for pif, _name, _caps, rules in tables:
        out += struct.pack(">BI", pif, len(rules)) + b"".join(rules)
    s.sendall(out + b"\0")
    s.shutdown(socket.SHUT_RDWR)
    s.close()


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "fakeserver":
        ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ls.bind(path)
        ls.listen(1)
        c, _ = ls.accept()
        c.sendall(b"basil:s\0" + struct.pack(">III", int(sys.argv[3]),
                                              128, 16) + b"\0")
        time.sleep(2)
        return 0
    s = connect(path)
    hello, tables = greeting(s)
    if cmd == "show":
        print("hello version %d pifnamesize %d ifnamsiz %d" % hello)
        for pif, name, caps, rules in tables:
            print("pif %d %s caps 0x%x rules %d" % (pif, name, caps,
                                                    len(rules)))
            for r in rules:
                print(rule_text(name, r))
        s.close()
        return 0
    if cmd in ("add", "del"):
        want = PIFS[sys.argv[3]]
        r = rule_pack(sys.argv[4])
        new = []
        for pif, name, caps, rules in tables:
            if pif == want:
                if cmd == "add":
                    rules = rules + [r]
                else:
                    if r not in rules:
                        print("no such rule", file=sys.stderr)
                        return 1
                    rules = [x for x in rules if x != r]
            new.append((pif, name, caps, rules))
        send_tables(s, new)
        return 0
    if cmd == "raw":
        s.sendall(bytes.fromhex(sys.argv[3]))
        time.sleep(float(sys.argv[4]) if len(sys.argv) > 4 else 0)
        s.close()
        return 0
    print("unknown command", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
