#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_loopback_dst_dropped.sh - a frame from the namespace addressed to
# 127.0.0.1 or ::1 (which a kernel never sends: RFC 1122 3.2.1.3 (g), RFC
# 4291 2.5.3) must not reach H's loopback services, while the same
# datagram to the gateway address, which stands for H's loopback, does.
# Frames are written by hand to the tap with a packet socket; socat on H's
# loopback records what arrives.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
bg in_host socat -u UDP4-RECV:5009,bind=127.0.0.1 OPEN:"$WORK/got4",creat,append
bg in_host socat -u UDP6-RECV:5009,bind='[::1]' OPEN:"$WORK/got6",creat,append
make_target_ns
in_ns sysctl -q -w net.ipv6.conf.default.autoconf=0
start_pasta
wait_for in_host sh -c "ss -uln | grep -q '127.0.0.1:5009 '" || fail "socat"

tap=$(ip -n "$N" -o link show | awk -F': ' '$2 != "lo" { print $2; exit }')
mac=$(in_ns cat /sys/class/net/$tap/address)
in_ns ping -c1 -W2 $R4 >/dev/null 2>&1
in_ns ping -c1 -W2 $R6 >/dev/null 2>&1
gw4=$(ip -n "$N" neigh show $R4 | awk '{ print $5; exit }')
gw6=$(ip -n "$N" -6 neigh show $R6 | awk '{ print $5; exit }')
[ -n "$gw4" ] && [ -n "$gw6" ] || fail "no neighbour entries for the gateway"

for dst in 127.0.0.1 $R4; do
	in_ns $UDPTOOL inject $tap $mac $gw4 $H4 $dst 5009 "to-$dst" ||
		fail "inject IPv4"
done
for dst in ::1 $R6; do
	in_ns $UDPTOOL inject $tap $mac $gw6 $H6 $dst 5009 "to-$dst" ||
		fail "inject IPv6"
done
wait_for grep -q "to-$R4" "$WORK/got4" || fail "control datagram to $R4 lost"
wait_for grep -q "to-$R6" "$WORK/got6" || fail "control datagram to $R6 lost"
sleep 0.5
grep -q "to-127" "$WORK/got4" && fail "datagram to 127.0.0.1 reached H"
grep -q "to-::1" "$WORK/got6" && fail "datagram to ::1 reached H"
pasta_alive
stop_pasta
pass "loopback destinations from the guest are dropped"
