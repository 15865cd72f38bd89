#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# loopback_127_8.sh - -T and -U carry the whole of 127.0.0.0/8: a client in
# the namespace connecting to 127.0.0.53:5353 (systemd-resolved's stub
# address) reaches the host's 127.0.0.53:5353, not its 127.0.0.1, and
# 127.0.0.1 still reaches 127.0.0.1; the same for UDP.  An explicit
# -T 127.0.0.54/5354 listens there and connects to the host's 127.0.0.54.
# The namespace's own address (198.51.100.1), which lo carries too, is
# not forwarded.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
for a in 127.0.0.53 127.0.0.1; do
	bg in_host socat TCP4-LISTEN:5353,bind=$a,reuseaddr,fork "SYSTEM:echo tcp $a"
	bg in_host $UDPTOOL echo $a 5353 60
done
bg in_host socat TCP4-LISTEN:5354,bind=127.0.0.54,reuseaddr,fork "SYSTEM:echo tcp 127.0.0.54"
wait_for in_host sh -c "[ \$(ss -Hltn | grep -c ':535[34] ') -eq 3 ]" || fail "TCP servers in H"
wait_for in_host sh -c "[ \$(ss -Hlun | grep -c ':5353 ') -eq 2 ]" || fail "UDP servers in H"

start_pasta -T 5353 -U 5353 -T 127.0.0.54/5354
ask() { in_ns timeout 10 socat -T 3 - TCP4:$1:$2 </dev/null 2>/dev/null; }
for a in 127.0.0.53 127.0.0.1; do
	r=$(ask $a 5353)
	[ "$r" = "tcp $a" ] || fail "TCP $a:5353 in N -> '$r', expected 'tcp $a'"
	in_ns python3 - $a <<'PY' || fail "UDP $a:5353"
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.sendto(b'ping', (sys.argv[1], 5353))
data, peer = s.recvfrom(100)
if data != b'ping' or peer[0] != sys.argv[1]:
    sys.exit('echo %r from %s' % (data, peer))
PY
	log "$a:5353 in N reached $a:5353 in H, TCP and UDP"
done
r=$(ask 127.0.0.54 5354)
[ "$r" = "tcp 127.0.0.54" ] || fail "-T 127.0.0.54/5354 -> '$r'"
r=$(ask $H4 5353)
[ -z "$r" ] || fail "N's own $H4:5353 was forwarded: '$r'"
pasta_alive
stop_pasta
pass "-T/-U forward every 127.0.0.0/8 address to the same one on the host"
