#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""c_frame.py PCAP FRAMENO NAME [PROTOS] - print a captured frame as C

test/unit/captures/c_frame.py: the frame as a static const uint8_t array,
with the tshark -V decode above it (-O PROTOS expands only those layers;
IP, UDP and TCP checksums are checked).  Used by mkheader.sh.
"""
import struct, subprocess, sys

def frames(path):
    d = open(path, 'rb').read()
    magic = struct.unpack('<I', d[:4])[0]
    e = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off = 24
    while off < len(d):
        _, _, incl, _ = struct.unpack(e + 'IIII', d[off:off + 16])
        yield d[off + 16:off + 16 + incl]
        off += 16 + incl

path, n, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
protos = sys.argv[4] if len(sys.argv) > 4 else None
data = list(frames(path))[n - 1]
cmd = ['tshark', '-r', path, '-Y', 'frame.number==%d' % n, '-V', '-o', 'ip.check_checksum:TRUE', '-o', 'udp.check_checksum:TRUE', '-o', 'tcp.check_checksum:TRUE']
if protos:
    cmd += ['-O', protos]
dec = subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()
# Drop the frame metadata block (timestamps, interface): keep layers
out = []
skip = False
for l in dec:
    if l.startswith('Frame '):
        skip = True
        continue
    if skip and l.startswith(' '):
        continue
    skip = False
    out.append(l.rstrip())
while out and not out[-1]:
    out.pop()
print('/* %s frame %d (%d bytes), tshark -V%s (checksums checked):' % (
    path.split('/')[-1], n, len(data), ' -O ' + protos if protos else ''))
for l in out:
    l = l.replace('\t', '    ').replace('*/', '* /')
    print((' * ' + l).rstrip())
print(' */')
print('static const uint8_t %s[] = {' % name)
for i in range(0, len(data), 12):
    print('\t' + ' '.join('0x%02x,' % b for b in data[i:i + 12]))
print('};')
