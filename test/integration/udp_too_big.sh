#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_too_big.sh - with -m 1500, the largest datagram through the tap path
# has 1500 - 28 = 1472 bytes of payload (IPv4), 1500 - 48 = 1452 (IPv6):
# those are echoed both ways; one byte more is dropped in each direction
# (from the namespace, its kernel fragments it and fragments are dropped;
# from a peer in R, pasta can't fit it in one frame), and the drops are
# counted in the --stats summary.
# asan: no (bulk data: tcp_concurrent, splice_concurrent and tcp_uploads_backlog run these paths under ASan, CI time)
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
remote_udp_echo 5001
make_target_ns
in_ns sysctl -q -w net.ipv6.conf.default.autoconf=0
start_pasta -m 1500 -u 6001:5001 --stats
bg in_ns socat -b 65536 UDP4-LISTEN:5001,fork,reuseaddr PIPE
bg in_ns socat -b 65536 UDP6-LISTEN:5001,ipv6only=1,fork,reuseaddr PIPE
wait_for in_remote sh -c "ss -uln | grep -q ':5001 '" || fail "socat in R"
wait_for in_ns sh -c "ss -uln | grep -q '\]:5001 '" || fail "socat in ns"

export UDPTOOL_TIMEOUT=2
one() { # one NAMESPACE HOST PORT SIZE: one datagram, echoed?
	ip netns exec "$1" $UDPTOOL pingpong "$2" "$3" 1 "$4" >/dev/null 2>&1
}

one $N 198.51.100.3 5001 1472 || fail "1472 bytes from the namespace"
one $N 2001:db8:1::3 5001 1452 || fail "1452 bytes (IPv6) from the namespace"
one $N 198.51.100.3 5001 1473 && fail "1473 bytes from the namespace passed"
one $N 2001:db8:1::3 5001 1453 && fail "1453 bytes (IPv6) passed"
log "from the namespace: 1472/1452 bytes pass, one more doesn't"

one $R $H4 6001 1472 || fail "1472 bytes to -u"
one $R $H6 6001 1452 || fail "1452 bytes (IPv6) to -u"
one $R $H4 6001 1473 && fail "1473 bytes to -u passed"
one $R $H6 6001 1453 && fail "1453 bytes (IPv6) to -u passed"
log "to the namespace: 1472/1452 bytes pass, one more doesn't"

pasta_alive
stop_pasta
too_big=$(sed -n 's/.*UDP flows .* too big \([0-9]*\),.*/\1/p' "$WORK/pasta.log")
frags=$(sed -n 's/.*IP fragment.*: \([0-9]*\)$/\1/p' "$WORK/pasta.log")
log "--stats: UDP too big ${too_big:-?}, IP fragments dropped ${frags:-?}"
[ "${too_big:-0}" -ge 2 ] || fail "datagrams too big for the guest not counted"
[ "${frags:-0}" -ge 2 ] || fail "fragments from the namespace not counted"
pass "datagrams beyond the MTU are dropped and counted"
