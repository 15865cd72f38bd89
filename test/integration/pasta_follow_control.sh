#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_follow_control.sh - the same checks after each kind of host change,
# once with pasta following the host (passt.1, FOLLOWING THE HOST) and once,
# the control run, with pasta restarted after each change instead: that the
# checks pass with a freshly started pasta shows they check the right thing.
# The changes, one after the other, on H while pasta --config-net runs:
#   dns      H's resolv.conf: "nameserver 127.0.0.1" -> 127.0.0.2, where a
#            second dnsmasq answers www.test.example with 203.0.113.78
#            instead of 203.0.113.77
#   gateway  only the default gateways: 198.51.100.2 -> 198.51.100.4,
#            2001:db8:1::2 -> 2001:db8:1::4 (addresses of R)
#   vpn-up   a second uplink, veth v0 (203.0.113.1/24, 2001:db8:3::1/64) to
#            R's v1, with routes to 192.0.2.0/24 and 2001:db8:4::/64, more
#            specific than the default routes
#   vpn-down the VPN's link deleted
#   readdress 198.51.100.1/24 -> 203.0.113.1/24 with a default route via
#            203.0.113.2, 2001:db8:1::1/64 -> 2001:db8:3::1/64 via 2001:db8:3::2
# After each (and at start), until all pass, in this order:
#   mirror   N's global addresses are those of H's default route's
#            interface, N's default gateways those of H (ip addr/route in H:
#            the kernel's picture, not ours)
#   dns      dig from N to H's default gateway (DNS forwarding of a
#            loopback name server) answers what the server named in H's
#            resolv.conf answers
#   udp      1000 random bytes from N to R's 192.0.2.10 and 2001:db8:4::10
#            come back (sha256), and R saw them from the source address the
#            kernel in H picks for that destination (ip route get)
#   tcp      1 MiB from N to R's 192.0.2.10, whose server answers the
#            sha256 of what it got; R's who-is-calling server sees the source
#            address the kernel in H picks, IPv4 and IPv6
#   inbound  1 MiB from R to H's address (IPv4 and IPv6) on the -t port,
#            N's server answers the sha256
# and the times from the change to the checks passing are logged ("ready
# within N ms", see ready()).  FOLLOW_MODES picks the runs (default "follow
# restart"); "nofollow" (pasta --no-follow-host, today's behaviour without
# following, for the figures in test/README.md) runs every check once, 3 s
# after each change, and logs which failed, failing nothing.
# Figures (test/README.md, "Following the host: figures"):
#   FOLLOW_MODES=follow PASST_BIN=$PWD/build/passt sh test/integration/pasta_follow_control.sh
# asan: no (each part runs under ASan in pasta_follow_*.sh)

if [ -z "${FOLLOW_MODE:-}" ]; then
	for m in ${FOLLOW_MODES:-follow restart}; do
		FOLLOW_MODE=$m sh "$0"
		rc=$?
		[ $rc -eq 0 ] || exit $rc
	done
	exit 0
fi

. "$(dirname "$0")/lib.sh"

command -v dig >/dev/null || skip "dig (bind9-dnsutils) not installed"
command -v dnsmasq >/dev/null || skip "dnsmasq not installed"
PEER="python3 $(dirname "$0")/peertool.py"
UPORT=10180	# UDP echo on R
TPORT=10181	# TCP: sha256 of what came, on R
PPORT=10182	# TCP: who is calling, on R
IPORT=10183	# -t: sha256 of what came, in N
RESOLV=/etc/netns/$H/resolv.conf
MODE=$FOLLOW_MODE
case $MODE in
follow) OPTS= ;;
restart) OPTS= ;;
nofollow) OPTS=--no-follow-host ;;
*) fail "FOLLOW_MODE: follow, restart or nofollow, not '$MODE'" ;;
esac

setup_topology
ip -n "$R" addr add 198.51.100.4/24 dev r0
ip -n "$R" addr add 2001:db8:1::4/64 dev r0 nodad
ip -n "$R" addr add 192.0.2.10/32 dev lo
ip -n "$R" addr add 2001:db8:4::10/128 dev lo
for a in 127.0.0.1:203.0.113.77 127.0.0.2:203.0.113.78; do
	bg in_host dnsmasq -k --conf-file=/dev/null --no-resolv --no-hosts \
		--bind-interfaces --listen-address=${a%%:*} --port=53 \
		--user=root --pid-file= --host-record=www.test.example,${a#*:}
done
bg in_remote socat TCP-LISTEN:$TPORT,bind=192.0.2.10,fork,reuseaddr SYSTEM:sha256sum
bg in_remote $PEER serve-peer $PPORT
wait_for in_host sh -c "ss -uln | grep -q '127.0.0.2:53 ' &&
			ss -uln | grep -q '127.0.0.1:53 '" || fail "dnsmasq"
wait_for sh -c "ip netns exec $R ss -Htln | grep -q ':$TPORT ' &&
		ip netns exec $R ss -Htln | grep -q ':$PPORT '" || fail "servers on R"
# udp_echo - (re)start R's UDP echo servers (they stop after 60 s idle)
udp_echo() {
	[ -n "${UECHO:-}" ] && kill $UECHO 2>/dev/null
	bg in_remote $PEER udp-echo $UPORT --bind 192.0.2.10 > "$WORK/echo4"
	UECHO=$BG_PID
	bg in_remote $PEER udp-echo $UPORT --bind 2001:db8:4::10 > "$WORK/echo6"
	UECHO="$UECHO $BG_PID"
	wait_for sh -c "ip netns exec $R ss -Huln | grep -q '192.0.2.10:$UPORT ' &&
			ip netns exec $R ss -Huln | grep -q '2001:db8:4::10\]:$UPORT '" ||
		fail "UDP echo on R"
}
make_file "$WORK/out" 1
SUM=$(sum "$WORK/out")
head -c 1000 /dev/urandom > "$WORK/dgram"
DSUM=$(sum "$WORK/dgram")

# pasta_up - start pasta attached to a new N, and N's -t server
pasta_up() {
	start_pasta $OPTS -t $IPORT
	bg in_ns socat TCP6-LISTEN:$IPORT,ipv6only=0,fork,reuseaddr SYSTEM:sha256sum
	NSRV=$BG_PID
	wait_for sh -c "ip netns exec $N ss -Htln | grep -q ':$IPORT '" ||
		fail "server in N"
}

# pasta_down - stop pasta, delete N (and its server) and make it again
pasta_down() {
	stop_pasta
	kill $NSRV 2>/dev/null
	wait $NSRV 2>/dev/null
	ip netns del "$N" || fail "ip netns del $N"
	NAMESPACES=$(echo "$NAMESPACES" | sed "s/ $N//")
	make_target_ns
}

# field AF WORD - in H's default route of family AF (4, 6), what follows WORD
field() {
	ip -n "$H" -"$1" route show default | head -n 1 |
		awk -v w="$2" '{ for (i = 1; i < NF; i++) if ($i == w) print $(i + 1) }'
}
# src AF DST - the source address H's kernel picks towards DST
src() {
	ip -n "$H" -"$1" route get "$2" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "src") print $(i + 1) }'
}
# addrs NS AF [DEV] - NS's global addresses of family AF (on DEV), sorted
addrs() {
	_ns=$1; _af=$2; shift 2
	ip -n "$_ns" -o -"$_af" addr show ${1:+dev "$1"} scope global |
		awk '{ print $4 }' | sort | tr '\n' ' '
}
# ngw AF - N's default gateway of family AF
ngw() {
	ip -n "$N" -"$1" route show default | head -n 1 | awk '{ print $3 }'
}
# hash_of CMD... - the sha256 a peer answered through CMD (socat) for WORK/out
hash_of() { "$@" < "$WORK/out" 2>/dev/null | cut -d' ' -f1; }

# check NAME - one check of the list above; 0: it passed
check() {
	case $1 in
	mirror)
		for af in 4 6; do
			[ "$(addrs "$N" $af)" = "$(addrs "$H" $af "$(field $af dev)")" ] &&
				[ "$(ngw $af)" = "$(field $af via)" ] || return 1
		done ;;
	dns)
		[ "$(in_ns dig +short +time=1 +tries=1 @"$(field 4 via)" \
			www.test.example A 2>/dev/null)" = "$WANT_DNS" ] ;;
	udp)
		for d in 192.0.2.10:4 2001:db8:4::10:6; do
			_a=$(in_ns $PEER udp-ask "${d%:*}" $UPORT "$WORK/dgram")
			[ "$_a" = "${d%:*} 1000 $DSUM" ] || return 1
			tail -n 1 "$WORK/echo${d##*:}" |
				grep -qx "$(src "${d##*:}" "${d%:*}") 1000 $DSUM" || return 1
		done ;;
	tcp)
		[ "$(hash_of in_ns timeout 10 socat -t 5 - \
			TCP4:192.0.2.10:$TPORT,connect-timeout=2)" = "$SUM" ] || return 1
		for d in 192.0.2.10:4 2001:db8:4::10:6; do
			[ "$(in_ns timeout 5 $PEER peer "${d%:*}" $PPORT)" = \
			  "$(src "${d##*:}" "${d%:*}")" ] || return 1
		done ;;
	inbound)
		for af in 4 6; do
			_h=$(addrs "$H" $af "$(field $af dev)"); _h=${_h%%/*}
			[ $af = 6 ] && _h="[$_h]"
			[ "$(hash_of in_remote timeout 10 socat -t 5 - \
				TCP$af:"$_h":$IPORT,connect-timeout=2)" = "$SUM" ] ||
				return 1
		done ;;
	esac
}
CHECKS="mirror dns udp tcp inbound"

# ready T0 WHAT - poll the fast checks (mirror, dns: some 50 ms a round)
# until they pass, then all of them, until a round passes, 10 s after T0 at
# most; log the times since T0 (ms): when the fast checks passed, when the
# passing round ended (an upper bound: the guest worked again by then),
# and when a check last failed (a lower bound)
ready() {
	_dl=$(($1 + 10000))
	_n=0; _first=; _f=$1; _fast=
	for _set in "mirror dns" "$CHECKS"; do
		while :; do
			_ok=1
			for c in $_set; do
				check $c && continue
				_ok=0; _failed=$c; _n=$((_n + 1))
				_first=${_first:-$c}; _f=$(date +%s%3N)
				break
			done
			_t=$(date +%s%3N)
			[ $_ok = 1 ] && break
			[ "$_t" -lt $_dl ] || { cat "$WORK/pasta.log"; ip -n "$N" addr
				ip -n "$N" route; ip -n "$N" -6 route
				fail "$MODE, $2: check '$_failed' fails 10 s after the change"; }
			sleep 0.05
		done
		_fast=${_fast:-$((_t - $1))}
	done
	log "$MODE, $2: ready within $((_t - $1)) ms, mirror and DNS at $_fast ms, a check last failed at $((_f - $1)) ms ($_n failures${_first:+, the first at $_first})"
}

# outcome T0 WHAT - every check once, 3 s after T0; log which failed
outcome() {
	sleep 3
	_r=
	for c in $CHECKS; do
		if check $c; then _r="$_r $c=ok"; else _r="$_r $c=FAIL"; fi
	done
	log "$MODE, $2:$_r"
}

# changed WHAT - after a change (made at T0): restart pasta in the control
# run, then wait for (or, without following, report) the checks
changed() {
	[ $MODE = restart ] && { pasta_down; pasta_up; }
	if [ $MODE = nofollow ]; then outcome "$T0" "$1"; else ready "$T0" "$1"; fi
	pasta_alive
}

WANT_DNS=203.0.113.77
udp_echo
pasta_up
T0=$(date +%s%3N); changed start

echo "nameserver 127.0.0.2" > "$RESOLV"
WANT_DNS=203.0.113.78
T0=$(date +%s%3N); changed dns

ip -n "$H" route replace default via 198.51.100.4
ip -n "$H" -6 route replace default via 2001:db8:1::4
T0=$(date +%s%3N); changed gateway

ip link add v0 netns "$H" type veth peer name v1 netns "$R" || fail "veth v0"
ip -n "$R" addr add 203.0.113.2/24 dev v1
ip -n "$R" addr add 2001:db8:3::2/64 dev v1 nodad
ip -n "$R" link set v1 up
ip -n "$H" -batch - <<EOF || fail "VPN up"
addr add 203.0.113.1/24 dev v0
addr add 2001:db8:3::1/64 dev v0 nodad
link set v0 up
EOF
wait_for sh -c "ip -n $H -6 route show table local | grep -q 'ff00::/8 dev v0'" ||
	fail "IPv6 not up on v0"
ip -n "$H" route add 192.0.2.0/24 via 203.0.113.2 dev v0 || fail "VPN route"
ip -n "$H" -6 route add 2001:db8:4::/64 via 2001:db8:3::2 dev v0 ||
	fail "VPN IPv6 route"
T0=$(date +%s%3N); changed vpn-up

ip -n "$H" link del v0 || fail "VPN link del"
T0=$(date +%s%3N); changed vpn-down

ip -n "$R" addr add 203.0.113.2/24 dev r0
ip -n "$R" addr add 2001:db8:3::2/64 dev r0 nodad
readdress_host $H4 203.0.113.1 203.0.113.2 $H6 2001:db8:3::1 2001:db8:3::2
T0=$(date +%s%3N); changed readdress

stop_pasta
[ $MODE = nofollow ] && pass "nofollow: outcomes logged above"
pass "$MODE: after each change the checks pass ($CHECKS)"
