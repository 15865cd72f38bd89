#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""arp_probe.py - Ask passt's UNIX socket for the gateway's MAC address

Usage: arp_probe.py SOCKET SENDER_IP TARGET_IP

Connects as QEMU's -netdev stream does, sends one ARP request (RFC 826:
Ethernet/IPv4, opcode 1) framed by its length as a 4-byte big-endian
integer, and expects an ARP reply (opcode 2) whose sender protocol address
is TARGET_IP, within 10 s.  Exit status 0 and the MAC on success.
"""
import socket
import struct
import sys


def main():
    path, sip, tip = sys.argv[1:4]
    mac = bytes.fromhex("525400123456")
    arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, mac,
                      socket.inet_aton(sip), bytes(6), socket.inet_aton(tip))
    frame = b"\xff" * 6 + mac + b"\x08\x06" + arp
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    s.sendall(struct.pack("!I", len(frame)) + frame)
    buf = b""
    while True:
        while len(buf) < 4 or len(buf) < 4 + struct.unpack("!I", buf[:4])[0]:
            d = s.recv(65536)
            if not d:
                sys.exit("connection closed before an ARP reply")
            buf += d
        n = struct.unpack("!I", buf[:4])[0]
        f, buf = buf[4:4 + n], buf[4 + n:]
        if f[12:14] != b"\x08\x06" or len(f) < 42:
            continue
        op = struct.unpack("!H", f[20:22])[0]
        if op == 2 and f[28:32] == socket.inet_aton(tip):
            print(f[22:28].hex(":"))
            return


if __name__ == "__main__":
    main()
