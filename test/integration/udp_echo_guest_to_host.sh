#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_echo_guest_to_host.sh - from the namespace, 1,000 datagrams of 1 byte
# up to the largest that fits the MTU (65,520 - 28 for IPv4, - 48 for
# IPv6) to a socat echo server in R, one at a time: each echo must be
# byte-identical.  IPv4 and IPv6.  R gets a second address (.3, ::3)
# because its first one is the gateway, which stands for H's loopback.
# Again with --pcap, which makes pasta write complete UDP checksums
# instead of leaving them to the tap device: the namespace's kernel then
# checks every one (200 datagrams each way, capture to /dev/null).
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
remote_udp_echo 5001
start_pasta
wait_for in_remote sh -c "ss -uln | grep -q ':5001 '" || fail "socat"

in_ns $UDPTOOL pingpong 198.51.100.3 5001 1000 65492 || fail "IPv4 echo"
in_ns $UDPTOOL pingpong 2001:db8:1::3 5001 1000 65472 || fail "IPv6 echo"
pasta_alive
stop_pasta

start_pasta --pcap /dev/null
in_ns $UDPTOOL pingpong 198.51.100.3 5001 200 65492 ||
	fail "IPv4 echo, full checksums"
in_ns $UDPTOOL pingpong 2001:db8:1::3 5001 200 65472 ||
	fail "IPv6 echo, full checksums"
pasta_alive
stop_pasta
pass "UDP echo from the namespace, IPv4 and IPv6, 1 to MTU-sized datagrams"
