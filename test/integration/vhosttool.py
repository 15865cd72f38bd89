#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/vhosttool.py - A scripted vhost-user front-end
#
# Usage: vhosttool.py SOCKET CASE
#   features   GET_FEATURES; prints the feature bits in hex
#   oversized  a header announcing a 1 MiB payload
#   short      SET_FEATURES with a 4-byte payload
#   badring    a full set-up over a memfd, then a transmit descriptor
#              pointing past guest memory, and a kick
#   shrink     a full set-up over a memfd without seals, a transmit
#              descriptor posted, then the memfd truncated to 0 bytes
#              (ftruncate) and a kick: the back-end's access faults
#              (SIGBUS); it must drop us (connection closed), not die
#   frames     a full set-up, a receive buffer posted, an ARP request
#              (RFC 826) for GW sent from GUEST (argv 3, 4), waits for the
#              frame the back-end writes and prints used id, used length,
#              num_buffers and the ethertype
# Messages are laid out from QEMU's docs/interop/vhost-user.rst; rings
# from virtio 1.x section 2.7.  Exit status 0 if the back-end behaved as
# the case expects from our side (reply received, or connection closed).
import mmap, os, socket, struct, sys, time

GPA = 0x40000000
UVA = 0x7f1200000000
MEMSZ = 1 << 20
QSZ = 8

def msg(req, payload=b'', flags=1):
    return struct.pack('<III', req, flags, len(payload)) + payload

def reply(s):
    h = s.recv(12)
    if len(h) < 12:
        return None
    req, flags, size = struct.unpack('<III', h)
    return req, flags, s.recv(size) if size else b''

def closed(s, timeout=5):
    s.settimeout(timeout)
    try:
        return s.recv(1) == b''
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False

def setup(s):
    fd = os.memfd_create('guest', os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, MEMSZ)
    mem = mmap.mmap(fd, MEMSZ)
    s.sendall(msg(2, struct.pack('<Q', (1 << 32) | (1 << 15))))
    s.sendall(msg(3))
    socket.send_fds(s, [msg(5, struct.pack('<IIQQQQ', 1, 0, GPA, MEMSZ, UVA, 0))], [fd])
    kicks = []
    calls = []
    for q in (0, 1):
        base = q * 0x4000
        s.sendall(msg(8, struct.pack('<II', q, QSZ)))
        s.sendall(msg(10, struct.pack('<II', q, 0)))
        s.sendall(msg(9, struct.pack('<IIQQQQ', q, 0, UVA + base,
                                     UVA + base + 0x2000, UVA + base + 0x1000, 0)))
        k = os.eventfd(0, os.EFD_NONBLOCK)
        c = os.eventfd(0, os.EFD_NONBLOCK)
        socket.send_fds(s, [msg(12, struct.pack('<Q', q))], [k])
        socket.send_fds(s, [msg(13, struct.pack('<Q', q))], [c])
        kicks.append(k)
        calls.append(c)
    return mem, kicks, calls, fd

def post(mem, q, d, addr, length, flags):
    base = q * 0x4000
    struct.pack_into('<QIHH', mem, base + 16 * d, addr, length, flags, 0)
    idx = struct.unpack_from('<H', mem, base + 0x1002)[0]
    struct.pack_into('<H', mem, base + 0x1004 + 2 * (idx % QSZ), d)
    struct.pack_into('<H', mem, base + 0x1002, (idx + 1) & 0xffff)

def main():
    path, case = sys.argv[1], sys.argv[2]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    if case == 'features':
        s.sendall(msg(1))
        r = reply(s)
        print(hex(struct.unpack('<Q', r[2])[0]))
        return 0 if r and r[0] == 1 and r[1] == 5 else 1
    if case == 'oversized':
        s.sendall(struct.pack('<III', 5, 1, 1 << 20))
        return 0 if closed(s) else 1
    if case == 'short':
        s.sendall(msg(2, b'\0\0\0\0'))
        return 0 if closed(s) else 1
    mem, kicks, calls, fd = setup(s)
    if case == 'badring':
        post(mem, 1, 0, GPA + MEMSZ, 64, 0)     # past the end of memory
        os.eventfd_write(kicks[1], 1)
        return 0 if closed(s) else 1
    if case == 'shrink':
        mem[0x20000:0x20000 + 12 + 60] = b'\0' * 72
        post(mem, 1, 0, GPA + 0x20000, 12 + 60, 0)
        s.sendall(msg(1))       # its reply: the memory table is mapped
        if not reply(s):
            return 1
        mem.close()
        os.ftruncate(fd, 0)     # no F_SEAL_SHRINK: allowed
        os.eventfd_write(kicks[1], 1)
        return 0 if closed(s) else 1
    if case == 'frames':
        post(mem, 0, 0, GPA + 0x10000, 4096, 2)
        os.eventfd_write(kicks[0], 1)
        mac = bytes.fromhex('525400123456')
        arp = (b'\xff' * 6 + mac + b'\x08\x06' +
               struct.pack('>HHBBH', 1, 0x0800, 6, 4, 1) + mac +
               socket.inet_aton(sys.argv[3]) + b'\0' * 6 +
               socket.inet_aton(sys.argv[4]))
        mem[0x20000:0x20000 + 12 + len(arp)] = b'\0' * 12 + arp
        post(mem, 1, 0, GPA + 0x20000, 12 + len(arp), 0)
        os.eventfd_write(kicks[1], 1)
        end = time.time() + 10
        while time.time() < end:
            used = struct.unpack_from('<H', mem, 0x2002)[0]
            if used:
                uid, ulen = struct.unpack_from('<II', mem, 0x2004)
                nb = struct.unpack_from('<H', mem, 0x10000 + 10)[0]
                ethertype = struct.unpack_from('>H', mem, 0x10000 + 12 + 12)[0]
                print(uid, ulen, nb, hex(ethertype))
                return 0
            time.sleep(0.05)
        return 1
    return 2

sys.exit(main())
