#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_slaac_inbound.sh - a guest that configures IPv6 by itself (SLAAC
# or by hand, no DHCPv6) and sends nothing from its global address is
# reachable through -t at once: pasta learns the address from the guest's
# Duplicate Address Detection probe (RFC 4862 5.4.2: NS from ::, target
# the new address).  The namespace takes 2001:db8:1::99, not the
# 2001:db8:1::1 pasta would assume; a client in R connects to H's port.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
# --no-ra: no SLAAC address of its own (its DAD probe could come last)
CONFIG_NET=0 start_pasta -t 8091 --no-ra
ip -n "$N" link set lo up
ip -n "$N" link set h0 up
bg in_ns socat TCP6-LISTEN:8091,ipv6only=1,reuseaddr,fork 'SYSTEM:echo hello from $SOCAT_SOCKADDR'
wait_for in_ns sh -c "ss -Hltn | grep -q ':8091 '" || fail "server in N"
# With DAD (the default for a new address): the probe goes out first
ip -n "$N" addr add 2001:db8:1::99/64 dev h0
WAIT_S=5 wait_for sh -c "ip -n $N -6 addr show dev h0 | grep '2001:db8:1::99' | grep -vq tentative" ||
	fail "address still tentative"
r=$(in_remote timeout 10 socat -T 5 - TCP6:[$H6]:8091 </dev/null 2>&1)
[ "$r" = "hello from [2001:0db8:0001:0000:0000:0000:0000:0099]" ] ||
	{ tail -20 "$WORK/pasta.log"; fail "inbound IPv6 to a SLAAC-only guest: '$r'"; }
pasta_alive
stop_pasta
pass "inbound IPv6 reaches an address the guest only announced by DAD"
