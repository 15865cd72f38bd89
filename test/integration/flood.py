#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""flood.py - Inject random and mutated frames into a tap interface

Usage: flood.py IFACE COUNT [--seed N] [--avoid-port P]

Runs inside the namespace pasta serves and writes COUNT frames to IFACE
through a raw packet socket (packet(7)), so pasta reads them as frames from
its guest.  Frames start from templates of what a guest sends (TCP with and
without options, UDP including DHCP and DHCPv6, ICMP and ICMPv6 echo, NDP,
ARP, IPv4 options and fragments, IPv6 extension header chains), then get
mutated: flipped bytes, truncation (down to zero bytes), random length
fields, bad checksums, garbage tails, oversized frames, pure noise.

Destination addresses are always put back into the ranges tests may use
(198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32, plus loopback), so that
whatever pasta connects to on the frames' behalf stays in the scratch
topology.  Frames of the TCP port given with --avoid-port are left alone
(that is the transfer other flows must not disturb).  The source MAC is the
interface's own, as for any frame the namespace sends.

Prints how many frames were sent and how many the kernel refused.
"""
import os
import random
import socket
import struct
import sys

ETH_P_ALL = 3
OUR_MAC = bytes.fromhex("9a559a559a55")    # pasta's default (passt.1)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


class Gen:
    def __init__(self, r, src_mac, avoid):
        self.r = r
        self.src_mac = src_mac
        self.avoid = avoid

    def ip4(self):
        r = self.r
        return r.choice([
            "198.51.100.2", "198.51.100.%d" % r.randrange(1, 255),
            "203.0.113.%d" % r.randrange(1, 255), "127.0.0.1"])

    def ip6(self):
        r = self.r
        return r.choice([
            "2001:db8:1::2", "2001:db8::%x" % r.randrange(1, 65535),
            "2001:db8:1::%x" % r.randrange(1, 65535), "::1",
            "fe80::1", "ff02::2", "ff02::1:2", "ff02::1:ff00:1"])

    def port(self):
        p = self.r.choice([self.r.randrange(1, 65536), 53, 67, 68, 80, 443,
                           547, 0, 65535])
        return p if p != self.avoid else p + 1

    def tcp(self, src, dst, v6):
        r = self.r
        opts = r.choice([
            b"", bytes.fromhex("020405b4"),
            bytes.fromhex("020405b40402080a00000001000000000103030e"),
            bytes.fromhex("0204"), bytes.fromhex("0300"), bytes(r.randrange(0, 41)),
            bytes(r.getrandbits(8) for _ in range(r.randrange(0, 41)))])
        opts = opts[:40] + b"\0" * (-len(opts[:40]) % 4)
        flags = r.choice([0x02, 0x10, 0x18, 0x11, 0x04, 0x14, 0x12, 0x01,
                          0x3f, r.randrange(256)])
        data = bytes(r.randrange(0, 1400)) if r.random() < 0.3 else b""
        h = struct.pack("!HHIIBBHHH", self.port(), self.port(),
                        r.getrandbits(32), r.getrandbits(32),
                        ((20 + len(opts)) // 4) << 4, flags,
                        r.randrange(65536), 0, 0) + opts
        return h + data

    def udp(self, src, dst, v6):
        r = self.r
        data = bytes(r.getrandbits(8) for _ in range(r.randrange(0, 300)))
        sp, dp = self.port(), self.port()
        if r.random() < 0.2:
            sp, dp = (546, 547) if v6 else (68, 67)
            data = (bytes([r.choice([1, 3, 11])]) + data) if v6 else \
                (bytes([1, 1, 6, 0]) + bytes(232) + b"\x63\x82\x53\x63" +
                 b"\x35\x01" + bytes([r.choice([1, 3, 8])]) + data + b"\xff")
        return struct.pack("!HHHH", sp, dp, 8 + len(data), 0) + data

    def icmp(self, v6):
        r = self.r
        t = r.choice([128, 133, 135, 136, 1, 143]) if v6 else \
            r.choice([8, 0, 3, 13])
        body = struct.pack("!HH", r.randrange(65536), r.randrange(65536))
        if v6 and t == 135:
            body = bytes(4) + socket.inet_pton(socket.AF_INET6, self.ip6()) + \
                bytes([1, 1]) + self.src_mac
        body += bytes(r.randrange(0, 64))
        return struct.pack("!BBH", t, 0, 0) + body

    def ipv4(self):
        r = self.r
        src = socket.inet_aton(r.choice(["198.51.100.1", "0.0.0.0",
                                         "198.51.100.%d" % r.randrange(256)]))
        dst = socket.inet_aton(self.ip4())
        proto = r.choice([6, 6, 17, 1, 58, r.randrange(256)])
        l4 = self.tcp(src, dst, False) if proto == 6 else \
            self.udp(src, dst, False) if proto == 17 else self.icmp(False)
        opts = b""
        if r.random() < 0.1:
            opts = bytes([7, 7, 4]) + bytes(5)     # record route
        ihl = 5 + len(opts) // 4
        frag = r.choice([0x4000] * 8 + [0x2000, 0x0010, 0x2001])
        h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, 20 + len(opts) + len(l4),
                        r.randrange(65536), frag, r.choice([64, 1, 0, 255]),
                        proto, 0, src, dst) + opts
        return 0x0800, h, l4

    def ipv6(self):
        r = self.r
        src = socket.inet_pton(socket.AF_INET6, r.choice([
            "2001:db8:1::1", "fe80::5054:ff:fe12:3456", "::",
            "2001:db8::%x" % r.randrange(65536)]))
        dst = socket.inet_pton(socket.AF_INET6, self.ip6())
        proto = r.choice([6, 6, 17, 58, 58, r.randrange(256)])
        l4 = self.tcp(src, dst, True) if proto == 6 else \
            self.udp(src, dst, True) if proto == 17 else self.icmp(True)
        # Extension header chain: hop-by-hop, routing, destination options,
        # fragment, in order or not, short or long
        ext, nh = b"", proto
        for _ in range(r.choice([0, 0, 0, 1, 2, 3, 8, 20])):
            t = r.choice([0, 43, 60, 44, 60, r.randrange(256)])
            if t == 44:
                e = struct.pack("!BBHI", nh, 0, r.randrange(65536),
                                r.getrandbits(32))
            else:
                n = r.choice([0, 0, 1, 2, 255])
                e = struct.pack("!BB", nh, n) + bytes(6 + 8 * min(n, 4))
            ext, nh = e + ext, t
        pay = ext + l4
        h = struct.pack("!IHBB16s16s", 0x60000000, len(pay), nh,
                        r.choice([255, 64, 1]), src, dst)
        return 0x86dd, h, pay

    def arp(self):
        r = self.r
        op = r.choice([1, 2, 3, r.randrange(65536)])
        b = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, self.src_mac,
                        socket.inet_aton("198.51.100.1"), bytes(6),
                        socket.inet_aton(self.ip4()))
        return 0x0806, b, b""

    def frame(self):
        r = self.r
        kind = r.random()
        if kind < 0.02:     # noise, any length
            return bytes(r.getrandbits(8) for _ in range(r.randrange(0, 200)))
        et, l3, l4 = self.ipv4() if kind < 0.45 else \
            self.ipv6() if kind < 0.9 else self.arp()
        dmac = OUR_MAC if r.random() < 0.8 else \
            bytes(r.getrandbits(8) for _ in range(6))
        f = bytearray(dmac + self.src_mac + struct.pack("!H", et) + l3 + l4)
        self.mutate(f, et, len(l3))
        return bytes(f)

    def mutate(self, f, et, l3len):
        r = self.r
        m = r.random()
        if m < 0.25:                             # flipped bytes
            for _ in range(r.randrange(1, 9)):
                i = r.randrange(len(f))
                f[i] = r.getrandbits(8)
        elif m < 0.35:                           # truncated
            del f[r.randrange(0, len(f) + 1):]
        elif m < 0.45 and len(f) > 20:           # random length field
            off = {0x0800: 16, 0x86dd: 18}.get(et, 14)
            f[off:off + 2] = struct.pack("!H", r.randrange(65536))
        elif m < 0.5:                            # garbage tail
            f += bytes(r.getrandbits(8) for _ in range(r.randrange(1, 64)))
        elif m < 0.51:                           # oversized
            f += bytes(r.randrange(1500, 65400))
        # Keep destinations in the test ranges, fix the IPv4 header sum
        # most of the time (else: a bad checksum)
        if et == 0x0800 and len(f) >= 34 and f[12:14] == b"\x08\x00":
            f[30:34] = socket.inet_aton(self.ip4())
            ihl = (f[14] & 15) * 4
            if r.random() < 0.8 and 20 <= ihl and 14 + ihl <= len(f):
                f[24:26] = b"\0\0"
                f[24:26] = struct.pack("!H", csum(bytes(f[14:14 + ihl])))
        if et == 0x86dd and len(f) >= 54 and f[12:14] == b"\x86\xdd":
            f[38:54] = socket.inet_pton(socket.AF_INET6, self.ip6())
        for off in (34, 54):                     # never the transfer's port
            if len(f) >= off + 4:
                for p in (off, off + 2):
                    if struct.unpack("!H", f[p:p + 2])[0] == self.avoid:
                        f[p + 1] ^= 1


def main():
    a = sys.argv[1:]
    seed, avoid = 1, 0
    if "--seed" in a:
        i = a.index("--seed"); seed = int(a[i + 1]); del a[i:i + 2]
    if "--avoid-port" in a:
        i = a.index("--avoid-port"); avoid = int(a[i + 1]); del a[i:i + 2]
    iface, count = a[0], int(a[1])
    mac = bytes.fromhex(open("/sys/class/net/%s/address" % iface).read()
                        .strip().replace(":", ""))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    g = Gen(random.Random(seed), mac, avoid)
    sent = refused = 0
    for _ in range(count):
        try:
            s.send(g.frame())
            sent += 1
        except OSError:
            refused += 1
    print("frames: %d sent, %d refused by the kernel (too short or too long)"
          % (sent, refused))


if __name__ == "__main__":
    main()
