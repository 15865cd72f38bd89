#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_echo_host_to_guest.sh - -u with a remapped port (host 6001 -> 5001 in
# the namespace): a client in R (a non-loopback peer, so the tap path)
# sends 1,000 datagrams of 1 byte up to the largest that fits the MTU to
# H's address, port 6001; socat echoes them in the namespace.  Each echo
# must come back byte-identical, from the address and port the client
# sent to (its socket is connected).  IPv4 and IPv6.  SLAAC is off in the
# namespace: with a second global address there, socat's replies (from a
# socket bound to the wildcard) could leave from the other address, which
# is another flow, as for any NAT.  Then 200 datagrams each way again with
# --pcap (to /dev/null), which makes pasta compute full UDP checksums that
# the namespace's kernel verifies.  Last, with --no-splice, a client on
# H's loopback takes the tap path too (the namespace sees it as the
# gateway address): 200 datagrams each way.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
make_target_ns
in_ns sysctl -q -w net.ipv6.conf.default.autoconf=0
start_pasta -u 6001:5001
bg in_ns socat -b 65536 UDP4-LISTEN:5001,fork,reuseaddr PIPE
bg in_ns socat -b 65536 UDP6-LISTEN:5001,ipv6only=1,fork,reuseaddr PIPE
wait_for in_ns sh -c "ss -uln | grep -q '\]:5001 '" || fail "socat"

in_remote $UDPTOOL pingpong $H4 6001 1000 65492 || fail "IPv4 echo"
in_remote $UDPTOOL pingpong $H6 6001 1000 65472 || fail "IPv6 echo"
pasta_alive
stop_pasta

start_pasta -u 6001:5001 --pcap /dev/null
in_remote $UDPTOOL pingpong $H4 6001 200 65492 || fail "IPv4, full checksums"
in_remote $UDPTOOL pingpong $H6 6001 200 65472 || fail "IPv6, full checksums"
pasta_alive
stop_pasta

start_pasta -u 6001:5001 --no-splice
in_host $UDPTOOL pingpong 127.0.0.1 6001 200 65492 || fail "IPv4 from loopback"
in_host $UDPTOOL pingpong ::1 6001 200 65472 || fail "IPv6 from loopback"
pasta_alive
stop_pasta
pass "UDP echo into the namespace through -u 6001:5001, IPv4 and IPv6"
