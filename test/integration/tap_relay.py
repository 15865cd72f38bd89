#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/tap_relay.py - A kernel TCP/IP stack as passt's guest:
# frames of a tap device in this network namespace, relayed to and from
# passt's UNIX socket with the stream framing (a 4-byte big-endian length
# before each Ethernet frame), as QEMU's "-netdev stream" does
#
# Usage: tap_relay.py SOCKET IFNAME [MTU]
#
# Creates tap IFNAME (IFF_TAP | IFF_NO_PI) in the current network
# namespace, sets its MTU (default 65520) and brings it up, connects to
# SOCKET and relays until either side closes.  The caller configures
# addresses and routes on IFNAME (or runs a DHCP client on it).  Prints
# "relay: up" once connected.  The relay never drops a frame it read: it
# stops reading the side whose frames it can't write yet (back-pressure
# both ways, as QEMU does).
import fcntl
import os
import select
import socket
import struct
import subprocess
import sys

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000


def tap_open(name):
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(),
                                           IFF_TAP | IFF_NO_PI))
    return fd


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: tap_relay.py SOCKET IFNAME [MTU]")
    path, ifname = sys.argv[1], sys.argv[2]
    mtu = sys.argv[3] if len(sys.argv) > 3 else "65520"
    tap = tap_open(ifname)
    subprocess.run(["ip", "link", "set", ifname, "mtu", mtu, "up"],
                   check=True)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.setblocking(False)
    print("relay: up", flush=True)

    to_sock = bytearray()	# length-prefixed frames not yet written
    from_sock = bytearray()	# bytes read from the socket, not yet frames
    to_tap = []			# frames not yet written to the tap
    limit = 4 << 20
    while True:
        rd, wr = [], []
        if len(to_sock) < limit:
            rd.append(tap)
        if len(from_sock) < limit and len(to_tap) < 1024:
            rd.append(s)
        if to_sock:
            wr.append(s)
        if to_tap:
            wr.append(tap)
        r, w, _ = select.select(rd, wr, [], 5.0)
        if tap in r:
            for _ in range(64):
                try:
                    f = os.read(tap, 65536 + 14)
                except BlockingIOError:
                    break
                to_sock += struct.pack(">I", len(f)) + f
        if s in r:
            try:
                d = s.recv(1 << 20)
            except BlockingIOError:
                d = None
            if d == b"":
                return 0
            if d:
                from_sock += d
                while len(from_sock) >= 4:
                    n = struct.unpack(">I", from_sock[:4])[0]
                    if len(from_sock) < 4 + n:
                        break
                    to_tap.append(bytes(from_sock[4:4 + n]))
                    del from_sock[:4 + n]
        if s in w and to_sock:
            try:
                n = s.send(to_sock)
                del to_sock[:n]
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                return 0
        if tap in w:
            while to_tap:
                try:
                    os.write(tap, to_tap[0])
                except BlockingIOError:
                    break
                except OSError:
                    pass	# the kernel refused this frame: as a wire would
                to_tap.pop(0)


if __name__ == "__main__":
    sys.exit(main())
