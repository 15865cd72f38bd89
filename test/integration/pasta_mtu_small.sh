#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_mtu_small.sh - an MTU below 1280 turns IPv6 off (RFC 8200, section 5:
# every IPv6 link has an MTU of at least 1280 bytes), IPv4 keeps working;
# with -6 the same MTU is refused, naming -m/--mtu.  -m 0 (upstream passt.1:
# "A zero value disables assignment") leaves the tap's MTU alone: the
# kernel's default for an Ethernet device (ether_setup(), 1500), IPv6 on.
#
# Expected values: the MTU from the command line on the tap (the kernel
# reports it), a real ping through it, exit status 1 for an invalid option.
. "$(dirname "$0")/lib.sh"

setup_topology
start_pasta -m 1000

mtu=$(ip -n "$N" -o link show h0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
[ "$mtu" = 1000 ] || fail "MTU is '$mtu', expected 1000"
ip -n "$N" -o -6 addr show scope global | grep -q inet6 &&
	fail "IPv6 address configured on a link with MTU 1000"
grep -q "IPv6 disabled" "$WORK/pasta.log" || { cat "$WORK/pasta.log"; fail "no message"; }
in_ns ping -c 1 -W 5 -s 900 "$R4" >/dev/null || fail "IPv4 ping through MTU 1000"
stop_pasta

rc=0
ip netns exec "$H" "$PASTA_BIN" -6 -m 1000 --config-net \
	--netns "/run/netns/$N" > "$WORK/err" 2>&1 || rc=$?
cat "$WORK/err"
[ $rc = 1 ] || fail "-6 -m 1000: exit status $rc, expected 1"
grep -q -- "-m/--mtu" "$WORK/err" || fail "message doesn't name -m/--mtu"

start_pasta -m 0
mtu=$(ip -n "$N" -o link show h0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
[ "$mtu" = 1500 ] || fail "-m 0: MTU is '$mtu', expected the kernel's 1500"
wait_for sh -c "ip -n $N -o -6 addr show scope global | grep -q inet6" ||
	fail "-m 0: no IPv6 address"
in_ns ping -c 1 -W 5 -s 1400 "$R4" >/dev/null || fail "-m 0: IPv4 ping"
stop_pasta
pass "MTU 1000: IPv6 off, IPv4 works; refused with -6; -m 0 leaves 1500"
