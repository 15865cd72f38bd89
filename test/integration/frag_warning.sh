#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# frag_warning.sh - IP fragments from the guest are dropped (never
# reassembled), and pasta says so in a warning, once for a burst (rate
# limited), also at the quietest log level (-q keeps warnings).  The
# namespace sends 3,000-byte UDP datagrams with DF clear over a 1500-byte
# MTU, so its kernel fragments them (RFC 791); none reaches R (198.51.100.3).
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
PASTA_DEBUG=-q start_pasta -m 1500
ip -n "$R" addr add 198.51.100.3/24 dev r0	# R4 stands for H's loopback
bg in_remote socat -u UDP4-RECV:9009 OPEN:"$WORK/got",creat,append
wait_for in_remote sh -c "ss -Hlun | grep -q ':9009 '" || fail "receiver in R"
in_ns python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, 10, 0)  # IP_MTU_DISCOVER, IP_PMTUDISC_DONT
for i in range(20):
    s.sendto(b'x' * 3000, ('198.51.100.3', 9009))
" || fail "sender"
in_ns python3 -c "
import socket
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'small', ('198.51.100.3', 9009))
"
wait_for test -s "$WORK/got" || fail "the small datagram did not arrive"
[ "$(cat "$WORK/got")" = small ] || fail "fragments were reassembled: $(wc -c < "$WORK/got") bytes"
pasta_alive
n=$(grep -c "IP fragment.* from the guest" "$WORK/pasta.log")
[ "$n" -eq 1 ] || { cat "$WORK/pasta.log"; fail "$n fragment warnings, expected 1"; }
grep "IP fragment" "$WORK/pasta.log"
stop_pasta
pass "fragments dropped with one warning"
