#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_no_follow_host.sh - --no-follow-host is in --help and passt.1 (its
# option, and the section FOLLOWING THE HOST with what never changes), and
# with it nothing pasta gave the namespace changes when the host does
# (passt.1, --no-follow-host): H is
# re-addressed (198.51.100.1/24 -> 203.0.113.1/24 via 203.0.113.2,
# 2001:db8:1::1/64 -> 2001:db8:3::1/64 via 2001:db8:3::2), a "VPN"
# veth with a route appears, and resolv.conf is rewritten.  After 2 s (a
# negative can only be checked after some time):
#  - N's addresses and routes are what they were (ip addr, ip route,
#    ip -6 route, compared as text);
#  - pasta logged no "host changed" line and has no rtnetlink socket
#    subscribed to notifications (/proc/PID/net/netlink): it watches
#    nothing;
#  - a TCP connection from N open across the change wasn't reset by
#    pasta (socat in N still runs);
#  - outbound traffic still works, as today: 1 MiB from N to R's new
#    address 203.0.113.5 (sha256) leaves from the host's new address,
#    and so does inbound -t to H's new address (sha256).
# asan: yes
. "$(dirname "$0")/lib.sh"

PEER="python3 $(dirname "$0")/peertool.py"
TPORT=10160	# -t: N's data sink
LPORT=10161	# long connection on R
PPORT=10162	# serve-peer on R
DPORT=10163	# data sink on R

# The option is documented: --help, passt.1's option list and its section
# FOLLOWING THE HOST, which says what follows and what never changes
MAN=$(dirname "$0")/../../passt.1
"$PASST_BIN" --help 2>&1 | grep -q -- '--no-follow-host' ||
	fail "--help doesn't list --no-follow-host"
grep -q '^\.B \\-\\-no\\-follow\\-host$' "$MAN" ||
	fail "passt.1 doesn't list --no-follow-host"
sed -n '/^\.SH FOLLOWING THE HOST$/,/^\.SH /p' "$MAN" > "$WORK/section"
grep -q 'What never changes' "$WORK/section" &&
	grep -q 'no\\-follow\\-host' "$WORK/section" ||
	fail "passt.1 has no section FOLLOWING THE HOST saying what never changes"

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
start_pasta --no-follow-host -t $TPORT

# rtnl_watches PID - inodes of PID's rtnetlink sockets that joined multicast
# groups (/proc/PID/net/netlink: Eth 0 is NETLINK_ROUTE, Groups non-zero)
rtnl_watches() {
	_in=$(ls -l /proc/$1/fd | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p')
	awk '$2 == "0" && $4 != "00000000" { print $10 }' /proc/$1/net/netlink |
		while read -r _i; do echo "$_in" | grep -qx "$_i" && echo "$_i"; done
}

# snap - N's addresses and routes as text (lifetimes left out: they count down)
snap() {
	ip -n "$N" -o addr show | sed 's/valid_lft.*//'
	ip -n "$N" route show
	ip -n "$N" -6 route show | sed 's/expires [0-9]*sec//'
}
snap > "$WORK/before"
[ -s "$WORK/before" ] || fail "no snapshot of N"

bg in_remote socat TCP-LISTEN:$LPORT,reuseaddr SYSTEM:"sleep 60"
wait_for sh -c "ip netns exec $R ss -Htln | grep -q ':$LPORT '" || fail "listener on R"
bg in_ns socat SYSTEM:"sleep 60" TCP:198.51.100.3:$LPORT
CONN=$BG_PID
wait_for sh -c "ip netns exec $R ss -Htn state established '( sport = :$LPORT )' | grep -q ':$LPORT'" ||
	fail "connection from N to R"

ip -n "$R" addr add 203.0.113.2/24 dev r0
ip -n "$R" addr add 203.0.113.5/24 dev r0
ip -n "$R" addr add 2001:db8:3::2/64 dev r0 nodad
ip -n "$H" addr del $H4/24 dev h0
ip -n "$H" addr add 203.0.113.1/24 dev h0
ip -n "$H" route replace default via 203.0.113.2
ip -n "$H" addr del $H6/64 dev h0
ip -n "$H" addr add 2001:db8:3::1/64 dev h0 nodad
ip -n "$H" -6 route replace default via 2001:db8:3::2
ip link add v0 netns "$H" type veth peer name v1 netns "$R" || fail "veth v0"
ip -n "$H" link set v0 up
ip -n "$H" addr add 192.0.2.1/24 dev v0
ip -n "$H" route add 192.0.2.128/25 via 192.0.2.2 dev v0 onlink
echo "nameserver 127.0.0.2" > "/etc/netns/$H/resolv.conf"
sleep 2

snap > "$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "N's addresses or routes changed"
grep -q "host changed" "$WORK/pasta.log" &&
	fail "logged a change: $(grep 'host changed' "$WORK/pasta.log")"
[ -z "$(rtnl_watches $PASTA_PID)" ] ||
	fail "pasta has an rtnetlink socket subscribed to notifications"
daemon_running $CONN || fail "the connection from N was reset"
log "N unchanged, no change logged, no rtnetlink subscription, the connection from N open"
kill $CONN 2>/dev/null

make_file "$WORK/out" 1
bg in_remote socat -u TCP-LISTEN:$DPORT,bind=203.0.113.5,reuseaddr \
	OPEN:"$WORK/in",creat,trunc
bg in_remote $PEER serve-peer $PPORT --bind 203.0.113.5
wait_for sh -c "ip netns exec $R ss -Htln | grep -q ':$DPORT ' &&
		ip netns exec $R ss -Htln | grep -q ':$PPORT '" || fail "servers on R"
p=$(in_ns $PEER peer 203.0.113.5 $PPORT)
[ "$p" = 203.0.113.1 ] || fail "R sees N's connection from '$p', not 203.0.113.1"
in_ns timeout 20 socat -u OPEN:"$WORK/out" TCP:203.0.113.5:$DPORT ||
	fail "TCP from N to R after the change"
wait_for sh -c "[ \"\$(sha256sum < '$WORK/in' | cut -d' ' -f1)\" = '$(sum "$WORK/out")' ]" ||
	fail "sha256 of what R got from N differs"
log "outbound from N: R sees 203.0.113.1, 1 MiB, sha256 matches"

rm -f "$WORK/in"
bg in_ns socat -u TCP-LISTEN:$TPORT,reuseaddr OPEN:"$WORK/in",creat,trunc
wait_for sh -c "ip netns exec $N ss -Htln | grep -q ':$TPORT '" || fail "sink in N"
in_remote timeout 20 socat -u OPEN:"$WORK/out" TCP:203.0.113.1:$TPORT,bind=203.0.113.5 ||
	fail "TCP from R to H's new address"
wait_for sh -c "[ \"\$(sha256sum < '$WORK/in' | cut -d' ' -f1)\" = '$(sum "$WORK/out")' ]" ||
	fail "sha256 of what N got from R differs"
log "inbound -t to H's new address: 1 MiB, sha256 matches"

pasta_alive
stop_pasta
pass "--no-follow-host: the namespace keeps its start-up picture, traffic works"
