#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_outbound_addr.sh - -o/--outbound binds the sockets of connections and
# echo requests the namespace starts: with H holding a second address
# (198.51.100.4, 2001:db8:1::4) and pasta -o on it, a TCP server in R must
# see that address as the peer, IPv4 and IPv6, and so must a raw ICMP
# socket in R for a ping from the namespace.  A connection to the gateway
# address (H's loopback) is not bound: H's loopback server sees 127.0.0.1
# and ::1 (the -o address is not a loopback one).
# asan: yes
. "$(dirname "$0")/lib.sh"
PEER="python3 $(dirname "$0")/peertool.py"

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
ip -n "$R" addr add 2001:db8:1::3/64 dev r0 nodad
ip -n "$H" addr add 198.51.100.4/24 dev h0
ip -n "$H" addr add 2001:db8:1::4/64 dev h0 nodad
bg in_remote $PEER serve-peer 7500
bg in_host $PEER serve-peer 7501 --bind 127.0.0.1
bg in_host $PEER serve-peer 7502 --bind ::1
wait_for in_remote sh -c "ss -Htln | grep -q ':7500 '" || fail "server in R"
wait_for in_host sh -c "ss -Htln | grep -q ':7502 '" || fail "servers in H"
start_pasta -o 198.51.100.4 -o 2001:db8:1::4

got=$(in_ns $PEER peer 198.51.100.3 7500) || { cat "$WORK/pasta.log"; fail "IPv4 connection to R"; }
[ "$got" = 198.51.100.4 ] || fail "IPv4: R saw peer '$got', expected 198.51.100.4"
got=$(in_ns $PEER peer 2001:db8:1::3 7500) || { cat "$WORK/pasta.log"; fail "IPv6 connection to R"; }
[ "$got" = 2001:db8:1::4 ] || fail "IPv6: R saw peer '$got', expected 2001:db8:1::4"

got=$(in_ns $PEER peer $R4 7501) || fail "IPv4 connection to H's loopback"
[ "$got" = 127.0.0.1 ] || fail "IPv4 loopback: peer '$got', expected 127.0.0.1"
got=$(in_ns $PEER peer $R6 7502) || fail "IPv6 connection to H's loopback"
[ "$got" = ::1 ] || fail "IPv6 loopback: peer '$got', expected ::1"

for fam in 4 6; do
	dst=198.51.100.3
	[ $fam = 6 ] && dst=2001:db8:1::3
	want=198.51.100.4
	[ $fam = 6 ] && want=2001:db8:1::4
	in_remote $PEER icmp-src $fam > "$WORK/icmp$fam" &
	rawpid=$!
	track $rawpid
	# ping sends only three requests: the raw socket must be open first
	# (Python starts slowly on a loaded machine)
	wait_for in_remote sh -c "ss -Hwan -$fam | grep -q ." ||
		fail "raw ICMPv$fam socket in R"
	in_ns ping -$fam -c3 -i0.3 -W2 $dst > "$WORK/p$fam" ||
		{ cat "$WORK/p$fam" "$WORK/pasta.log"; fail "ping -$fam $dst"; }
	wait $rawpid
	got=$(cat "$WORK/icmp$fam")
	[ "$got" = "$want" ] || fail "ping -$fam: R saw source '$got', expected $want"
done

pasta_alive
stop_pasta
pass "-o binds TCP and ICMP echo sockets to the given address, not loopback ones"
