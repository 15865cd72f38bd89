#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dns_forward_dot_family.sh - --dns-forward beyond port 53 and across
# families, with servers on H's loopback only (never a real resolver):
#  - H's resolv.conf lists only ::1 (dnsmasq there, no upstream, one local
#    record) and pasta gets podman's --dns-forward 169.254.1.1: dig in the
#    namespace asks 169.254.1.1 over UDP and TCP and gets the answer, from
#    169.254.1.1 (dig checks the source for UDP); the IPv4 flows are carried
#    by IPv6 sockets to ::1;
#  - port 853 (DNS over TLS, RFC 7858; a plain responder stands for the
#    TLS server, the forwarding doesn't look inside): a TCP connection to
#    169.254.1.1:853 reaches ::1 port 853, and with --dns-forward
#    203.0.113.53 --dns-host 127.0.0.1 and 2001:db8:5::53 --dns-host ::1,
#    connections to port 853 of those reach 127.0.0.1 and ::1 port 853, a
#    datagram to UDP port 853 (DNS over DTLS/QUIC, RFC 8094, RFC 9250) is
#    answered from there, while other ports of those addresses are not
#    forwarded.
# asan: yes
. "$(dirname "$0")/lib.sh"

command -v dig >/dev/null || skip "dig (bind9-dnsutils) not installed"
command -v dnsmasq >/dev/null || skip "dnsmasq not installed"
setup_topology
echo "nameserver ::1" > "/etc/netns/$H/resolv.conf"
bg in_host dnsmasq -k --conf-file=/dev/null --no-resolv --no-hosts \
	--bind-interfaces --listen-address=::1 --port=53 --user=root \
	--pid-file= --host-record=www.test.example,203.0.113.77,2001:db8:77::1
# "DoT" responders: each says which address and port it listens on; UDP
# 853 on ::1 echoes
bg in_host socat TCP6-LISTEN:853,bind='[::1]',reuseaddr,fork \
	SYSTEM:'echo dot-v6-lo'
bg in_host socat TCP4-LISTEN:853,bind=127.0.0.1,reuseaddr,fork \
	SYSTEM:'echo dot-v4-lo'
bg in_host python3 "$(dirname "$0")/udptool.py" echo ::1 853 120
bg in_host socat TCP4-LISTEN:8853,bind=127.0.0.1,reuseaddr,fork \
	SYSTEM:'echo wrong-port'
wait_for in_host sh -c "ss -uln | grep -q '\[::1\]:53 '" || fail "dnsmasq"
wait_for in_host sh -c "ss -tln | grep -q '127.0.0.1:853 '" || fail "socat"
wait_for in_host sh -c "ss -uln | grep -q '\[::1\]:853 '" || fail "UDP echo"

q() { # q SERVER TYPE [+tcp]
	in_ns dig +short +time=2 +tries=2 ${3:-} @"$1" www.test.example "$2"
}
# tcp853 ADDRESS [PORT] - what the responder behind ADDRESS:PORT says
tcp853() {
	in_ns timeout 10 socat -T5 -u TCP:$1:${2:-853},connect-timeout=3 - \
		2>/dev/null
}

# routes_up - wait for --config-net's default routes in N (they come after
# the address start_pasta waits for)
routes_up() {
	wait_for sh -c "ip -n $N -4 route show default | grep -q via" &&
	wait_for sh -c "ip -n $N -6 route show default | grep -q via" ||
		fail "no default routes in N"
}

# podman's invocation, IPv6-only resolver on the host
start_pasta --dns-forward 169.254.1.1
routes_up
for proto in "" +tcp; do
	got=$(q 169.254.1.1 A $proto)
	[ "$got" = 203.0.113.77 ] ||
		fail "A via 169.254.1.1 ${proto:-udp} (to ::1): '$got'"
done
log "IPv4 queries to 169.254.1.1 answered by ::1, UDP and TCP"
grep -q "IPv4 queries go to the IPv6 name server" "$WORK/pasta.log" ||
	fail "cross-family forwarding not reported"
[ "$(tcp853 169.254.1.1)" = dot-v6-lo ] || fail "169.254.1.1:853 not at ::1"
log "169.254.1.1 port 853 reaches ::1 port 853"
pasta_alive
stop_pasta

# Same family, explicit --dns-host
start_pasta --dns-forward 203.0.113.53 --dns-host 127.0.0.1 \
	--dns-forward 2001:db8:5::53 --dns-host ::1
routes_up
[ "$(tcp853 203.0.113.53)" = dot-v4-lo ] || fail "203.0.113.53:853 not at 127.0.0.1"
[ "$(tcp853 '[2001:db8:5::53]')" = dot-v6-lo ] || fail "[2001:db8:5::53]:853 not at ::1"
# Only ::1 port 853 echoes (nothing listens behind 2001:db8:5::53 in R)
got=$(echo udp853 | in_ns timeout 10 socat -T3 - UDP6:'[2001:db8:5::53]':853 2>/dev/null)
[ "$got" = udp853 ] || fail "UDP [2001:db8:5::53]:853 not echoed by ::1: '$got'"
log "port 853 forwarded, TCP both families and UDP"
# Not a DNS port: 203.0.113.53:8853 goes to 203.0.113.53 (nobody there)
got=$(tcp853 203.0.113.53 8853)
[ -z "$got" ] || fail "port 8853 was forwarded to the name server: '$got'"
pasta_alive
stop_pasta
pass "DNS forwarding of ports 53 and 853, across address families"
