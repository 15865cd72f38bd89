#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_loopback.sh - loopback UDP carried socket to socket, both ways:
#  - -u 6002:5002: a client on H's loopback (127.0.0.1, ::1) reaches socat
#    echoing on the namespace's loopback, port 5002;
#  - -U 6003:5003: a client on the namespace's loopback reaches socat on
#    H's loopback, port 5003.
# 1,000 datagrams of 1 byte up to 65,507 (IPv4) or 65,527 (IPv6) bytes, the
# largest a UDP socket sends, one at a time, each echoed byte-identical.
# Then 150 numbered 100-byte datagrams back to back (few enough for every
# socket buffer on the way to hold them all) through each direction to a
# python echo server: all back, in order.  The tap in the namespace must
# not carry them (its kernel RX counter stays put).
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
start_pasta -u 6002:5002 -u 6004:5004 -U 6003:5003 -U 6005:5005
bg in_ns socat -b 65536 UDP4-LISTEN:5002,fork,reuseaddr PIPE
bg in_ns socat -b 65536 UDP6-LISTEN:5002,ipv6only=1,fork,reuseaddr PIPE
bg in_host socat -b 65536 UDP4-LISTEN:5003,fork,reuseaddr PIPE
bg in_host socat -b 65536 UDP6-LISTEN:5003,ipv6only=1,fork,reuseaddr PIPE
bg in_ns $UDPTOOL echo 0.0.0.0 5004 120
bg in_host $UDPTOOL echo 127.0.0.1 5005 120
wait_for in_ns sh -c "ss -uln | grep -q '\]:5002 '" || fail "socat in ns"
wait_for in_host sh -c "ss -uln | grep -q '\]:5003 '" || fail "socat in H"
wait_for in_ns sh -c "ss -uln | grep -q ':5004 '" || fail "echo in ns"
wait_for in_host sh -c "ss -uln | grep -q ':5005 '" || fail "echo in H"

tap=$(ip -n "$N" -o link show | awk -F': ' '$2 != "lo" { print $2; exit }')
rx0=$(in_ns cat /sys/class/net/$tap/statistics/rx_packets)

in_host $UDPTOOL pingpong 127.0.0.1 6002 1000 65507 || fail "-u IPv4 echo"
in_host $UDPTOOL pingpong ::1 6002 1000 65527 || fail "-u IPv6 echo"
in_ns $UDPTOOL pingpong 127.0.0.1 6003 1000 65507 || fail "-U IPv4 echo"
in_ns $UDPTOOL pingpong ::1 6003 1000 65527 || fail "-U IPv6 echo"
in_host $UDPTOOL burst 127.0.0.1 6004 150 100 || fail "-u burst"
in_ns $UDPTOOL burst 127.0.0.1 6005 150 100 || fail "-U burst"

rx1=$(in_ns cat /sys/class/net/$tap/statistics/rx_packets)
[ $((rx1 - rx0)) -lt 50 ] ||
	fail "the tap carried $((rx1 - rx0)) frames: not spliced"
log "tap $tap received $((rx1 - rx0)) frames meanwhile"
pasta_alive
stop_pasta
pass "loopback UDP spliced both ways, sizes up to 65,507/65,527, order kept"
