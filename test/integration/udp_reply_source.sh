#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_reply_source.sh - every UDP reply through a -u port comes back from
# the address its request went to.
# With -u 10002 and an echo server in the namespace, one host socket sends
# first to the host's own address (198.51.100.1 or 2001:db8:1::1: the tap
# path) and then to 127.0.0.1 or ::1 (spliced): the guest sees both as the
# same peer (the gateway), yet each echo must come from where its request
# went (RFC 768 gives replies no other way to be matched; a socket
# connect()ed to 127.0.0.1 would drop the other one).  Then 30 fresh
# sockets each do the same, in turns of both orders.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
start_pasta -u 10002
bg in_ns $UDPTOOL echo :: 10002 60
wait_for in_ns sh -c "ss -uln | grep -q ':10002 '" || fail "echo in ns"

check() { # $1: family (4 or 6), $2: address of the host, $3: loopback
	in_host python3 - "$1" "$2" "$3" <<'PY' || fail "IPv$1: wrong reply source"
import socket, sys
fam = socket.AF_INET if sys.argv[1] == '4' else socket.AF_INET6
addrs = [sys.argv[2], sys.argv[3]]
for n in range(31):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(3)
    s.bind(('0.0.0.0' if fam == socket.AF_INET else '::', 0))
    order = addrs if n % 2 == 0 else addrs[::-1]
    for a in order:
        msg = b'%d %s' % (n, a.encode())
        s.sendto(msg, (a, 10002))
        try:
            data, peer = s.recvfrom(2048)
        except socket.timeout:
            sys.exit('round %d: no echo from %s' % (n, a))
        if peer[0] != a or peer[1] != 10002 or data != msg:
            sys.exit('round %d: sent to %s, echo from %s:%d' %
                     (n, a, peer[0], peer[1]))
    s.close()
PY
}
check 4 $H4 127.0.0.1
check 6 $H6 ::1
pasta_alive
stop_pasta
pass "replies come from the address each request went to, tap and splice"
