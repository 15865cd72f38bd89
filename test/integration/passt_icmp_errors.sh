#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_icmp_errors.sh - ICMP errors about the guest's packets in passt
# mode, with a real kernel TCP/IP stack as the guest (tap_relay.py, as in
# passt_kernel_guest.sh): what the guest's tools see must be what the same
# tools see on the host itself (same addresses: the guest takes the host's,
# and the host's gateway R).  R forwards; its firewall (nftables "reject")
# answers for
#   203.0.113.0/28 host-unreachable (ICMP 3/1, RFC 792), 203.0.113.16/28
#   prot-unreachable (3/2), 203.0.113.32/28 admin-prohibited (3/13, RFC
#   1812 5.2.7.1); 2001:db8:90::/48 no-route (ICMPv6 1/0, RFC 4443 3.1),
#   2001:db8:91::/48 admin-prohibited (1/1)
# and, on its link to D (MTU 1280), answers TTL 1 with time exceeded (ICMP
# 11/0, ICMPv6 3/0) and 1400-byte packets with don't-fragment with
# fragmentation needed (3/4, RFC 1191) or packet too big (ICMPv6 2/0).
# Checked: ping's error line (echo), the UDP socket's error queue (type,
# code, errno, offender: udptool.py recverr), TCP connect()'s errno.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"
PEER="python3 $(dirname "$0")/peertool.py"
RELAY="python3 -u $(dirname "$0")/tap_relay.py"

setup_routed 1280 203.0.113.225/27 2001:db8:9::1/64 \
	203.0.113.230/27 203.0.113.231/27 203.0.113.232/27 203.0.113.233/27 \
	2001:db8:9::9/64 2001:db8:9::10/64 2001:db8:9::11/64 2001:db8:9::12/64
make_target_ns
ip -n "$R" addr add 203.0.113.193/27 dev r1
ip -n "$R" addr add 2001:db8:93::1/64 dev r1 nodad
ip -n "$R" route add 203.0.113.0/24 dev r1
ip -n "$R" -6 route add 2001:db8:90::/46 dev r1
firewall "$R" <<'NFT'
ip daddr 203.0.113.0/28 reject with icmp type host-unreachable
ip daddr 203.0.113.16/28 reject with icmp type prot-unreachable
ip daddr 203.0.113.32/28 reject with icmp type admin-prohibited
ip6 daddr 2001:db8:90::/48 reject with icmpv6 type no-route
ip6 daddr 2001:db8:91::/48 reject with icmpv6 type admin-prohibited
NFT

SOCK=$WORK/passt.sock
start_passt "$SOCK"
in_ns ip link set lo up
ip netns exec "$N" $RELAY "$SOCK" tap0 >"$WORK/relay.log" 2>&1 &
RELAY_PID=$!; track $RELAY_PID
wait_for grep -q "relay: up" "$WORK/relay.log" ||
	{ cat "$WORK/relay.log" "$WORK/passt.log"; fail "relay did not connect"; }
# The guest takes the host's addresses and gateway, as from passt's DHCP
in_ns ip addr add $H4/24 dev tap0
in_ns ip addr add $H6/64 dev tap0 nodad
in_ns ip route add default via $R4
in_ns ip -6 route add default via $R6
wait_for grep -q "client connected" "$WORK/passt.log" || fail "no client"
# Neighbours resolved, NDP answered: the first echo may be lost to that
WAIT_S=5 wait_for in_ns ping -c1 -W1 203.0.113.230 || true
WAIT_S=5 wait_for in_ns ping -6 -c1 -W1 2001:db8:9::9 || true

# same WHAT HOST-CMD GUEST-CMD - the output of both must be equal, not empty
same() {
	want=$(eval "in_host $2" 2>&1 | grep -m1 -v '^$')
	got=$(eval "in_ns $3" 2>&1 | grep -m1 -v '^$')
	log "$1: host '$want', guest '$got'"
	case "$want" in ''|none|timeout|connected) fail "$1: nothing on the host itself ('$want')";; esac
	[ "$got" = "$want" ] && return 0
	grep -i -e icmp -e udp -e tcp "$WORK/passt.log" | tail -n 20
	fail "$1: guest got '$got', expected '$want'"
}
p() { echo "ping -n -c1 -W3 $* | grep -m1 '^From '"; }

same "echo, IPv4 host unreachable" "$(p 203.0.113.9)" "$(p 203.0.113.9)"
same "echo, IPv4 administratively prohibited" "$(p 203.0.113.41)" "$(p 203.0.113.41)"
same "echo, IPv4 time exceeded" "$(p -t 1 203.0.113.200)" "$(p -t 1 203.0.113.200)"
same "echo, IPv4 fragmentation needed" "$(p -M "do" -s 1400 203.0.113.231)" "$(p -M "do" -s 1400 203.0.113.230)"
same "echo, IPv6 no route" "$(p 2001:db8:90::9)" "$(p 2001:db8:90::9)"
same "echo, IPv6 hop limit exceeded" "$(p -t 1 2001:db8:93::9)" "$(p -t 1 2001:db8:93::9)"
same "echo, IPv6 packet too big" "$(p -M "do" -s 1400 2001:db8:9::10)" "$(p -M "do" -s 1400 2001:db8:9::9)"

same "UDP, IPv4 host unreachable" "$UDPTOOL recverr 203.0.113.9 4000" "$UDPTOOL recverr 203.0.113.9 4000"
same "UDP, IPv4 protocol unreachable" "$UDPTOOL recverr 203.0.113.25 4000" "$UDPTOOL recverr 203.0.113.25 4000"
same "UDP, IPv4 time exceeded" "$UDPTOOL recverr 203.0.113.200 4000 1" "$UDPTOOL recverr 203.0.113.200 4000 1"
same "UDP, IPv6 administratively prohibited" "$UDPTOOL recverr 2001:db8:91::9 4000" "$UDPTOOL recverr 2001:db8:91::9 4000"
same "UDP, IPv6 hop limit exceeded" "$UDPTOOL recverr 2001:db8:93::9 4000 1" "$UDPTOOL recverr 2001:db8:93::9 4000 1"

same "TCP, IPv4 host unreachable" "$PEER connect-errno 203.0.113.9 80" "$PEER connect-errno 203.0.113.9 80"
same "TCP, IPv4 protocol unreachable" "$PEER connect-errno 203.0.113.25 80" "$PEER connect-errno 203.0.113.25 80"
same "TCP, IPv4 administratively prohibited" "$PEER connect-errno 203.0.113.41 80" "$PEER connect-errno 203.0.113.41 80"
same "TCP, IPv6 no route" "$PEER connect-errno 2001:db8:90::9 80" "$PEER connect-errno 2001:db8:90::9 80"
same "TCP, IPv6 administratively prohibited" "$PEER connect-errno 2001:db8:91::9 80" "$PEER connect-errno 2001:db8:91::9 80"

passt_alive
stop_passt
pass "ICMP errors about the guest's echo, UDP and TCP reach it in passt mode as they reach the host"
