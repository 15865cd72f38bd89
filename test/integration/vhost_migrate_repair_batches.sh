#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vhost_migrate_repair_batches.sh - A migration destination switches repair
#				    mode through a helper that keeps the
#				    control length of its last message
#
# Upstream's passt-repair passes to each recvmsg() the msg_controllen its
# last one left (recvmsg(2): set to the length used), so a message with
# more descriptors than the one before is cut to that many (MSG_CTRUNC,
# the rest closed by the kernel) and those sockets are left as they were.
# helper.py here does the same, and counts what each message brought.
# passt --vhost-user loads, from vhosttool.py as its front-end, a device
# state stream in upstream's layout (version 2: header, flow records,
# extended records; built here from passt/tcp_migrate.c's layout) with 300
# established connections, more than one message's 253: every socket must
# reach the helper whole for TCP_REPAIR on and again for off (300 and 300,
# no message cut), and passt must say it restored all 300.  The rebuilt
# sockets are bound to H's address, connected to R's port 8082 where
# nothing listens: they are reset after the move, which doesn't matter.
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 $(dirname "$0")/vhosttool.py"
CONNS=300
setup_topology
mkdir -m 1777 "$WORK/s"
S=$WORK/s/vu.sock
start_passt "$S" --vhost-user

cat > "$WORK/helper.py" <<'EOP'
import socket, struct, sys
MAXFD = 253
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
out = open(sys.argv[2], 'w')
anc = socket.CMSG_SPACE(4 * MAXFD)
while True:
    try:
        data, ancdata, flags, _ = s.recvmsg(1, anc)
    except ConnectionResetError:
        break
    if not data:
        break
    fds = []
    for level, kind, d in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += list(struct.unpack('%di' % (len(d) // 4),
                                      d[:len(d) - len(d) % 4]))
    cmd = struct.unpack('b', data)[0]
    for fd in fds:
        x = socket.socket(fileno=fd)
        x.setsockopt(socket.IPPROTO_TCP, 19, cmd)     # TCP_REPAIR
        x.close()
    print(cmd, len(fds), 1 if flags & socket.MSG_CTRUNC else 0,
          file=out, flush=True)
    # as upstream's: the next recvmsg() gets what this one used
    anc = socket.CMSG_SPACE(4 * len(fds)) if fds else anc
    s.sendall(data)
EOP

# stream.py FILE N - a version 2 stream, N connections from the guest
# (H4, ports 40000 up) to R4:8082, bound on the host side to H4 and the
# same ports (passt/tcp_migrate.h, tap/devstate.c)
cat > "$WORK/stream.py" <<EOP
import socket, struct, sys
n = int(sys.argv[2])
def m4(a):
    return b'\0' * 10 + b'\xff\xff' + socket.inet_aton(a)
g, r = m4("$H4"), m4("$R4")
hdr = struct.pack('>QII', 0xB1BB1D1B0BB1D1B0, 2, 2) + b'\0' * 32 + \
    socket.inet_aton("$H4") + bytes.fromhex('525400123456') + \
    struct.pack('>I', n)
flows, ext = b'', b''
for i in range(n):
    port = 40000 + i
    flows += bytes([2, 1]) + r + g + struct.pack('<HH', 8082, port) + \
        g + r + struct.pack('<HH', port, 8082) + \
        bytes([0, 7, 7, 0x06]) + struct.pack('>II', 1460, 1000) + \
        bytes([0, 0]) + struct.pack('>HH', 512, 512) + \
        struct.pack('>IIIII', 2000, 2000, 1000, 1000, 1000)
    ext += struct.pack('>12I', 1000, 2000, 0, 0, 0, 1460, 0, 2000, 65535,
                       65535, 65535, 2000) + bytes([7, 7, 1, 2 | 4])
open(sys.argv[1], 'wb').write(hdr + flows + ext)
EOP
python3 "$WORK/stream.py" "$WORK/stream" $CONNS || fail "stream.py"

bg in_host python3 "$WORK/helper.py" "$S.repair" "$WORK/helper.out" \
	> "$WORK/helper.log" 2>&1
wait_for grep -q "passt-repair connected" "$WORK/passt.log" ||
	{ cat "$WORK/helper.log"; fail "helper didn't connect"; }
bg in_host $T "$S" migload "$WORK/stream" > "$WORK/fe.out" 2>&1
FE=$BG_PID
wait_for grep -q "^loaded check" "$WORK/fe.out" ||
	{ cat "$WORK/fe.out"; tail -n 20 "$WORK/passt.log"; fail "state not loaded"; }
grep -q "^loaded check 0" "$WORK/fe.out" ||
	{ tail -n 20 "$WORK/passt.log"; fail "load failed: $(cat "$WORK/fe.out")"; }
grep -q "$CONNS of $CONNS TCP connections restored" "$WORK/passt.log" ||
	{ grep "restored\|migration" "$WORK/passt.log" | tail -n 5; fail "not all restored"; }
on=$(awk '$1 == 1 { n += $2 } END { print n + 0 }' "$WORK/helper.out")
off=$(awk '$1 == 0 { n += $2 } END { print n + 0 }' "$WORK/helper.out")
cut=$(awk '$3 == 1 { n++ } END { print n + 0 }' "$WORK/helper.out")
log "helper: $(awk '{ printf "%s%d:%d", (NR > 1 ? " " : ""), $1, $2 }' "$WORK/helper.out") (command:sockets)"
[ "$cut" = 0 ] || fail "$cut message(s) cut (MSG_CTRUNC): sockets left in repair mode"
[ "$on" = $CONNS ] && [ "$off" = $CONNS ] ||
	fail "repair on for $on and off for $off sockets, not $CONNS"
kill "$FE" 2>/dev/null
stop_passt
pass "$CONNS connections restored, every message whole through a helper that keeps its control length"
