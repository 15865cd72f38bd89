#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/vhost_relay.py - A kernel TCP/IP stack as the guest of
# passt --vhost-user: a scripted vhost-user front-end (as QEMU) whose
# "guest" is a tap device in this network namespace
#
# Usage: vhost_relay.py SOCKET IFNAME [MTU]
#
# Creates tap IFNAME (IFF_TAP | IFF_NO_PI), sets its MTU (default 1500)
# and brings it up, connects to SOCKET and sets the device up as QEMU does
# (vhost-user.rst: SET_FEATURES VIRTIO_F_VERSION_1 + VIRTIO_NET_F_MRG_RXBUF,
# SET_OWNER, SET_MEM_TABLE with one sealed memfd region, then per queue
# SET_VRING_NUM, _BASE, _ADDR, _KICK, _CALL).  Then it plays the guest's
# driver (virtio 1.x 2.7, split rings): every receive buffer stays posted
# in queue 0, what the back-end puts in its used ring (one frame per
# num_buffers entries, behind the 12-byte virtio_net_hdr_mrg_rxbuf) is
# written to the tap; each frame read from the tap goes into a transmit
# buffer of queue 1 behind a zero header, with a kick.  It never sends
# another vhost-user message: a back-end that hands the device over to
# another process (a hitless restart) must go on from the rings as they
# are.  The rings' idx fields are stored and loaded as whole 16-bit words
# (a torn update would look like a broken ring).  Prints "relay: up" once
# set up; exits 1
# with a message if the back-end closes the socket (the test says whether
# that is expected), or if a used ring shows an index it never posted.
import fcntl
import mmap
import os
import select
import socket
import struct
import subprocess
import sys

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
F_ADD_SEALS = 1033
F_SEAL_SHRINK = 0x0002

GPA = 0x40000000
UVA = 0x7f3400000000
MEMSZ = 4 << 20
QSZ = 256
QBASE = (0x0, 0x8000)		# rings: desc +0, avail +0x1000, used +0x2000
BUF = (0x100000, 0x200000)	# per queue: QSZ buffers of BUFSZ bytes
BUFSZ = 4096
HDR = 12			# struct virtio_net_hdr_mrg_rxbuf
DESC_F_WRITE = 2


def msg(req, payload=b''):
    return struct.pack('<III', req, 1, len(payload)) + payload


def tap_open(name):
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(),
                                           IFF_TAP | IFF_NO_PI))
    return fd


class Relay:
    def __init__(self, path):
        self.fd = os.memfd_create('guest', os.MFD_ALLOW_SEALING)
        os.ftruncate(self.fd, MEMSZ)
        fcntl.fcntl(self.fd, F_ADD_SEALS, F_SEAL_SHRINK)
        self.mem = mmap.mmap(self.fd, MEMSZ)
        # The rings' idx fields are read and written whole, as a driver
        # does: struct.pack_into() and unpack_from() go byte by byte, and
        # the back-end could see half of an update (virtio 1.x 2.7.13)
        self.u16 = memoryview(self.mem).cast('H')
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.kick = [os.eventfd(0, os.EFD_NONBLOCK) for _ in range(2)]
        self.call = [os.eventfd(0, os.EFD_NONBLOCK) for _ in range(2)]
        self.last_used = [0, 0]
        self.avail_idx = [0, 0]
        self.tx_free = list(range(QSZ))

    def setup(self):
        s = self.s
        s.sendall(msg(2, struct.pack('<Q', (1 << 32) | (1 << 15))))
        s.sendall(msg(3))
        table = struct.pack('<IIQQQQ', 1, 0, GPA, MEMSZ, UVA, 0)
        socket.send_fds(s, [msg(5, table)], [self.fd])
        for q in (0, 1):
            b = QBASE[q]
            s.sendall(msg(8, struct.pack('<II', q, QSZ)))
            s.sendall(msg(10, struct.pack('<II', q, 0)))
            s.sendall(msg(9, struct.pack('<IIQQQQ', q, 0, UVA + b,
                                         UVA + b + 0x2000, UVA + b + 0x1000,
                                         0)))
            socket.send_fds(s, [msg(12, struct.pack('<Q', q))],
                            [self.kick[q]])
            socket.send_fds(s, [msg(13, struct.pack('<Q', q))],
                            [self.call[q]])
        for d in range(QSZ):		# every receive buffer posted
            self.post(0, d, BUF[0] + d * BUFSZ, BUFSZ, DESC_F_WRITE)
        self.publish(0)

    def post(self, q, d, off, length, flags):
        b = QBASE[q]
        struct.pack_into('<QIHH', self.mem, b + 16 * d, GPA + off, length,
                         flags, 0)
        i = self.avail_idx[q]
        struct.pack_into('<H', self.mem, b + 0x1004 + 2 * (i % QSZ), d)
        self.avail_idx[q] = (i + 1) & 0xffff

    def publish(self, q):
        self.u16[(QBASE[q] + 0x1002) // 2] = self.avail_idx[q]
        os.eventfd_write(self.kick[q], 1)

    def used(self, q):
        """(id, len) entries the back-end added since the last call"""
        b = QBASE[q] + 0x2000
        idx = self.u16[(b + 2) // 2]
        out = []
        while self.last_used[q] != idx:
            i = self.last_used[q] % QSZ
            d, ln = struct.unpack_from('<II', self.mem, b + 4 + 8 * i)
            if d >= QSZ:
                sys.exit("relay: used id %d out of range" % d)
            out.append((d, ln))
            self.last_used[q] = (self.last_used[q] + 1) & 0xffff
        return out

    def rx(self, tap):
        """Frames the back-end wrote: to the tap, buffers posted again"""
        ents = self.used(0)
        k = 0
        while k < len(ents):
            d, ln = ents[k]
            off = BUF[0] + d * BUFSZ
            nbuf = struct.unpack_from('<H', self.mem, off + 10)[0] or 1
            frame = bytes(self.mem[off + HDR:off + ln])
            for j in range(1, nbuf):
                if k + j >= len(ents):
                    sys.exit("relay: a frame's buffers span two batches")
                d2, ln2 = ents[k + j]
                o2 = BUF[0] + d2 * BUFSZ
                frame += bytes(self.mem[o2:o2 + ln2])
            for j in range(nbuf):
                dd = ents[k + j][0]
                self.post(0, dd, BUF[0] + dd * BUFSZ, BUFSZ, DESC_F_WRITE)
            k += nbuf
            try:
                os.write(tap, frame)
            except OSError:
                pass	# the kernel refused it, or full: as a wire would
        if ents:
            self.publish(0)

    def tx(self, tap):
        """Frames of the tap into the transmit queue"""
        for d, _ in self.used(1):
            self.tx_free.append(d)
        n = 0
        while self.tx_free:
            try:
                f = os.read(tap, BUFSZ - HDR)
            except BlockingIOError:
                break
            d = self.tx_free.pop()
            off = BUF[1] + d * BUFSZ
            self.mem[off:off + HDR] = bytes(HDR)
            self.mem[off + HDR:off + HDR + len(f)] = f
            self.post(1, d, off, HDR + len(f), 0)
            n += 1
        if n:
            self.publish(1)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: vhost_relay.py SOCKET IFNAME [MTU]")
    if sys.byteorder != "little":
        sys.exit("relay: rings are little-endian, self.u16 is native")
    path, ifname = sys.argv[1], sys.argv[2]
    mtu = sys.argv[3] if len(sys.argv) > 3 else "1500"
    tap = tap_open(ifname)
    subprocess.run(["ip", "link", "set", ifname, "mtu", mtu, "up"],
                   check=True)
    r = Relay(path)
    r.setup()
    print("relay: up", flush=True)
    while True:
        rd, _, _ = select.select([tap, r.s, r.call[0], r.call[1]], [], [],
                                 0.01)
        for c in r.call:
            if c in rd:
                try:
                    os.eventfd_read(c)
                except BlockingIOError:
                    pass
        if r.s in rd and r.s.recv(4096) == b"":
            sys.exit("relay: the back-end closed the vhost-user socket")
        r.rx(tap)
        r.tx(tap)


if __name__ == "__main__":
    main()
