#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_follow_inbound.sh - inbound forwarding (-t, -u) keeps working when
# H is re-addressed while pasta runs (passt.1, FOLLOWING THE HOST):
# 198.51.100.1/24 -> 203.0.113.1/24 via 203.0.113.2 and 2001:db8:1::1/64
# -> 2001:db8:3::1/64 via 2001:db8:3::2.
#  - before and after: 1 MiB from R to H's address (IPv4 and IPv6) on
#    the -t port reaches N's sink (sha256), and a datagram of 1000 random
#    bytes from R on the -u port reaches N's echo server from R's address
#    and comes back to R from the address R sent to (sha256 both ways);
#  - an inbound connection to H's old address, open across the change, is
#    reset towards N (its socket in N goes), since H can't answer from
#    that address any more.
# asan: yes
. "$(dirname "$0")/lib.sh"

PEER="python3 $(dirname "$0")/peertool.py"
TPORT=10150	# -t: N's data sink
LPORT=10151	# -t: N's long connections ("sleep 60")
UPORT=10152	# -u: N's echo server

setup_topology
start_pasta -t $TPORT,$LPORT -u $UPORT
ip -n "$R" addr add 198.51.100.3/24 dev r0
ip -n "$R" addr add 2001:db8:1::3/64 dev r0 nodad

bg in_ns $PEER udp-echo $UPORT --bind :: > "$WORK/echo.log"
bg in_ns socat TCP-LISTEN:$LPORT,reuseaddr,fork SYSTEM:"sleep 60"
wait_for sh -c "ip netns exec $N ss -Huln | grep -q ':$UPORT ' &&
		ip netns exec $N ss -Htln | grep -q ':$LPORT '" ||
	fail "servers in N"
make_file "$WORK/out" 1
head -c 1000 /dev/urandom > "$WORK/dgram"
DSUM=$(sum "$WORK/dgram")

# inbound TO FROM - 1 MiB from R (FROM) to TO on the -t port, sha256 in
# N; a datagram from FROM to TO on the -u port: N sees FROM, R gets it
# back from TO
inbound() {
	rm -f "$WORK/in"
	bg in_ns socat -u TCP6-LISTEN:$TPORT,ipv6only=0,reuseaddr OPEN:"$WORK/in",creat,trunc
	wait_for sh -c "ip netns exec $N ss -Htln | grep -q ':$TPORT '" ||
		fail "sink in N"
	case $1 in *:*) _t="[$1]"; _f="[$2]" ;; *) _t=$1; _f=$2 ;; esac
	in_remote timeout 20 socat -u OPEN:"$WORK/out" TCP:$_t:$TPORT,bind=$_f ||
		fail "TCP from R ($2) to $1:$TPORT"
	wait_for sh -c "[ \"\$(sha256sum < '$WORK/in' | cut -d' ' -f1)\" = '$(sum "$WORK/out")' ]" ||
		fail "sha256 of what N got from R ($2 -> $1) differs"
	_a=$(in_remote $PEER udp-ask "$1" $UPORT "$WORK/dgram" --bind "$2")
	[ "$_a" = "$1 1000 $DSUM" ] ||
		fail "UDP $2 -> $1:$UPORT: answer '$_a', not from $1 with our 1000 bytes"
	wait_for grep -q "^$2 1000 $DSUM\$" "$WORK/echo.log" ||
		{ cat "$WORK/echo.log"; fail "N's echo server didn't see $2"; }
	log "inbound to $1 from $2: TCP 1 MiB and a UDP echo, sha256 match"
}
inbound $H4 198.51.100.3
inbound $H6 2001:db8:1::3

# A connection from R to H's old address, open across the change
bg in_remote socat SYSTEM:"sleep 60" TCP:$H4:$LPORT
wait_for sh -c "ip netns exec $N ss -Htn state established '( sport = :$LPORT )' | grep -q ':$LPORT'" ||
	fail "inbound connection to $H4:$LPORT"

ip -n "$R" addr add 203.0.113.2/24 dev r0
ip -n "$R" addr add 203.0.113.5/24 dev r0
ip -n "$R" addr add 2001:db8:3::2/64 dev r0 nodad
ip -n "$R" addr add 2001:db8:3::5/64 dev r0 nodad
ip -n "$H" addr del $H4/24 dev h0
ip -n "$H" addr add 203.0.113.1/24 dev h0
ip -n "$H" route replace default via 203.0.113.2
ip -n "$H" addr del $H6/64 dev h0
ip -n "$H" addr add 2001:db8:3::1/64 dev h0 nodad
ip -n "$H" -6 route replace default via 2001:db8:3::2
wait_for sh -c "ip -n $N -o addr show | grep -q 'inet 203.0.113.1/24' &&
		ip -n $N -o addr show | grep -q 'inet6 2001:db8:3::1/64'" ||
	{ cat "$WORK/pasta.log"; fail "N wasn't re-addressed"; }
wait_for sh -c "! ip netns exec $N ss -Htn state established '( sport = :$LPORT )' | grep -q ':$LPORT'" ||
	fail "the inbound connection to H's old address is still open in N"
log "the inbound connection to H's old address was reset towards N"

inbound 203.0.113.1 203.0.113.5
inbound 2001:db8:3::1 2001:db8:3::5

pasta_alive
stop_pasta
pass "-t and -u forwarding work after H is re-addressed"
