#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_disabled.sh - with --no-udp, a datagram from the namespace gets no
# echo and opens no host socket, and -u together with --no-udp is refused
# at start (exit status 1).
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
bg in_remote $UDPTOOL echo 198.51.100.3 5001 60
wait_for in_remote sh -c "ss -uln | grep -q ':5001 '" || fail "echo server"

start_pasta --no-udp
in_ns $UDPTOOL send 198.51.100.3 5001 --sport 40001 --expect-echo 2>/dev/null &&
	fail "echo came back with --no-udp"
in_host ss -Huan "sport = :40001" | grep -q . && fail "host socket opened"
pasta_alive
stop_pasta

in_host "$PASTA_BIN" -f --no-udp -u 5001 --netns "/run/netns/$N" \
	>"$WORK/refuse.log" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "-u with --no-udp: exit status $rc, expected 1"
pass "--no-udp drops datagrams, refuses -u"
