#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""passt_client.py - A guest without QEMU: speaks passt's stream directly

The stream is QEMU's -netdev stream format: each Ethernet frame preceded by
its length as a 4-byte big-endian integer.  Frames are built here from the
RFCs (Ethernet II, ARP RFC 826, IPv4 RFC 791, UDP RFC 768, BOOTP/DHCP RFC
2131/2132, TCP RFC 9293 with options RFC 7323), nothing from the code under
test.  Output is "key value" lines the calling script compares with the
topology.

  lease SOCK                 DHCPDISCOVER, DHCPREQUEST; prints the ACK
  arp SOCK IP                ARP request; prints the answering MAC
  tcp SOCK DST PORT SEED N   TCP handshake to DST:PORT (a tcptool
                             serve-pattern server), asks for N bytes of
                             stream SEED, verifies them, then resets
  slow SOCK DST PORT SEED N  the same with a 1 MiB window and a reader that
                             sleeps first, so passt's writes come up short;
                             frames must arrive whole, in sequence
  split SOCK IP              several frames in one write; one frame written
                             a byte at a time; prefix split from its frame
  bad SOCK LEN IP            an ARP request, then a frame claiming length
                             LEN: the reply must come, then EOF
  hold SOCK DST PORT         open a TCP connection and keep it (until killed)
  upload SOCK DST PORT SEED N  send N bytes of stream SEED, then a FIN, and
                             disconnect as soon as the FIN is ACKed: what
                             passt ACKed must still reach the host peer
  udp-batch SOCK DST PORT NFLOWS ROUNDS SIZES
                             NFLOWS UDP flows (source ports) to an echo
                             server at DST:PORT, rounds of 4 x 8 datagrams
                             per flow interleaved 8 by 8 (udptool.py
                             flows: same datagrams and sizes), each round
                             in one write of the stream; every echo must
                             come back whole, checksum right, in order
  udp-twice SOCK DST PORT SPORT FILE GO
                             FILE's contents as one datagram from SPORT to
                             DST:PORT; once the file GO exists (30 s at
                             most), the same datagram again: one 4-tuple,
                             the guest attached all along
  expect-syn SOCK PORT       wait for a SYN to PORT from passt (-t)
  expect-syn-now SOCK PORT   the same without a DHCP lease first; then
                             prints "ms N": milliseconds from attaching
                             to the SYN (no interpreter start-up in it)
  withfd IP CMD...           make a socketpair, run CMD with "{fd}" in its
                             arguments replaced by one end (passt -F), get
                             a lease and an ARP reply for IP on the other,
                             close it; prints CMD's exit status

Exit status 0 on success, 1 with a message on failure.
"""
import hashlib
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tcptool  # noqa: E402
import udptool  # noqa: E402

MY_MAC = bytes.fromhex("5e0000aabb01")
BCAST = b"\xff" * 6


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def csum(data):
    """Internet checksum, RFC 1071."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def eth(dst, etype, payload):
    return dst + MY_MAC + struct.pack("!H", etype) + payload


def ipv4(src, dst, proto, payload):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0x1234,
                      0x4000, 64, proto, 0, src, dst)
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + payload


def l4_csum(src, dst, proto, seg):
    pseudo = src + dst + struct.pack("!BBH", 0, proto, len(seg))
    return csum(pseudo + seg)


def udp(src, dst, sport, dport, payload):
    seg = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    c = l4_csum(src, dst, 17, seg) or 0xffff
    return ipv4(src, dst, 17, seg[:6] + struct.pack("!H", c) + seg[8:])


def tcp(src, dst, sport, dport, seq, ack, flags, win, opts=b"", data=b""):
    off = (20 + len(opts)) // 4
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, flags,
                      win, 0, 0) + opts + data
    c = l4_csum(src, dst, 6, seg)
    return ipv4(src, dst, 6, seg[:16] + struct.pack("!H", c) + seg[18:])


FIN, SYN, RST, PSH, ACK = 1, 2, 4, 8, 16


class Link:
    """One connection to passt, with the stream's framing."""

    def __init__(self, path=None, fd=None):
        if fd is not None:
            self.s = socket.socket(fileno=fd)
        else:
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.s.connect(path)
        self.buf = b""

    def send(self, frame):
        self.s.sendall(struct.pack("!I", len(frame)) + frame)

    def recv(self, timeout):
        """Next frame, or None at timeout; fails on EOF or bad framing."""
        end = time.monotonic() + timeout
        while True:
            if len(self.buf) >= 4:
                n = struct.unpack("!I", self.buf[:4])[0]
                if n < 14 or n > 65535 + 14:
                    fail("bad length %d from passt" % n)
                if len(self.buf) >= 4 + n:
                    f = self.buf[4:4 + n]
                    self.buf = self.buf[4 + n:]
                    return f
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                d = self.s.recv(1 << 20)
            except socket.timeout:
                return None
            if not d:
                fail("EOF from passt")
            self.buf += d

    def expect(self, pred, timeout=10, what="frame"):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            f = self.recv(end - time.monotonic())
            if f is None:
                break
            r = pred(f)
            if r:
                return r
        fail("no %s within %ds" % (what, timeout))

    def eof(self, timeout):
        """True if passt closes the connection within timeout."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.s.settimeout(max(end - time.monotonic(), 0.01))
            try:
                d = self.s.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                return True
            if not d:
                return True
        return False


# DHCP, RFC 2131 section 2 and RFC 2132

def dhcp_msg(mtype, xid, extra=b""):
    bootp = struct.pack("!BBBBIHH4s4s4s4s16s64s128s", 1, 1, 6, 0, xid, 0,
                        0x8000, b"\0" * 4, b"\0" * 4, b"\0" * 4, b"\0" * 4,
                        MY_MAC + b"\0" * 10, b"", b"")
    opts = b"\x63\x82\x53\x63" + bytes([53, 1, mtype])
    opts += bytes([55, 7, 1, 3, 6, 15, 26, 119, 121]) + extra + b"\xff"
    payload = bootp + opts
    return eth(BCAST, 0x0800, udp(b"\0" * 4, b"\xff" * 4, 68, 67, payload))


def parse_dhcp(f, xid):
    if len(f) < 14 + 20 + 8 + 240 or f[12:14] != b"\x08\x00":
        return None
    ihl = (f[14] & 15) * 4
    if f[14 + 9] != 17:
        return None
    u = f[14 + ihl:]
    if struct.unpack("!H", u[2:4])[0] != 68:
        return None
    b = u[8:]
    if b[0] != 2 or struct.unpack("!I", b[4:8])[0] != xid:
        return None
    if b[236:240] != b"\x63\x82\x53\x63":
        fail("no magic cookie")
    opts, i = {}, 240
    while i < len(b) and b[i] != 255:
        if b[i] == 0:
            i += 1
            continue
        opts[b[i]] = b[i + 2:i + 2 + b[i + 1]]
        i += 2 + b[i + 1]
    return {"yiaddr": b[16:20], "opts": opts, "src_mac": f[6:12]}


def lease(link):
    xid = 0x5a5a0001
    link.send(dhcp_msg(1, xid))
    off = link.expect(lambda f: parse_dhcp(f, xid), what="DHCPOFFER")
    if off["opts"].get(53) != b"\x02":
        fail("not an offer: %r" % off["opts"].get(53))
    sid = off["opts"].get(54, b"")
    link.send(dhcp_msg(3, xid, bytes([50, 4]) + off["yiaddr"] +
                       bytes([54, 4]) + sid))
    ack = link.expect(lambda f: parse_dhcp(f, xid), what="DHCPACK")
    if ack["opts"].get(53) != b"\x05":
        fail("not an ACK: %r" % ack["opts"].get(53))
    o = ack["opts"]
    ip4 = socket.inet_ntoa
    print("address", ip4(ack["yiaddr"]))
    if 1 in o:
        print("mask", ip4(o[1]))
    if 3 in o:
        print("router", ip4(o[3][:4]))
    if 54 in o:
        print("server", ip4(o[54]))
    if 51 in o:         # RFC 2132 9.2: lease time, seconds
        print("lease", struct.unpack("!I", o[51])[0])
    if 6 in o:
        print("dns", " ".join(ip4(o[6][i:i + 4])
                              for i in range(0, len(o[6]), 4)))
    else:
        print("dns none")
    if 26 in o:
        print("mtu", struct.unpack("!H", o[26])[0])
    if 119 in o:
        print("search", o[119].hex())
    else:
        print("search none")
    if 15 in o:
        print("domain", o[15].decode(errors="replace"))
    print("server_mac", ack["src_mac"].hex(":"))
    return ack


def arp_req(my_ip, target):
    p = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, MY_MAC, my_ip,
                    b"\0" * 6, target)
    return eth(BCAST, 0x0806, p)


def parse_arp_reply(f, target):
    if f[12:14] != b"\x08\x06" or len(f) < 42:
        return None
    op = struct.unpack("!H", f[20:22])[0]
    if op != 2 or f[28:32] != target:
        return None
    if f[32:38] != MY_MAC:
        fail("ARP reply not to our MAC")
    return f[22:28]


def arp(link, my_ip, target):
    link.send(arp_req(my_ip, target))
    mac = link.expect(lambda f: parse_arp_reply(f, target), what="ARP reply")
    print("arp", mac.hex(":"))
    return mac


class TcpPeer:
    """The guest's side of one TCP connection, enough for a download."""

    def __init__(self, link, gw_mac, src, dst, dport, rwnd_shift):
        self.link, self.gw_mac, self.src, self.dst = link, gw_mac, src, dst
        self.sport, self.dport = 40000 + os.getpid() % 20000, dport
        self.iss, self.shift = 0x10000000, rwnd_shift
        self.rcv_nxt = self.snd_nxt = 0

    def out(self, flags, data=b"", opts=b""):
        self.link.send(eth(self.gw_mac, 0x0800,
                           tcp(self.src, self.dst, self.sport, self.dport,
                               self.snd_nxt, self.rcv_nxt, flags, 0xffff,
                               opts, data)))
        self.snd_nxt = (self.snd_nxt + len(data) +
                        (1 if flags & (SYN | FIN) else 0)) & 0xffffffff

    def parse(self, f):
        """(flags, seq, ack, payload) of a segment of ours, else None."""
        if f[12:14] != b"\x08\x00" or f[14 + 9] != 6:
            return None
        ihl = (f[14] & 15) * 4
        tot = struct.unpack("!H", f[16:18])[0]
        ip = f[14:14 + tot]
        if ip[12:16] != self.dst or ip[16:20] != self.src:
            return None
        t = ip[ihl:]
        sp, dp, seq, ack, off, fl = struct.unpack("!HHIIBB", t[:14])
        if sp != self.dport or dp != self.sport:
            return None
        if l4_csum(self.dst, self.src, 6, t) != 0:
            fail("bad TCP checksum from passt")
        return fl, seq, ack, t[(off >> 4) * 4:]

    def connect(self):
        self.snd_nxt = self.iss
        mss = struct.pack("!BBH", 2, 4, 1460)
        ws = struct.pack("!BBB", 3, 3, self.shift) + b"\x01"
        self.out(SYN, opts=mss + ws)
        frames = []

        def synack(f):
            r = self.parse(f)
            if r:
                frames.append(f)
            return r
        sa = self.link.expect(synack, what="SYN-ACK")
        fl, seq, ack, _ = sa
        self.syn_ws = 0
        t = frames[-1][14 + (frames[-1][14] & 15) * 4:]
        o, i = t[20:(t[12] >> 4) * 4], 0
        while i < len(o) and o[i] != 0:
            if o[i] == 1:
                i += 1
                continue
            if o[i] == 3:
                self.syn_ws = o[i + 2]
            i += max(o[i + 1], 2)
        if fl & RST:
            fail("connection refused (RST)")
        if not (fl & SYN and fl & ACK) or ack != self.iss + 1:
            fail("not a SYN-ACK for our SYN: flags %#x ack %#x" % (fl, ack))
        self.rcv_nxt = (seq + 1) & 0xffffffff
        self.out(ACK)
        print("handshake ok")

    def upload(self, seed, size):
        """Send SIZE bytes of SEED and a FIN, in segments of up to 32000
        bytes, keeping at most the window passt offers (RFC 7323 scale from
        its SYN-ACK) and 1 MiB in flight; go back to the first unACKed byte
        after 1 s without progress.  Returns once the FIN is ACKed."""
        data = b"".join(tcptool.stream(seed, size))
        base = self.snd_nxt            # sequence number of data[0]
        una, nxt, wnd = 0, 0, 65535
        last = time.monotonic()
        end = last + 60
        while time.monotonic() < end:
            while nxt <= size and nxt - una < min(wnd, 1 << 20):
                n = min(32000, size - nxt, min(wnd, 1 << 20) - (nxt - una))
                self.snd_nxt = (base + nxt) & 0xffffffff
                if nxt == size:
                    self.out(ACK | FIN)
                    nxt += 1
                    break
                if n <= 0:
                    break
                self.out(ACK, data[nxt:nxt + n])
                nxt += n
            f = self.link.recv(0.2)
            seg = self.parse(f) if f else None
            if seg:
                fl, seq, ack, _ = seg
                if fl & RST:
                    fail("reset during upload")
                got = (ack - base) & 0xffffffff
                if got <= size + 1 and got > una:
                    una, last = got, time.monotonic()
                wnd = struct.unpack("!H", f[14 + (f[14] & 15) * 4 + 14:][:2])[0] << self.syn_ws
                if una == size + 1:
                    print("upload: %d bytes and FIN ACKed" % size)
                    return
            elif time.monotonic() - last > 1:
                nxt, last = una, time.monotonic()   # go back
        fail("upload stalled at %d of %d bytes" % (una, size))

    def download(self, seed, size, sleep_s=0.0):
        self.out(ACK | PSH, ("%s %d\n" % (seed, size)).encode())
        if sleep_s:
            time.sleep(sleep_s)     # passt's socket fills up meanwhile
        h, got, gaps, dups = hashlib.sha256(), 0, 0, 0
        fin = False
        end = time.monotonic() + 60
        while not fin and time.monotonic() < end:
            f = self.link.recv(5)
            if f is None:
                fail("download stalled at %d of %d bytes" % (got, size))
            seg = self.parse(f)
            if not seg:
                continue
            fl, seq, _, data = seg
            if fl & RST:
                fail("reset during download")
            if data:
                if seq == self.rcv_nxt:
                    h.update(data)
                    got += len(data)
                    self.rcv_nxt = (self.rcv_nxt + len(data)) & 0xffffffff
                elif (seq - self.rcv_nxt) & 0x80000000:
                    dups += 1
                else:
                    gaps += 1
            if fl & FIN and seq + len(data) == self.rcv_nxt:
                self.rcv_nxt = (self.rcv_nxt + 1) & 0xffffffff
                fin = True
            if not self.link.buf or fin:
                self.out(ACK)
        print("bytes", got)
        print("gaps", gaps)
        print("dups", dups)
        if got != size:
            fail("got %d bytes of %d" % (got, size))
        if h.hexdigest() != tcptool.stream_digest(seed, size):
            fail("sha256 differs")
        print("sha256 ok")
        self.out(RST)


def udp_batch(link, me, dst, port, nflows, rounds, sizes):
    """See udp-batch in the usage text."""
    mac = arp(link, me, dst)
    sport0 = 40000 + os.getpid() % 10000
    bases = [sizes[f % len(sizes)] for f in range(nflows)]
    sent, got, n = [0] * nflows, [0] * nflows, 0
    for rnd in range(rounds):
        want, out = {}, []
        for chunk in range(4):
            for f in range(nflows):
                for size in udptool.flow_sizes(bases[f], rnd):
                    d = udptool.flow_dgram(f, sent[f], size)
                    want[(f, sent[f])] = d
                    fr = eth(mac, 0x0800, udp(me, dst, sport0 + f, port, d))
                    out.append(struct.pack("!I", len(fr)) + fr)
                    sent[f] += 1
        link.s.sendall(b"".join(out))      # many frames, many flows
        end = time.monotonic() + 10
        while want and time.monotonic() < end:
            fr = link.recv(end - time.monotonic())
            if fr is None:
                break
            if fr[12:14] != b"\x08\x00" or fr[14 + 9] != 17:
                continue
            ihl = (fr[14] & 15) * 4
            ip = fr[14:14 + struct.unpack("!H", fr[16:18])[0]]
            u = ip[ihl:]
            sp, dp, ulen, uc = struct.unpack("!HHHH", u[:8])
            if ip[12:16] != dst or ip[16:20] != me or sp != port or \
               not 0 <= dp - sport0 < nflows:
                continue
            f = dp - sport0
            if ulen != len(u):
                fail("flow %d: UDP length %d, datagram %d" % (f, ulen, len(u)))
            if uc and l4_csum(dst, me, 17, u) != 0:
                fail("flow %d: bad UDP checksum from passt" % f)
            d = u[8:]
            _, ff, seq, size = struct.unpack("!4sIII", d[:16])
            exp = want.pop((f, seq), None)
            if ff != f or seq != got[f] or exp is None:
                fail("flow %d: seq %d, expected %d (lost, duplicated or "
                     "out of order)" % (f, seq, got[f]))
            if d != exp:
                fail("flow %d seq %d: %d bytes, expected %d, content "
                     "differs" % (f, seq, len(d), size))
            got[f] += 1
            n += len(d)
        if want:
            fail("round %d: %d echoes missing, first %s" %
                 (rnd, len(want), sorted(want)[:5]))
    print("udp flows %d datagrams %d bytes %d" % (nflows, sum(got), n))


def udp_twice(link, me, dst, port, sport, path, go):
    """See udp-twice in the usage text."""
    mac = arp(link, me, dst)
    with open(path, "rb") as f:
        data = f.read()
    fr = eth(mac, 0x0800, udp(me, dst, sport, port, data))
    link.send(fr)
    print("sent 1", flush=True)
    end = time.monotonic() + 30
    while not os.path.exists(go) and time.monotonic() < end:
        link.recv(0.1)          # keep the stream drained meanwhile
    if not os.path.exists(go):
        fail("no %s after 30 s" % go)
    link.send(fr)
    print("sent 2", flush=True)


def split(link, my_ip, target):
    xid = 0x5a5a0002
    # Two frames in one write
    both = b""
    for fr in (arp_req(my_ip, target), dhcp_msg(1, xid)):
        both += struct.pack("!I", len(fr)) + fr
    link.s.sendall(both)
    link.expect(lambda f: parse_arp_reply(f, target), what="ARP reply (1)")
    link.expect(lambda f: parse_dhcp(f, xid), what="DHCPOFFER (1)")
    print("two frames in one write ok")
    # One frame, a byte per write
    fr = arp_req(my_ip, target)
    for b in struct.pack("!I", len(fr)) + fr:
        link.s.sendall(bytes([b]))
        time.sleep(0.002)
    link.expect(lambda f: parse_arp_reply(f, target), what="ARP reply (2)")
    print("byte by byte ok")
    # Prefix and frame written apart, with the next prefix glued to the end
    f1, f2 = arp_req(my_ip, target), dhcp_msg(1, xid + 1)
    link.s.sendall(struct.pack("!I", len(f1)))
    time.sleep(0.05)
    link.s.sendall(f1 + struct.pack("!I", len(f2))[:2])
    time.sleep(0.05)
    link.s.sendall(struct.pack("!I", len(f2))[2:] + f2)
    link.expect(lambda f: parse_arp_reply(f, target), what="ARP reply (3)")
    link.expect(lambda f: parse_dhcp(f, xid + 1), what="DHCPOFFER (3)")
    print("split prefix ok")


def bad(link, my_ip, target, badlen):
    fr = arp_req(my_ip, target)
    link.s.sendall(struct.pack("!I", len(fr)) + fr +
                   struct.pack("!I", badlen) + b"\xaa" * 64)
    link.expect(lambda f: parse_arp_reply(f, target), what="ARP reply")
    if not link.eof(5):
        fail("passt kept the connection after length %d" % badlen)
    print("dropped after bad length", badlen)


def expect_syn(link, port):
    def is_syn(f):
        if f[12:14] == b"\x08\x00" and f[14 + 9] == 6:
            t = f[14 + (f[14] & 15) * 4:]
            dp, fl = struct.unpack("!H", t[2:4])[0], t[13]
            if dp == port and fl & SYN and not fl & ACK:
                return True
        if f[12:14] == b"\x86\xdd" and f[14 + 6] == 6:
            t = f[14 + 40:]
            dp, fl = struct.unpack("!H", t[2:4])[0], t[13]
            if dp == port and fl & SYN and not fl & ACK:
                return True
        return None
    link.expect(is_syn, timeout=15, what="SYN to port %d" % port)
    print("syn", port)


def withfd(ip, cmd):
    import subprocess
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    cmd = [x.replace("{fd}", str(theirs.fileno())) for x in cmd]
    p = subprocess.Popen(cmd, pass_fds=[theirs.fileno()])
    theirs.close()
    link = Link(fd=mine.detach())
    ack = lease(link)
    arp(link, ack["yiaddr"], socket.inet_aton(ip))
    link.s.close()
    try:
        rc = p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("passt -F did not exit when its socket was closed")
    print("exit", rc)


def main():
    a = sys.argv[1:]
    if len(a) < 2:
        fail(__doc__)
    if a[0] == "withfd":
        withfd(a[1], a[2:])
        return
    link = Link(path=a[1])
    cmd = a[0]

    if cmd == "lease":
        lease(link)
        return
    if cmd == "expect-syn-now":     # no lease first: it would eat the SYN
        t0 = time.monotonic()
        print("ready", flush=True)
        expect_syn(link, int(a[2]))
        print("ms", int((time.monotonic() - t0) * 1000))
        return
    ack = lease(link)
    me = ack["yiaddr"]
    if cmd == "bad":
        bad(link, me, socket.inet_aton(a[3]), int(a[2], 0))
    elif cmd == "arp":
        arp(link, me, socket.inet_aton(a[2]))
    elif cmd == "split":
        split(link, me, socket.inet_aton(a[2]))
    elif cmd in ("tcp", "slow", "hold", "upload"):
        dst = socket.inet_aton(a[2])
        mac = arp(link, me, dst)
        peer = TcpPeer(link, mac, me, dst, int(a[3]),
                       rwnd_shift=4 if cmd == "slow" else 0)
        peer.connect()
        if cmd == "upload":
            peer.upload(a[4], int(a[5]))
            os._exit(0)             # gone at once, no FIN of the stream
        if cmd == "hold":
            print("holding", flush=True)
            while True:
                f = link.recv(3600)
                if f is None:
                    break
        else:
            peer.download(a[4], int(a[5]),
                          sleep_s=1.0 if cmd == "slow" else 0.0)
    elif cmd == "udp-batch":
        udp_batch(link, me, socket.inet_aton(a[2]), int(a[3]), int(a[4]),
                  int(a[5]), [int(x) for x in a[6].split(",")])
    elif cmd == "udp-twice":
        udp_twice(link, me, socket.inet_aton(a[2]), int(a[3]), int(a[4]),
                  a[5], a[6])
    elif cmd == "expect-syn":
        print("ready", flush=True)
        expect_syn(link, int(a[2]))
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main()
