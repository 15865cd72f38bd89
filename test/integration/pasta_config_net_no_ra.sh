#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_config_net_no_ra.sh - with --config-net the namespace is set up
# already: pasta sends no router advertisement, solicited (rdisc6) or not,
# so the namespace keeps the one IPv6 default route pasta configured (via
# 2001:db8:1::2), with no second one "proto ra ... expires" via our
# link-local address, as every podman container got.
# asan: yes
. "$(dirname "$0")/lib.sh"
command -v rdisc6 >/dev/null || fail "rdisc6 missing (package ndisc6)"

setup_topology
start_pasta --stats
sleep 2		# the first unsolicited RA went out at once before
in_ns timeout 5 rdisc6 -1 -w 1000 -r 2 h0 >"$WORK/ra" 2>&1 &&
	{ cat "$WORK/ra"; fail "a router solicitation was answered"; }
in_ns ip -6 route show default >"$WORK/routes"
cat "$WORK/routes"
[ "$(wc -l < "$WORK/routes")" -eq 1 ] || fail "not one IPv6 default route"
grep -q "via $R6 " "$WORK/routes" || fail "default route not via $R6"
grep -q -e "proto ra" -e expires "$WORK/routes" && fail "route from an RA"
pasta_alive
stop_pasta
pass "no router advertisements with --config-net"
