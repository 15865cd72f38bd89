#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# test/fuzz/mkcorpus.py - Seed corpora for the harnesses, from real frames
#
# Usage: mkcorpus.py [OUTDIR]   (default: test/fuzz/corpus)
#
# The frames come from the captures of test/unit/captures/ (real udhcpc,
# dhclient, rdisc6/ndisc6, ping, arping, nc and socat traffic, see
# capture.sh there), cut to what each harness takes as input (see the
# comment at the top of each test/fuzz/HARNESS.c).  Command lines and port
# specs are the forms passt.1 documents and podman and libvirt use.
# Re-running it rewrites the seeds; the files are committed.
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CAPS = os.path.join(HERE, '..', 'unit', 'captures')
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, 'corpus')
MAX_FRAME_SEEDS = 48


def pcap_frames(path):
    """Frames of a classic pcap file (either byte order)."""
    data = open(path, 'rb').read()
    magic = struct.unpack('<I', data[:4])[0]
    end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + 'IIII', data[off:off + 16])
        off += 16
        yield data[off:off + incl]
        off += incl


def l4_of(frame):
    """(af, proto, l4 bytes) of an IPv4/IPv6 frame, or None."""
    etype = struct.unpack('!H', frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20:
        hl = (ip[0] & 15) * 4
        tot = struct.unpack('!H', ip[2:4])[0]
        return 4, ip[9], ip[hl:tot]
    if etype == 0x86dd and len(ip) >= 40:
        nh, off = ip[6], 40
        end = 40 + struct.unpack('!H', ip[4:6])[0]
        while nh in (0, 43, 60) and off + 2 <= end:
            nh, off = ip[off], off + (ip[off + 1] + 1) * 8
        return 6, nh, ip[off:end]
    return None


def put(harness, name, blob):
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(blob)


def main():
    seen = set()
    nframe = 0
    for pc in sorted(os.listdir(CAPS)):
        if not pc.endswith('.pcap'):
            continue
        base = pc[:-5]
        frames = list(pcap_frames(os.path.join(CAPS, pc)))
        stream = b''.join(struct.pack('!I', len(f)) + f for f in frames[:64])
        put('stream', base, stream)
        for i, fr in enumerate(frames):
            etype = struct.unpack('!H', fr[12:14])[0]
            key = fr[12:14] + fr[14 + 9:14 + 10] + fr[34:40]
            if key not in seen and nframe < MAX_FRAME_SEEDS:
                seen.add(key)
                nframe += 1
                put('frame', '%s-%d' % (base, i), fr)
            if etype == 0x0806:
                put('arp', '%s-%d' % (base, i), b'\xff' + fr[14:])
                continue
            p = l4_of(fr)
            if not p:
                continue
            af, proto, l4 = p
            if proto == 17 and len(l4) >= 8:
                dport = struct.unpack('!H', l4[2:4])[0]
                if af == 4 and dport == 67:
                    src = fr[14 + 12:14 + 16]
                    sel = b'\x00' if src == b'\0\0\0\0' else b'\x01'
                    put('dhcp', '%s-%d' % (base, i), b'\xff' + sel + l4[8:])
                if af == 6 and dport == 547:
                    put('dhcpv6', '%s-%d' % (base, i), b'\xff' + l4[8:])
            if af == 6 and proto == 58 and l4 and l4[0] in (133, 135, 136):
                sel = {133: 0, 135: 1, 136: 2}[l4[0]]
                if fr[14 + 8:14 + 24] == bytes(16):
                    sel |= 4
                put('ndp', '%s-%d' % (base, i), bytes([0xff, sel]) + l4)
            if proto == 6 and len(l4) >= 20:
                doff = (l4[12] >> 4) * 4
                if doff > 20:
                    put('tcp_opt', '%s-%d' % (base, i), l4[20:doff])

    # Option areas as Linux sends them (SYN: MSS 1460, SACK permitted,
    # timestamps, NOP, window scale 7; ACK: NOP NOP timestamps), and a few
    # malformed ones (RFC 9293 3.2: kind, length, value)
    for name, opt in [('linux-syn', '020405b40402080a0000000100000000010303 07'),
                      ('linux-ack', '0101080a0000000200000001'),
                      ('eol', '0204ffff00'), ('truncated-mss', '0204'),
                      ('zero-len', '0200'), ('ws-too-big', '030320'),
                      ('sack', '0101050a0000000100000002')]:
        put('tcp_opt', name, bytes.fromhex(opt.replace(' ', '')))

    for name, spec in [('single', b'\x0022'), ('range', b'\x0080-90'),
                       ('remap', b'\x008080:80'),
                       ('range-remap', b'\x0010000-10010:20000-20010'),
                       ('exclude', b'\x00~25,~10000-20000'),
                       ('all', b'\x00all'), ('none', b'\x00none'),
                       ('addr4', b'\x00127.0.0.1/lo:5000'),
                       ('addr6', b'\x01[::1]:22'),
                       ('ifname', b'\x00%lo/22'),
                       ('list', b'\x021,2,3-5,7:70,~4'),
                       # upstream's 2026 forms (passt(1), pesto(1)), podman's
                       # and rootlesskit's pesto calls
                       ('v6-bracket', b'\x00[::]/8080'),
                       ('star', b'\x00*%lo/22'),
                       ('target', b'\x000.0.0.0/5000:192.0.2.5/6000'),
                       ('target6', b'\x00[::]/8000-8004:fd00::2/80-84'),
                       ('all-target', b'\x00127.0.0.6/all:192.0.2.6'),
                       ('auto-range', b'\x008000-8010,~8005,auto'),
                       ('auto-remap', b'\x002222:22,auto'),
                       ('rootlesskit6', b'\x00::/8080:80')]:
        put('ports', name, spec)

    # -c text requests (passt/ctl.c, conf/ctl_ops.c: ctl_parse()): flags
    # byte (1: passt, 2: tables already hold rules, 4: --no-udp), then the
    # lines pesto sends
    for name, req in [('show', b'\x00show\n'),
                      ('add', b'\x00add t 0.0.0.0/8080\nadd t [::]/8080\n'),
                      ('set', b'\x02set u 53\nshow\n'),
                      ('del', b'\x02del t 80-90\n'),
                      ('clear', b'\x00clear HOST\nclear SPLICE\n'),
                      ('ns', b'\x00add T 5000\nadd U ::1/53\n'),
                      ('passt', b'\x01add t 22\nadd T 80\n'),
                      ('no-udp', b'\x04add u 53\n'),
                      ('auto', b'\x00set t 8000-8010,auto\ndel t 8005\n'),
                      ('target', b'\x00add t 0.0.0.0/5000:192.0.2.5/6000\n'),
                      ('bad', b'\x00frob t 80\n\nadd t\n')]:
        put('ctl', name, req)

    # pesto's wire protocol (upstream passt 2026-07, version 2): flags byte
    # (1: server frame, 2: pasta), then tables: u8 pif id, [name[128], u32
    # caps,] u32 count, 56-byte rules (addr, taddr, ifname, first, last,
    # to, proto, flags), u8 0
    def wrule(addr, first, last, to, proto, flags, taddr=bytes(16),
              ifname=b''):
        return (addr + taddr + ifname.ljust(16, b'\0') +
                struct.pack('>HHHBB', first, last, to, proto, flags))
    v4 = bytes(10) + b'\xff\xff'
    for name, blob in [
            ('empty', b'\x02\x01\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00'),
            ('podman', b'\x02' + struct.pack('>BI', 1, 2) +
             wrule(v4 + bytes(4), 8080, 8080, 80, 6, 0,
                   v4 + bytes([10, 88, 0, 2])) +
             wrule(bytes(16), 5353, 5353, 5353, 17, 1) +
             struct.pack('>BI', 3, 1) +
             wrule(bytes(16), 6000, 6000, 6000, 6, 1, ifname=b'lo') +
             b'\0'),
            ('auto', b'\x02' + struct.pack('>BI', 1, 3) +
             wrule(bytes(16), 1, 21, 1, 6, 7) +
             wrule(bytes(16), 23, 65535, 23, 6, 7) +
             wrule(bytes(16), 8000, 8010, 9000, 17, 5) + b'\0'),
            ('server', b'\x03' + struct.pack('>B', 1) +
             b'HOST'.ljust(128, b'\0') + struct.pack('>II', 0x3f, 1) +
             wrule(bytes(16), 1, 32767, 1, 6, 3) + b'\0'),
            ('huge', b'\x00\x01\xff\xff\xff\xff')]:
        put('wire', name, blob)

    argvs = {
        'podman': [0, '--config-net', '--dns-forward', '169.254.1.1', '-t',
                   'none', '-u', 'none', '-T', 'none', '-U', 'none',
                   '--no-map-gw', '--quiet', '--netns', '/run/netns/x',
                   '--map-guest-addr', '169.254.1.2'],
        'libvirt': [1, '--one-off', '--fd', '3', '-t', '2222:22', '-a',
                    '198.51.100.5', '-g', '198.51.100.1', '-M',
                    '52:54:00:12:34:56'],
        'pasta-cmd': [0, '-f', '-d', '--config-net', '-4', '--', 'sh', '-c',
                      'true'],
        'pasta-pid': [0, '--netns-only', '-I', 'eth1', '-m', '1400', '1234'],
        'passt-dns': [1, '-D', '2001:db8::53', '-S', 'example.org', '-H',
                      'guest', '--fqdn', 'guest.example.org', '-6'],
        'help': [1, '--help'],
        'bad': [0, '--flow-max', '0'],
        'ours': [1, '--flow-max', '16', '--udp-timeout', '30', '--stats',
                 '--no-peek-offset', '--runas', 'nobody'],
    }
    for name, a in argvs.items():
        put('conf', name, bytes([a[0]]) +
            b'\0'.join(s.encode() for s in a[1:]))

    # Programs of the seq harness (ops in test/fuzz/seq.c, hex): guest
    # connections to the host's servers, UDP echo, connections the host
    # opens to the forwarded port (13, then op 0 is the SYN-ACK), a guest
    # that stops reading the stream (14) while the host sends in bulk, a
    # guest that goes away and comes back (15)
    seqs = {
        'tcp_both_ways_fin': '00ff0209090110000000ff02040118640000ff0209'
                             '0810052009090110000000ff0206090111000000ff'
                             '02090a10',
        'tcp_host_bulk_dupacks': '00ff0209090110000000ff020405ff090901100000'
                                 '9cff011000009cff011000009cff011000009cff02'
                                 '090a30090110000000ff0209',
        'tcp_out_of_order': '00ff0209090110000000ff02040118640200ff011864'
                            '0100ff0118640000ff020908ff0118640000ff0209',
        'tcp_two_conns_one_batch': '00ff10ff0209090110000000ff1110000000ff02'
                                   '040118320000ff11183c0000ff0118320000ff11'
                                   '183c0000ff020908ff18ff27090114000000ff02',
        'tcp_zero_window_probe': '00ff0209090110000000ff020405400901100000'
                                 '0000020aff0aff090110000000ff0209',
        'udp_echo': '0b101b20020c0c090a80',
        'tcp_inbound_echo': '0d090900ff02090110000000ff0205100909'
                            '0110000000ff020118640000ff020908ff09'
                            '0609090111000000ff02090a10',
        'tcp_inbound_and_outbound': '0d090900ff020910ff020904090911100000'
                                    '00ff0110000000ff02154005400909011000'
                                    '0000ff1110000000ff02090a30',
        'tcp_inbound_guest_rst': '0d0909010400000000020909',
        'tcp_inbound_host_gone': '0d09090709090a0500ff02090a30',
        'tcp_guest_gone_orphan': '00ff0209090110000000ff020409011864000'
                                 '0ff020f090a100f09',
        'tcp_inbound_waits_for_guest': '0f0d09090f00ff02090110000000ff02'
                                       '051009090110000000ff02',
        'tcp_guest_stops_reading': '00ff0209090110000000ff0204090e05ff09'
                                   '05ff0905ff0905ff090a050e0110000000ff'
                                   '02090110000000ff02090a30',
    }
    for name, prog in seqs.items():
        put('seq', name, bytes.fromhex(prog))
    vhost_fds_seeds()
    restart_seeds()


def vhost_fds_setup(mem=1, kick=1, call=1):
    """vhost_fds operations: VERSION_1 + MRG_RXBUF, a memory table of
    kind mem, both queues of size 8 with kick and call descriptors of those
    kinds (see test/fuzz/vhost_fds.c)"""
    ops = bytes([0, 0x40, 0, 1, mem])
    for q in (0, 1):
        ops += bytes([2, (3 << 1) | q, 3, q, 4, q, kick, 4, q | 2, call])
    return ops


def vhost_fds_poke(off, blob):
    """Operation 7: write blob at guest memory offset off"""
    return bytes([7, off >> 8, off & 0xff, len(blob)]) + blob


def vhost_fds_seeds():
    # A transmit chain on queue 1 (descriptor 0, 12 + 60 bytes at 0x8000),
    # a receive buffer on queue 0 (2048 bytes at 0x9000): virtio 1.x 2.7
    tx = (vhost_fds_poke(0x4000, struct.pack('<QIHH', 0x40008000, 72, 0, 0))
          + vhost_fds_poke(0x5002, struct.pack('<HH', 1, 0)))
    rx = (vhost_fds_poke(0x0000, struct.pack('<QIHH', 0x40009000, 2048, 2, 0))
          + vhost_fds_poke(0x1002, struct.pack('<HH', 1, 0)))
    kick1, kick0 = bytes([6, 1]), bytes([6, 0])
    seeds = {
        'frames': vhost_fds_setup() + tx + kick1 + rx + kick0 +
                  bytes([8, 10]),
        'kick_blocking': vhost_fds_setup(kick=2) + bytes([9, 0]) + kick1,
        'kick_semaphore': vhost_fds_setup(kick=3) + bytes([6, 3]) + kick1,
        'call_full': vhost_fds_setup(call=4) + bytes([9, 0]) + tx + kick1,
        'kick_pipe': vhost_fds_setup(kick=5) + kick1,
        'call_pipe_full': vhost_fds_setup(call=6) + tx + kick1,
        'kick_timerfd': vhost_fds_setup(kick=8),
        'hugetlb': vhost_fds_setup(mem=2) + tx + kick1,
        'truncated': vhost_fds_setup(mem=0) + tx + bytes([9, 2]),
        'mem_pipe': vhost_fds_setup(mem=3),
        'bad_avail': vhost_fds_setup() + vhost_fds_poke(0x1002, b'\x0b\x00')
                     + kick0,
    }
    for name, ops in seeds.items():
        put('vhost_fds', name, ops)


def restart_rec(rtype, payload):
    """A hand-over record: type, reserved, payload length (passt/restart.h)"""
    return struct.pack('!BBH', rtype, 0, len(payload)) + payload


def restart_stream(recs, nfds, version=1):
    """A hand-over stream: the 24-byte header, then the records"""
    body = b''.join(recs)
    return (b'PASTAHO\n' + struct.pack('!HHIII', version, 0, len(body),
                                        nfds, len(recs)) + body)


def restart_udp(fd, kind, cookie=0, peer=False):
    """RESTART_REC_UDP payload, 112 bytes: guest 192.0.2.2:5353 and
    198.51.100.1:53 (IPv4-mapped), kind (enum udp_kind), the forwarded-port
    socket's cookie, a peer 203.0.113.9:41000 if @peer"""
    m = bytes(10) + b'\xff\xff'
    p = m + bytes([192, 0, 2, 2]) + m + bytes([198, 51, 100, 1])
    p += struct.pack('!HHBBBBHHq', 5353, 53, kind, 2, 3, 0, 40, 0, 900)
    p += m + bytes([198, 51, 100, 1]) + struct.pack('!I', 0)
    p += struct.pack('!HH', 2 if peer else 0, 41000 if peer else 0)
    p += (m + bytes([203, 0, 113, 9])) if peer else bytes(16)
    p += struct.pack('!IIQI', 0, 0, cookie, fd)
    assert len(p) == 112
    return restart_rec(9, p)


def restart_tcp(fd, events, flags=0x80, v4=True):
    """RESTART_REC_TCP payload, 122 bytes, for a guest connection between
    192.0.2.2:40000 and 198.51.100.1:80 (IPv4-mapped), or 2001:db8::2 and
    2001:db8::1"""
    if v4:
        g = bytes(10) + b'\xff\xff' + bytes([192, 0, 2, 2])
        f = bytes(10) + b'\xff\xff' + bytes([198, 51, 100, 1])
    else:
        g = bytes.fromhex('20010db8000000000000000000000002')
        f = bytes.fromhex('20010db8000000000000000000000001')
    p = g + f + struct.pack('!HHHIBBBBHIIIIIIIIHIIIIIIIqI', 40000, 80, events,
                            flags, 0, 0, 7, 7, 1460, 1000, 1001, 1001,
                            1001, 0, 1001, 65535, 65535, 65535, 5001,
                            5001 + 65535, 65535, 1000, 0, 0, 212992, 0, fd)
    assert len(p) == 122
    return restart_rec(5, p)


def restart_seeds():
    # tap (passt's stream, fd 0), -c listener (fd 1), a listener (fd 2)
    tap = restart_rec(1, struct.pack('!BBI', 2, 0, 0) +
                      bytes.fromhex('9a559a559a55') + b'\x01' +
                      bytes([192, 0, 2, 2]) +
                      bytes.fromhex('20010db8000000000000000000000002') +
                      bytes.fromhex('fe800000000000000000000000000002'))
    ctl = restart_rec(3, struct.pack('!I', 1))
    lst = restart_rec(4, struct.pack('!BBBBHI', 6, 0, 0, 0, 8080, 2))
    est = 0x01 | 0x02 | 0x10		# SYN from the guest, connected, up
    fin = est | 0x20 | 0x40 | 0x80	# then FINs both ways
    acc = 0x04 | 0x08 | 0x10		# inbound: accepted, SYN sent, up
    # A spliced connection: events 0, flags SFL_FROM_NS, pipes 3-4, 5-6
    spl = restart_rec(6, struct.pack('!BBHHIIqIIIIII', 0, 4, 8080, 80,
                                     0, 0, 0, 3, 4, 5, 6, 7, 8))
    spl_nopipe = restart_rec(6, struct.pack('!BBHHIIqIIIIII', 0, 0, 8080,
                                            80, 0, 0, 0, 3, 4, 0xffffffff,
                                            0xffffffff, 0xffffffff,
                                            0xffffffff))
    rx = restart_rec(7, b'\x00' + struct.pack('!I', 60) + bytes(10))
    seeds = {
        'minimal': restart_stream([tap, ctl], 2),
        'listener': restart_stream([tap, ctl, lst], 3),
        'tcp_established': restart_stream([tap, ctl, restart_tcp(2, est)],
                                          3),
        'tcp_v6_fin': restart_stream([tap, ctl, restart_tcp(2, fin, 0,
                                                            False)], 3),
        'tcp_inbound': restart_stream([tap, ctl, lst,
                                       restart_tcp(3, acc)], 4),
        'splice': restart_stream([tap, ctl, spl], 9),
        'splice_no_pipes': restart_stream([tap, ctl, spl_nopipe], 5),
        'stream_bytes': restart_stream([tap, rx, ctl], 2),
        'udp_tap_out': restart_stream([tap, ctl, restart_udp(2, 0)], 3, 2),
        'udp_tap_in': restart_stream([tap, ctl, restart_udp(
            0xffffffff, 1, 0x1234, True)], 2, 2),
        'udp_splice_v1': restart_stream([tap, ctl, restart_udp(
            2, 2, 0x1234, True)], 3, 1),
        'longer_record': restart_stream([tap, restart_rec(3, struct.pack(
            '!I', 1) + b'\x00\x00'), restart_tcp(2, est)], 3),
    }
    # passt --vhost-user: the front-end's socket (fd 0), one 1 MiB region
    # (fd 1), both queues of 256 started, kick and call eventfds (2-5)
    vtap = restart_rec(1, struct.pack('!BBI', 3, 0, 0) +
                       bytes.fromhex('9a559a559a55') + b'\x01' +
                       bytes([192, 0, 2, 2]) + bytes(32))
    uva = 0x7f3400000000
    vu = struct.pack('!QQBB', (1 << 32) | (1 << 15), 0, 8, 1)
    vu += struct.pack('!QQQQI', 0x40000000, 1 << 20, uva, 0, 1)
    vu += struct.pack('!QQQQI', 0, 0, 0, 0, 0xffffffff) * 7
    for q, base in ((0, 0), (1, 0x8000)):
        vu += struct.pack('!IQQQQHHBIII', 256, uva + base,
                          uva + base + 0x1000, uva + base + 0x2000, 0,
                          1736 + q, 1736 + q, 7, 2 + 2 * q, 3 + 2 * q,
                          0xffffffff)
    assert len(vu) == 412
    vctl = restart_rec(3, struct.pack('!I', 6))
    seeds['vhost_user'] = restart_stream([vtap, restart_rec(8, vu), vctl,
                                          restart_tcp(7, est)], 8)
    for name, blob in seeds.items():
        put('restart', name, blob)


if __name__ == '__main__':
    main()
