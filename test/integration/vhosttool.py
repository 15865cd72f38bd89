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
#   hostile [CASE...]  each CASE (default: all below) on a connection of
#              its own, then a new front-end that must be served; stops at
#              the first failure (exit 1)
#   hostile cases (issue 26): each ends with the back-end's answer to
#   GET_FEATURES on the same connection within 5 s ("served": it goes on)
#   or with the connection closed ("dropped"), the back-end still running
#   kick_blocking   served: queue 1's kick eventfd without O_NONBLOCK;
#                   after SET_VRING_KICK we clear the flag on our copy
#                   (file status flags are shared) and kick once
#   kick_semaphore  served: an EFD_SEMAPHORE kick eventfd holding 2^62;
#                   the back-end must not burn a CPU on it: with PASST_PID
#                   set, its CPU time over 2 s must stay under a quarter
#   call_full       served: queue 1's call eventfd at 2^64-2, O_NONBLOCK
#                   clear, then a transmit chain and a kick: the back-end
#                   returns the chain (used index 1) without blocking
#   kick_pipe, call_pipe, kick_memfd   dropped: not an eventfd
#   hugetlb         dropped: both regions sealed (F_SEAL_SHRINK), the
#                   second one a hugetlbfs memfd with no huge page free, a transmit
#                   chain pointing into it, a kick (exit 77 if this can't
#                   be set up here: no hugetlbfs, or huge pages free)
#   hugetlb_small   the same with a 64 KiB region of that 2 MiB file (our
#                   zero pages must then cover the whole huge page)
#   badavail        dropped: queue 0's available index 3 past its size,
#                   then a kick on queue 0
#   migsave TRIGGER [GUEST DST PORT]   a full set-up with DEVICE_STATE
#              negotiated, no receive buffer (the guest never answers);
#              with GUEST, a TCP SYN from GUEST:40000 to DST:PORT in the
#              transmit queue; prints "ready", waits for the file TRIGGER,
#              then saves the back-end's state as a migration source does
#              (SET_DEVICE_STATE_FD, direction 0 save, phase 0 stopped,
#              over a pipe read to its end, then CHECK_DEVICE_STATE),
#              prints "saved BYTES check RESULT", and stays connected
#              (as a paused QEMU does) until killed
#   migload FILE   a full set-up with DEVICE_STATE negotiated; loads the
#              device state stream in FILE as a migration destination's
#              QEMU does (SET_DEVICE_STATE_FD, direction 1 load, phase 0
#              stopped, the stream written to a pipe and closed, then
#              CHECK_DEVICE_STATE), prints "loaded check RESULT", and stays
#              connected until killed
#   frames     a full set-up, four receive buffers posted, an ARP request
#              (RFC 826) for GW sent from GUEST (argv 3, 4), waits for the
#              ARP frame the back-end writes (a router advertisement may
#              come first) and prints its used id, used length,
#              num_buffers and ethertype (of the fourth frame if no ARP)
# Messages are laid out from QEMU's docs/interop/vhost-user.rst; rings
# from virtio 1.x section 2.7.  Exit status 0 if the back-end behaved as
# the case expects from our side (reply received, or connection closed).
import fcntl, mmap, os, socket, struct, sys, time

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

def setup(s, kick1=None, call1=None, extra=None, seal=False, proto=0):
    fd = os.memfd_create('guest', os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, MEMSZ)
    if seal:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
    mem = mmap.mmap(fd, MEMSZ)
    # VIRTIO_F_VERSION_1, VIRTIO_NET_F_MRG_RXBUF, and with protocol
    # features VHOST_USER_F_PROTOCOL_FEATURES (bit 30)
    s.sendall(msg(2, struct.pack('<Q', (1 << 32) | (1 << 15) |
                                 ((1 << 30) if proto else 0))))
    if proto:
        s.sendall(msg(16, struct.pack('<Q', proto)))
    s.sendall(msg(3))
    regions = [(GPA, MEMSZ, UVA, fd)] + ([extra] if extra else [])
    table = struct.pack('<II', len(regions), 0)
    for gpa, size, uva, _ in regions:
        table += struct.pack('<QQQQ', gpa, size, uva, 0)
    socket.send_fds(s, [msg(5, table)], [r[3] for r in regions])
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
        if q == 1 and kick1 is not None:
            k = kick1
        if q == 1 and call1 is not None:
            c = call1
        socket.send_fds(s, [msg(12, struct.pack('<Q', q))], [k])
        socket.send_fds(s, [msg(13, struct.pack('<Q', q))], [c])
        if proto:   # rings start disabled with protocol features
            s.sendall(msg(18, struct.pack('<II', q, 1)))
        kicks.append(k)
        calls.append(c)
    return mem, kicks, calls, fd

def post(mem, q, d, addr, length, flags):
    base = q * 0x4000
    struct.pack_into('<QIHH', mem, base + 16 * d, addr, length, flags, 0)
    idx = struct.unpack_from('<H', mem, base + 0x1002)[0]
    struct.pack_into('<H', mem, base + 0x1004 + 2 * (idx % QSZ), d)
    struct.pack_into('<H', mem, base + 0x1002, (idx + 1) & 0xffff)

def served(s, timeout=5):
    """Does the back-end answer GET_FEATURES within timeout seconds?"""
    s.settimeout(timeout)
    try:
        s.sendall(msg(1))
        r = reply(s)
    except (socket.timeout, OSError):
        return False
    return bool(r) and r[0] == 1

def cpu_ticks(pid):
    """User plus system time of a process, clock ticks (proc(5))"""
    with open('/proc/%s/stat' % pid) as f:
        st = f.read().rsplit(')', 1)[1].split()
    return int(st[11]) + int(st[12])

def arp_frame(src, dst):
    mac = bytes.fromhex('525400123456')
    return (b'\xff' * 6 + mac + b'\x08\x06' +
            struct.pack('>HHBBH', 1, 0x0800, 6, 4, 1) + mac +
            socket.inet_aton(src) + b'\0' * 6 + socket.inet_aton(dst))

def csum(b):
    """Internet checksum (RFC 1071)"""
    if len(b) % 2:
        b += b'\0'
    t = sum(struct.unpack('>%dH' % (len(b) // 2), b))
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff

def syn_frame(src, dst, dport):
    """Ethernet frame: an IPv4 TCP SYN (RFC 791, RFC 9293 3.1), no options"""
    mac = bytes.fromhex('525400123456')
    sa, da = socket.inet_aton(src), socket.inet_aton(dst)
    tcp = struct.pack('>HHIIBBHHH', 40000, dport, 1000, 0, 5 << 4, 0x02,
                      65535, 0, 0)
    c = csum(sa + da + struct.pack('>BBH', 0, 6, len(tcp)) + tcp)
    tcp = tcp[:16] + struct.pack('>H', c) + tcp[18:]
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), 1, 0x4000,
                     64, 6, 0, sa, da)
    ip = ip[:10] + struct.pack('>H', csum(ip)) + ip[12:]
    return b'\xff' * 6 + mac + b'\x08\x00' + ip + tcp

def migsave(s, trigger, syn):
    """The migsave case: 0 if the state was saved and checked"""
    mem, kicks, _, _ = setup(s, proto=1 << 19)  # ..._F_DEVICE_STATE
    if syn:
        f = syn_frame(*syn)
        mem[0x20000:0x20000 + 12 + len(f)] = b'\0' * 12 + f
        post(mem, 1, 0, GPA + 0x20000, 12 + len(f), 0)
        os.eventfd_write(kicks[1], 1)
    print('ready', flush=True)
    while not os.path.exists(trigger):
        time.sleep(0.1)
    r, w = os.pipe()
    socket.send_fds(s, [msg(42, struct.pack('<II', 0, 0))], [w])
    os.close(w)
    rep = reply(s)
    if not rep or struct.unpack('<Q', rep[2])[0] & 0xff:
        print('refused', rep, flush=True)
        return 1
    n = 0
    while True:
        d = os.read(r, 65536)
        if not d:
            break
        n += len(d)
    s.sendall(msg(43))
    rep = reply(s)
    res = struct.unpack('<Q', rep[2])[0] if rep else -1
    print('saved', n, 'check', res, flush=True)
    time.sleep(600)
    return 0 if res == 0 else 1

def migload(s, path):
    """The migload case: 0 if the state was loaded and checked"""
    setup(s, proto=1 << 19)  # VHOST_USER_PROTOCOL_F_DEVICE_STATE
    stream = open(path, 'rb').read()
    r, w = os.pipe()
    socket.send_fds(s, [msg(42, struct.pack('<II', 1, 0))], [r])
    os.close(r)
    rep = reply(s)
    if not rep or struct.unpack('<Q', rep[2])[0] & 0xff:
        print('refused', rep, flush=True)
        return 1
    off = 0
    while off < len(stream):
        off += os.write(w, stream[off:off + 65536])
    os.close(w)
    s.sendall(msg(43))
    rep = reply(s)
    res = struct.unpack('<Q', rep[2])[0] if rep else -1
    print('loaded check', res, flush=True)
    time.sleep(600)
    return 0 if res == 0 else 1

def clear_nonblock(fd):
    fcntl.fcntl(fd, fcntl.F_SETFL,
                fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)

def hostile(s, case):
    """The hostile cases: 0 if the back-end behaved, 1 if not, 77 skip"""
    if case == 'kick_blocking':
        k = os.eventfd(0, 0)
        mem, kicks, calls, fd = setup(s, kick1=k)
        if not served(s):       # SET_VRING_KICK handled
            return 1
        clear_nonblock(k)
        os.eventfd_write(k, 1)
        time.sleep(0.2)
        return 0 if served(s) else 1
    if case == 'kick_semaphore':
        k = os.eventfd(0, os.EFD_SEMAPHORE | os.EFD_NONBLOCK)
        mem, kicks, calls, fd = setup(s, kick1=k)
        if not served(s):
            return 1
        os.eventfd_write(k, 1 << 62)
        time.sleep(0.2)
        if not served(s):
            return 1
        pid = os.environ.get('PASST_PID')
        if pid:
            t0, c0 = time.time(), cpu_ticks(pid)
            time.sleep(2)
            used = (cpu_ticks(pid) - c0) / os.sysconf('SC_CLK_TCK')
            print('back-end CPU time over %.1f s: %.2f s' %
                  (time.time() - t0, used))
            if used > (time.time() - t0) / 4:
                return 1
        return 0 if served(s) else 1
    if case == 'call_full':
        c = os.eventfd(0, 0)
        os.eventfd_write(c, (1 << 64) - 2)
        mem, kicks, calls, fd = setup(s, call1=c)
        if not served(s):
            return 1
        arp = arp_frame('192.0.2.2', '192.0.2.1')
        mem[0x20000:0x20000 + 12 + len(arp)] = b'\0' * 12 + arp
        post(mem, 1, 0, GPA + 0x20000, 12 + len(arp), 0)
        os.eventfd_write(kicks[1], 1)
        end = time.time() + 5
        while time.time() < end and not struct.unpack_from('<H', mem, 0x4000 + 0x2002)[0]:
            time.sleep(0.05)
        if not struct.unpack_from('<H', mem, 0x4000 + 0x2002)[0]:
            print('transmit chain not returned')
            return 1
        time.sleep(0.2)
        return 0 if served(s) else 1
    if case in ('kick_pipe', 'call_pipe', 'kick_memfd'):
        r, w = os.pipe()
        try:    # the back-end may drop us before the end of the set-up
            if case == 'kick_pipe':
                mem, kicks, calls, fd = setup(s, kick1=r)
            elif case == 'call_pipe':
                clear_nonblock(w)
                os.write(w, b'\0' * fcntl.fcntl(w, fcntl.F_GETPIPE_SZ))
                mem, kicks, calls, fd = setup(s, call1=w)
            else:
                m = os.memfd_create('kick')
                os.ftruncate(m, 4096)
                mem, kicks, calls, fd = setup(s, kick1=m)
        except OSError:
            return 0 if closed(s) else 1
        # Accepted (the bug): make it block us, as a hostile front-end would
        if served(s):
            if case == 'kick_pipe':
                clear_nonblock(r)
                os.write(w, b'\1' * 64)
            elif case == 'call_pipe':
                arp = arp_frame('192.0.2.2', '192.0.2.1')
                mem[0x20000:0x20000 + 12 + len(arp)] = b'\0' * 12 + arp
                post(mem, 1, 0, GPA + 0x20000, 12 + len(arp), 0)
                os.eventfd_write(kicks[1], 1)
        return 0 if closed(s) else 1
    if case in ('hugetlb', 'hugetlb_small'):
        free = [l for l in open('/proc/meminfo') if l.startswith('HugePages_Free')]
        if not free or int(free[0].split()[1]):
            print('huge pages free here: no fault to provoke')
            return 77
        try:
            h = os.memfd_create('huge', os.MFD_HUGETLB | os.MFD_ALLOW_SEALING)
            os.ftruncate(h, 2 << 20)
            fcntl.fcntl(h, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
        except OSError as e:
            print('no sealed hugetlbfs memfd here:', e)
            return 77
        hgpa = GPA + (64 << 20)
        hsize = (64 << 10) if case == 'hugetlb_small' else (2 << 20)
        mem, kicks, calls, fd = setup(s, extra=(hgpa, hsize, UVA + (64 << 20), h),
                                      seal=True)
        post(mem, 1, 0, hgpa, 12 + 60, 0)
        os.eventfd_write(kicks[1], 1)
        return 0 if closed(s) else 1
    if case == 'badavail':
        mem, kicks, calls, fd = setup(s)
        if not served(s):
            return 1
        struct.pack_into('<H', mem, 0x1002, QSZ + 3)
        os.eventfd_write(kicks[0], 1)
        return 0 if closed(s) else 1
    return 2

HOSTILE = ('kick_blocking', 'kick_semaphore', 'call_full', 'kick_pipe',
           'call_pipe', 'kick_memfd', 'hugetlb', 'hugetlb_small', 'badavail')

def hostile_all(path, cases):
    """Each case on its own connection, then a new front-end: served?"""
    rc = 0
    for case in cases:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        r = hostile(s, case)
        s.close()
        print('%s: %s' % (case, {0: 'ok', 77: 'skipped'}.get(r, 'FAILED')),
              flush=True)
        if r not in (0, 77):
            return 1
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        # a second front-end is refused (closed) while the first one stays:
        # retry until that one is gone
        end = time.time() + 10
        while not served(s):
            s.close()
            if time.time() > end:
                print('%s: next front-end not served' % case)
                return 1
            time.sleep(0.1)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
        s.close()
    return rc

def main():
    path, case = sys.argv[1], sys.argv[2]
    if case == 'hostile':
        return hostile_all(path, sys.argv[3:] or HOSTILE)
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
    if case in HOSTILE:
        return hostile(s, case)
    if case == 'migsave':
        syn = None
        if len(sys.argv) > 6:
            syn = (sys.argv[4], sys.argv[5], int(sys.argv[6]))
        return migsave(s, sys.argv[3], syn)
    if case == 'migload':
        return migload(s, sys.argv[3])
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
        # Four receive buffers: an unsolicited router advertisement may
        # take one before the ARP reply (RFC 4861 6.2.4, sent as the
        # queues start and again while the guest is new)
        for d in range(4):
            post(mem, 0, d, GPA + 0x10000 + d * 0x1000, 4096, 2)
        os.eventfd_write(kicks[0], 1)
        arp = arp_frame(sys.argv[3], sys.argv[4])
        mem[0x20000:0x20000 + 12 + len(arp)] = b'\0' * 12 + arp
        post(mem, 1, 0, GPA + 0x20000, 12 + len(arp), 0)
        os.eventfd_write(kicks[1], 1)
        end = time.time() + 10
        seen = 0
        while time.time() < end:
            used = struct.unpack_from('<H', mem, 0x2002)[0]
            for u in range(seen, used):
                uid, ulen = struct.unpack_from('<II', mem, 0x2004 + 8 * u)
                b = 0x10000 + uid * 0x1000
                nb = struct.unpack_from('<H', mem, b + 10)[0]
                ethertype = struct.unpack_from('>H', mem, b + 12 + 12)[0]
                if ethertype == 0x806 or u == 3:
                    print(uid, ulen, nb, hex(ethertype))
                    return 0
            seen = used
            time.sleep(0.05)
        return 1
    return 2

sys.exit(main())
