#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_follow_noroute.sh - the host has no route out for a while, then
# gets it back, while pasta --config-net follows it (passt.1, FOLLOWING THE
# HOST: "A family for which the host has no usable address for a while (no
# route at all, say) ... keeps its previous values"), twice:
#  - H's default routes are deleted (its address stays: no route but the
#    link's own prefix), then added again;
#  - H's h0 goes down (the kernel removes its routes, and its IPv6
#    addresses, ip-sysctl.rst keep_addr_on_down), then comes back up with
#    its IPv6 address and default routes added again.
# Meanwhile: N keeps its addresses and routes (ip addr/route as text, the
# same as before), pasta stays up, and a TCP connection from N to R's
# 192.0.2.10 and 2001:db8:4::10 (beyond the gateway) fails within 5 s
# with an error (not "connected", not a hang).  Afterwards, within 10 s:
# 1 MiB from N to R, IPv4 and IPv6, whose server answers the sha256, and
# R sees H's addresses.  First, a flood of changes in R and in N (other
# namespaces than the one pasta watches) derives nothing and changes nothing.
# asan: yes
. "$(dirname "$0")/lib.sh"

PEER="python3 $(dirname "$0")/peertool.py"
TPORT=10190	# TCP: sha256 of what came, on R
PPORT=10191	# TCP: who is calling, on R

setup_topology
ip -n "$R" addr add 192.0.2.10/32 dev lo
ip -n "$R" addr add 2001:db8:4::10/128 dev lo
bg in_remote socat TCP6-LISTEN:$TPORT,ipv6only=0,fork,reuseaddr SYSTEM:sha256sum
bg in_remote $PEER serve-peer $PPORT
wait_for sh -c "ip netns exec $R ss -Htln | grep -q ':$TPORT ' &&
		ip netns exec $R ss -Htln | grep -q ':$PPORT '" || fail "servers on R"
make_file "$WORK/out" 1
SUM=$(sum "$WORK/out")
start_pasta

# snap - N's addresses and routes as text (lifetimes left out)
snap() {
	ip -n "$N" -o addr show | sed 's/valid_lft.*//'
	ip -n "$N" route show
	ip -n "$N" -6 route show | sed 's/expires [0-9]*sec//'
}
snap > "$WORK/before"
# derived - how many times pasta looked at the host (its debug lines)
derived() {
	grep -c -e 'host: template interface' -e "addresses can't be derived" \
		"$WORK/pasta.log"
}
# works - 1 MiB from N to R, both families, sha256 and the source R sees
works() {
	for d in 192.0.2.10 '[2001:db8:4::10]'; do
		_s=$(in_ns timeout 10 socat -t 5 - TCP:"$d":$TPORT,connect-timeout=2 \
			< "$WORK/out" 2>/dev/null | cut -d' ' -f1)
		[ "$_s" = "$SUM" ] || return 1
	done
	[ "$(in_ns timeout 5 $PEER peer 192.0.2.10 $PPORT)" = $H4 ] &&
	[ "$(in_ns timeout 5 $PEER peer 2001:db8:4::10 $PPORT)" = $H6 ]
}
works || fail "traffic from N to R at start"

# Messages of other namespaces: a flood of address changes in R (on r0,
# h0's own veth peer) and in N (on pasta's tap) is nothing to pasta, which
# watches H (rtnetlink(7): notifications stay in their namespace; a veth
# only names its peer's namespace by id): no derivation, no change line,
# N as before
ntap=$(ip -n "$N" -o link show | awk -F': ' '$2 != "lo" { print $2; exit }')
# H's own late events of the start (DAD of h0's link-local address ends
# 1 to 2 s after the link came up, later on a loaded machine) are
# derivations of their own: count from a second without any once H has
# no tentative address left, waiting at most 10 s for each
WAIT_S=10 wait_for sh -c "! ip -n $H -6 addr show | grep -q tentative" ||
	fail "H's addresses still tentative after 10 s"
n=$(derived)
k=0
while [ $k -lt 10 ]; do
	sleep 1
	m=$(derived)
	[ "$m" = "$n" ] && break
	n=$m
	k=$((k + 1))
done
for ns in "$R r0" "$N $ntap"; do
	i=0
	while [ $i -lt 200 ]; do
		echo "addr add 192.0.2.$((i % 250 + 1))/32 dev ${ns#* }"
		echo "addr del 192.0.2.$((i % 250 + 1))/32 dev ${ns#* }"
		i=$((i + 1))
	done | ip -n "${ns%% *}" -batch - || fail "flood in ${ns%% *}"
done
sleep 1
[ "$(derived)" = "$n" ] || {
	tail -n 40 "$WORK/pasta.log"
	fail "pasta derived again after changes in R and N ($n before, $(derived) after)"
}
grep -q "host changed" "$WORK/pasta.log" &&
	fail "a change in R or N was taken for one of H: $(grep 'host changed' "$WORK/pasta.log")"
snap > "$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "N changed after changes in R and N"
pasta_alive
log "800 address messages in R and N: nothing derived, nothing changed"

# gone WHAT - H has no route out (after WHAT): N unchanged, pasta up,
# connections from N fail quickly
gone() {
	wait_for sh -c "[ \$(grep -c -e 'host: template interface' -e \"addresses can't be derived\" '$WORK/pasta.log') -gt $n ]" ||
		{ cat "$WORK/pasta.log"; fail "$1: pasta didn't look at the host"; }
	sleep 1		# what it does about it, if anything
	pasta_alive
	snap > "$WORK/after"
	diff "$WORK/before" "$WORK/after" || { grep "host" "$WORK/pasta.log"
		fail "$1: N's addresses or routes changed"; }
	for d in 192.0.2.10 2001:db8:4::10; do
		_t=$(date +%s%3N)
		_e=$(in_ns timeout 10 $PEER connect-errno $d $PPORT)
		_t=$(($(date +%s%3N) - _t))
		case $_e in
		connected|timeout|"") fail "$1: connect from N to $d: '$_e'" ;;
		esac
		[ $_t -le 5000 ] || fail "$1: connect from N to $d took $_t ms ($_e)"
		log "$1: connect from N to $d: $_e after $_t ms"
	done
}
# back WHAT - H has its routes again: N the same as at start, traffic works
back() {
	wait_for works || { cat "$WORK/pasta.log"; snap
		fail "$1: no traffic from N to R 10 s after the routes came back"; }
	snap > "$WORK/after"
	diff "$WORK/before" "$WORK/after" || { grep "host" "$WORK/pasta.log"
		fail "$1: N's addresses or routes changed"; }
	: || fail "$1: N isn't as at start"
	pasta_alive
	log "$1: routes back, N as at start, 1 MiB in each family, sha256 matches"
}

n=$(derived)
ip -n "$H" route del default
ip -n "$H" -6 route del default
gone "default routes deleted"
ip -n "$H" route add default via $R4
ip -n "$H" -6 route add default via $R6
back "default routes deleted"

n=$(derived)
ip -n "$H" link set h0 down
gone "h0 down"
ip -n "$H" link set h0 up
ip -n "$H" addr add $H6/64 dev h0 nodad 2>/dev/null
ip -n "$H" route add default via $R4
ip -n "$H" -6 route add default via $R6
back "h0 down"

stop_pasta
pass "without a route for a while, N keeps its configuration, connections fail at once, traffic comes back with the routes"
