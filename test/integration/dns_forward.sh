#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dns_forward.sh - dnsmasq on H's loopback (127.0.0.1 and ::1, no upstream,
# one local record) answers dig in the namespace:
#  - --dns-forward 203.0.113.53 --dns-host 127.0.0.1, and
#    --dns-forward 2001:db8:5::53 --dns-host ::1: queries to those
#    addresses, port 53, over UDP and TCP;
#  - without options: H's resolv.conf names 127.0.0.1, so the gateway
#    address is the forwarding address, to the first name server.
# The answer (A 203.0.113.77, AAAA 2001:db8:77::1) must come back from the
# address queried (dig checks the reply's source for UDP).
# asan: yes
. "$(dirname "$0")/lib.sh"

command -v dig >/dev/null || skip "dig (bind9-dnsutils) not installed"
command -v dnsmasq >/dev/null || skip "dnsmasq not installed"
setup_topology
bg in_host dnsmasq -k --conf-file=/dev/null --no-resolv --no-hosts \
	--bind-interfaces --listen-address=127.0.0.1 --listen-address=::1 \
	--port=53 --user=root --pid-file= \
	--host-record=www.test.example,203.0.113.77,2001:db8:77::1
wait_for in_host sh -c "ss -uln | grep -q '127.0.0.1:53 '" || fail "dnsmasq"

q() { # q SERVER TYPE [+tcp]
	in_ns dig +short +time=2 +tries=2 ${3:-} @"$1" www.test.example "$2"
}

start_pasta --dns-forward 203.0.113.53 --dns-host 127.0.0.1 \
	--dns-forward 2001:db8:5::53 --dns-host ::1
for proto in "" +tcp; do
	[ "$(q 203.0.113.53 A $proto)" = 203.0.113.77 ] ||
		fail "A via 203.0.113.53 ${proto:-udp}: '$(q 203.0.113.53 A $proto)'"
	[ "$(q 2001:db8:5::53 AAAA $proto)" = 2001:db8:77::1 ] ||
		fail "AAAA via 2001:db8:5::53 ${proto:-udp}"
	log "forwarded queries answered over ${proto:-udp}"
done
pasta_alive
stop_pasta

start_pasta
for proto in "" +tcp; do
	[ "$(q $R4 A $proto)" = 203.0.113.77 ] ||
		fail "A via the gateway ${proto:-udp}"
done
log "gateway address forwards to the host's name server"
pasta_alive
stop_pasta
pass "DNS forwarding over UDP and TCP"
