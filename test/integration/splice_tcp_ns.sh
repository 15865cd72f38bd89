#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# splice_tcp_ns.sh - -T with remapped ports: pasta listens on the
# namespace's loopback only (127.0.0.0/8 and ::1) and connections made there
# arrive at the host's loopback on the mapped port, same family; the host
# server sees a loopback peer.  Also a remapped -t port from the host's
# loopback, which reaches N's server from N's own address.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
start_pasta -T 5601:7601 -T 5602-5603:7702-7703 -t 5604:7604 --stats

ss -Hltn -N "$N" > "$WORK/ns_listen" 2>/dev/null || in_ns ss -Hltn > "$WORK/ns_listen"
# IPv4: the wildcard bound to lo, for all of 127.0.0.0/8
for a in 0.0.0.0%lo:5601 '\[::1\]:5601' 0.0.0.0%lo:5602 '\[::1\]:5603'; do
	grep -q " $a " "$WORK/ns_listen" || { cat "$WORK/ns_listen"; fail "no listener on $a in N"; }
done
if grep -q -e ' 0.0.0.0:560' -e '\[::\]:560' -e '\*:560' "$WORK/ns_listen"; then
	cat "$WORK/ns_listen"
	fail "-T ports bound beyond loopback"
fi

# Each host server answers with the address of its peer (socat prints
# IPv6 addresses in full: 127.0.0.1 is ...:ffff:7f00:0001, ::1 is ...:0001)
for p in 7601 7702 7703; do
	bg in_host socat TCP6-LISTEN:$p,ipv6only=0,reuseaddr,fork 'SYSTEM:echo peer $SOCAT_PEERADDR port '$p
	wait_for in_host sh -c "ss -Hltn | grep -q ':$p '" || fail "server on $p"
done

# ask NS ADDRESS PORT - what the server behind ADDRESS:PORT says
ask() { $1 timeout 10 socat -T 5 - TCP:$2:$3 < /dev/null; }

for lo in 127.0.0.1 '[::1]'; do
	r=$(ask in_ns $lo 5601)
	case "$r" in
	"peer [0000:0000:0000:0000:0000:ffff:7f00:0001] port 7601")
		[ $lo = 127.0.0.1 ] || fail "$lo:5601 reached the host as IPv4: $r" ;;
	"peer [0000:0000:0000:0000:0000:0000:0000:0001] port 7601")
		[ $lo = '[::1]' ] || fail "$lo:5601 reached the host as IPv6: $r" ;;
	*) fail "$lo:5601 -> '$r', expected the host's 7601 from loopback" ;;
	esac
	log "$lo:5601 in N -> $r"
done
r=$(ask in_ns 127.0.0.1 5602)
[ "${r##* }" = 7702 ] || fail "5602 -> '$r', expected 7702"
r=$(ask in_ns '[::1]' 5603)
[ "${r##* }" = 7703 ] || fail "5603 -> '$r', expected 7703"
log "range 5602-5603 -> 7702-7703"

# The namespace's own network address isn't served by -T (lo carries it
# too, so the connection is reset rather than refused)
r=$(ask in_ns $H4 5601 2>/dev/null)
[ -z "$r" ] || fail "-T port reachable on N's $H4: $r"

# -t 5604:7604 from the host's loopback is spliced to 7604 in N
bg in_ns socat TCP6-LISTEN:7604,ipv6only=0,reuseaddr,fork 'SYSTEM:echo peer $SOCAT_PEERADDR port 7604'
wait_for in_ns sh -c "ss -Hltn | grep -q ':7604 '" || fail "server on 7604"
r=$(ask in_host 127.0.0.1 5604)
case "$r" in
*":ffff:c633:6401] port 7604") ;;
*) fail "-t 5604 -> '$r', expected N's 7604 from N's $H4" ;;
esac
log "-t 5604 on H's loopback -> $r"

pasta_alive
stop_pasta
line=$(grep 'stats: spliced flows' "$WORK/pasta.log")
log "$line"
echo "$line" | grep -q "spliced flows 5 closed 5," || fail "expected 5 spliced connections"
pass "-T listens on the namespace's loopback and remaps ports to the host's"
