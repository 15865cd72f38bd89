#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# noroute_self.sh - A host with no default route (pasta -i h0 picks the
# interface; there is no gateway to show the host as): a host peer that
# uses the host's own address, which the namespace also has, can't be
# shown to the namespace under any address.  No frame may then leave with
# source 0.0.0.0 or :: ("this host on this network", only a source while a
# host configures itself: RFC 1122 3.2.1.3 (a), RFC 4291 2.5.2): the
# datagram is dropped, and a TCP connection is refused at once (reset: the
# host client sees it end) instead of hanging on a SYN the namespace's
# kernel drops as a martian.  Control: the same from R's address arrives.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
ip -n "$H" route del default
ip -n "$H" -6 route del default
make_target_ns
start_pasta -i h0 -u 7600 -t 7601
tap=$(ip -n "$N" -o link show | awk -F': ' '$2 != "lo" { print $2; exit }')
bg in_ns tshark -n -l -i "$tap" -f "udp port 7600 or tcp port 7601" \
	-T fields -e ip.src -e ipv6.src >"$WORK/src" 2>"$WORK/tshark.err"
wait_for grep -q Capturing "$WORK/tshark.err" || fail "tshark"
bg in_ns socat -u UDP6-RECV:7600 OPEN:"$WORK/got",creat,append
bg in_ns socat TCP6-LISTEN:7601,fork,reuseaddr SYSTEM:"echo hello"
wait_for in_ns sh -c "ss -Huln | grep -q ':7600 ' && ss -Htln | grep -q ':7601 '" ||
	fail "servers in the namespace"

# Control: from R, both arrive
in_remote sh -c "echo from-r | socat -u - UDP4:$H4:7600"
wait_for grep -q from-r "$WORK/got" || fail "control datagram from R lost"
got=$(in_remote timeout 10 socat -u TCP4:$H4:7601 -) || fail "control connection from R"
[ "$got" = hello ] || fail "control connection from R: '$got'"

# From the host's own address, IPv4 and IPv6
in_host sh -c "echo self4 | socat -u - UDP4:$H4:7600,bind=$H4"
in_host sh -c "echo self6 | socat -u - UDP6:[$H6]:7600,bind=[$H6]"
# A client whose connection the kernel completed before we refused it
# sees it reset (or closed), at once: not "hello", not the 10 s timeout
rc4=0; rc6=0
in_host timeout 10 socat -u TCP4:$H4:7601,bind=$H4 - >"$WORK/tcp4" 2>&1 || rc4=$?
in_host timeout 10 socat -u TCP6:[$H6]:7601,bind=[$H6] - >"$WORK/tcp6" 2>&1 || rc6=$?
sleep 1
stop_pasta
grep -q -e 'self4' -e 'self6' "$WORK/got" &&
	fail "a datagram from the host's own address arrived: $(cat "$WORK/got")"
grep -q -e '^0\.0\.0\.0' -e '^::\s*$' -e '\s::$' "$WORK/src" &&
	fail "a frame left with an unspecified source"
for f in 4 6; do
	case $f in 4) rc=$rc4 ;; 6) rc=$rc6 ;; esac
	[ "$rc" != 124 ] && ! grep -q hello "$WORK/tcp$f" ||
		fail "TCP from the host's own address (IPv$f): rc $rc, $(cat "$WORK/tcp$f")"
done
pass "no gateway: the host's own address is refused, never shown as 0.0.0.0 or ::"
