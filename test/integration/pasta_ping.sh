#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_ping.sh - ping through pasta: the gateway address is the host
#
# ping -c3 from the namespace to the gateway-mapped address (which pasta
# sends to H's loopback through a ping socket) must get 3 replies, IPv4 and
# IPv6, and ping to R (a remote host) works too.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
start_pasta
WAIT_S=5 wait_for in_ns ping -c1 -W1 $R4 || true

in_ns ping -c3 -i0.2 -W2 $R4 > "$WORK/p4" || { cat "$WORK/p4" "$WORK/pasta.log"; fail "ping $R4 (gateway, mapped to host loopback)"; }
grep -q "3 received" "$WORK/p4" || fail "IPv4: not 3 replies"
WAIT_S=5 wait_for in_ns ping -6 -c1 -W1 $R6 || true
in_ns ping -6 -c3 -i0.2 -W2 $R6 > "$WORK/p6" || { cat "$WORK/p6" "$WORK/pasta.log"; fail "ping $R6"; }
grep -q "3 received" "$WORK/p6" || fail "IPv6: not 3 replies"

stop_pasta
pass "ping through pasta, IPv4 and IPv6"
