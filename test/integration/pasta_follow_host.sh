#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_follow_host.sh - pasta --config-net follows the host's network while
# it runs (passt.1, FOLLOWING THE HOST), and --no-follow-host doesn't:
#  - H's resolv.conf (the file "ip netns exec" mounts on /etc/resolv.conf)
#    is rewritten from "nameserver 127.0.0.1" to "nameserver 127.0.0.2",
#    where a second dnsmasq answers differently (203.0.113.78 instead of
#    203.0.113.77): a query from N to the gateway address (DNS forwarding
#    of a loopback name server, as at start) gets the new answer;
#  - H is re-addressed: 198.51.100.1/24 goes, 203.0.113.1/24 comes, with a
#    default route via a new address of R (203.0.113.2), and likewise
#    2001:db8:1::1/64 -> 2001:db8:3::1/64 via 2001:db8:3::2: N gets the new
#    addresses and default routes, loses the old addresses, and a TCP transfer
#    from N to another new address of R, 203.0.113.5 (1 MiB, sha256
#    compared) works (the gateway address itself means H), and a
#    connection opened before, from the old address, is reset (socat
#    in N exits) instead of hanging;
#  - the same with a resolv.conf replaced by rename (pasta runs with a
#    copy of /etc of its own, in a mount namespace of its own);
#  - a flood of address changes on H, one so large (pasta stopped
#    meanwhile) that notifications are lost, after which a new address on
#    H still reaches N; a garbage, then a 2 MiB, resolv.conf: pasta stays up and DNS works again once the file is
#    sane;
#  - with --no-follow-host, after the same resolv.conf rewrite and a new
#    address on H, N keeps its addresses and DNS its old server (checked
#    after 2 s: a negative can only be checked after some time).
# Every wait polls (wait_for, 10 s at most): no timing is asserted.
# asan: yes
. "$(dirname "$0")/lib.sh"

command -v dig >/dev/null || skip "dig (bind9-dnsutils) not installed"
command -v dnsmasq >/dev/null || skip "dnsmasq not installed"
PORT=10093
RESOLV=/etc/netns/$H/resolv.conf

setup_topology
for a in 127.0.0.1:203.0.113.77 127.0.0.2:203.0.113.78; do
	bg in_host dnsmasq -k --conf-file=/dev/null --no-resolv --no-hosts \
		--bind-interfaces --listen-address=${a%%:*} --port=53 \
		--user=root --pid-file= --host-record=www.test.example,${a#*:}
done
wait_for in_host sh -c "ss -uln | grep -q '127.0.0.2:53 ' &&
			ss -uln | grep -q '127.0.0.1:53 '" || fail "dnsmasq"

# ask GW: the A record of www.test.example through the gateway address
ask() { in_ns dig +short +time=1 +tries=1 @"$1" www.test.example A; }
# answers GW EXPECTED: the forwarder answers EXPECTED
answers() { [ "$(ask "$1")" = "$2" ]; }

# --no-follow-host: today's behaviour
start_pasta --no-follow-host
answers $R4 203.0.113.77 || fail "--no-follow-host: DNS at start"
echo "nameserver 127.0.0.2" > "$RESOLV"
ip -n "$H" addr add 198.51.100.9/24 dev h0
sleep 2
answers $R4 203.0.113.77 || fail "--no-follow-host: DNS changed: '$(ask $R4)'"
ip -n "$N" -o addr show | grep -q 198.51.100.9 &&
	fail "--no-follow-host: the new address was copied"
grep -q "host changed" "$WORK/pasta.log" && fail "--no-follow-host: logged a change"
log "--no-follow-host: DNS and addresses stay as at start"
pasta_alive
stop_pasta
ip -n "$H" addr del 198.51.100.9/24 dev h0
echo "nameserver 127.0.0.1" > "$RESOLV"
ip netns del "$N"; ip netns add "$N" || fail "ip netns add $N"

# A resolv.conf replaced by rename, as tools do: pasta in a mount namespace
# of its own whose /etc is a copy with a plain resolv.conf (no bind mount
# pins the old file); it finds the new file again after isolation
mkdir -p "$WORK/etc"
cp /etc/passwd /etc/group "$WORK/etc/"
cp /etc/ld.so.cache "$WORK/etc/" 2>/dev/null
echo "nameserver 127.0.0.1" > "$WORK/etc/resolv.conf"
rm -f "$WORK/etc.pid"
ip netns exec "$H" unshare -m sh -c "mount --bind '$WORK/etc' /etc &&
	exec '$PASTA_BIN' -f -d --config-net --pid '$WORK/etc.pid' \
	--netns /run/netns/$N" > "$WORK/pasta.log" 2>&1 &
PASTA_PID=$!
track $PASTA_PID
wait_for test -s "$WORK/etc.pid" || { cat "$WORK/pasta.log"; fail "pasta (own /etc)"; }
wait_for answers $R4 203.0.113.77 || fail "own /etc: DNS at start: '$(ask $R4)'"
echo "nameserver 127.0.0.2" > "$WORK/etc/resolv.conf.new"
mv "$WORK/etc/resolv.conf.new" "$WORK/etc/resolv.conf"
wait_for answers $R4 203.0.113.78 ||
	{ cat "$WORK/pasta.log"; fail "replaced resolv.conf not followed: '$(ask $R4)'"; }
pasta_alive
log "a resolv.conf replaced by rename is followed"
stop_pasta
ip netns del "$N"; ip netns add "$N" || fail "ip netns add $N"

# Following (the default)
start_pasta
answers $R4 203.0.113.77 || fail "DNS at start: '$(ask $R4)'"
echo "nameserver 127.0.0.2" > "$RESOLV"
WAIT_S=10 wait_for answers $R4 203.0.113.78 ||
	{ cat "$WORK/pasta.log"; fail "DNS didn't follow resolv.conf: '$(ask $R4)'"; }
grep -q "host changed: IPv4 name server DNS forwarding goes to 127.0.0.1 -> 127.0.0.2" \
	"$WORK/pasta.log" || fail "no info line for the name server change"
log "DNS forwarding follows resolv.conf"

# A connection open from N to R over H's old address: reset once it's gone
ip -n "$R" addr add 198.51.100.3/24 dev r0	# not the gateway: a peer
bg in_remote socat TCP4-LISTEN:$((PORT + 1)),bind=198.51.100.3,reuseaddr SYSTEM:"sleep 60"
wait_for sh -c "ip netns exec $R ss -Htln | grep -q ':$((PORT + 1)) '" ||
	fail "listener on R"
bg in_ns socat SYSTEM:"sleep 60" TCP4:198.51.100.3:$((PORT + 1))
OLD_PID=$BG_PID
wait_for sh -c "ip netns exec $R ss -Htn state established | grep -q ':$((PORT + 1)) '" ||
	fail "connection from N to R"

# What a container adds itself on the tap (an address, a route) is its
# own: following the host never removes it
ntap=$(ip -n "$N" -o link show | awk -F': ' '$2 != "lo" { print $2; exit }')
ip -n "$N" addr add 192.0.2.77/32 dev "$ntap"
ip -n "$N" route add 192.0.2.128/25 dev "$ntap"

# Re-address H
ip -n "$R" addr add 203.0.113.2/24 dev r0
ip -n "$R" addr add 203.0.113.5/24 dev r0	# the gateway means H: a peer
ip -n "$H" addr del $H4/24 dev h0
ip -n "$H" addr add 203.0.113.1/24 dev h0
ip -n "$H" route replace default via 203.0.113.2
ip -n "$R" addr add 2001:db8:3::2/64 dev r0 nodad
ip -n "$H" addr del $H6/64 dev h0
ip -n "$H" addr add 2001:db8:3::1/64 dev h0 nodad
ip -n "$H" -6 route replace default via 2001:db8:3::2
# shellcheck disable=SC2317 # called through wait_for
mirrored() {
	ip -n "$N" -o addr show | grep -q "inet 203.0.113.1/24" &&
	! ip -n "$N" -o addr show | grep -q "inet $H4/" &&
	ip -n "$N" route show default | grep -q "via 203.0.113.2" &&
	ip -n "$N" -o addr show | grep -q "inet6 2001:db8:3::1/64" &&
	! ip -n "$N" -o addr show | grep -q "inet6 $H6/" &&
	ip -n "$N" -6 route show default | grep -q "via 2001:db8:3::2"
}
wait_for mirrored || { cat "$WORK/pasta.log"; ip -n "$N" addr; ip -n "$N" route;
		       fail "N doesn't mirror H's new address and route"; }
ip -n "$N" -o addr show | grep -q "inet 192.0.2.77/32" ||
	fail "the namespace's own address 192.0.2.77 was removed"
ip -n "$N" route show | grep -q "^192.0.2.128/25 dev" ||
	fail "the namespace's own route 192.0.2.128/25 was removed"
wait_for sh -c "! kill -0 $OLD_PID 2>/dev/null || grep -q '^State:.*Z' /proc/$OLD_PID/status" ||
	fail "the connection from H's old address wasn't reset"
log "the connection from H's old address was reset"
log "N mirrors H: $(ip -n "$N" -o addr show scope global | awk '{print $4}' | tr '\n' ' '), $(ip -n "$N" route show default), $(ip -n "$N" -6 route show default)"
for w in "IPv4 address $H4/24 -> 203.0.113.1/24" \
	 "IPv4 gateway $R4 -> 203.0.113.2"; do
	grep -q "host changed: $w" "$WORK/pasta.log" || fail "no info line '$w'"
done

make_file "$WORK/out" 1
bg in_remote socat -u TCP4-LISTEN:$PORT,bind=203.0.113.5,reuseaddr \
	OPEN:"$WORK/in",creat,trunc
wait_for sh -c "ip netns exec $R ss -Htln | grep -q ':$PORT '" || fail "sink on R"
in_ns timeout 20 socat -u OPEN:"$WORK/out" TCP4:203.0.113.5:$PORT ||
	fail "TCP from N to R after the change"
wait_for sh -c "[ \"\$(sha256sum < '$WORK/in' | cut -d' ' -f1)\" = '$(sum "$WORK/out")' ]" ||
	fail "sha256 of what R got differs"
log "TCP from N to R after re-addressing: 1 MiB, sha256 matches"

# Bad input: a flood of netlink messages, garbage and huge resolv.conf
ip -n "$H" link add dflood type veth peer name dflood1 || fail "veth for the flood"
flood() { # flood N: N addresses added and removed on dflood, one batch
	i=0
	while [ $i -lt "$1" ]; do
		echo "addr add 192.0.2.$((i % 250 + 1))/32 dev dflood"
		echo "addr del 192.0.2.$((i % 250 + 1))/32 dev dflood"
		i=$((i + 1))
	done | ip -n "$H" -batch - || fail "flood"
}
flood 200
# While pasta is stopped, more than its socket buffer can hold: the kernel
# drops notifications (ENOBUFS), pasta dumps everything again
kill -STOP $PASTA_PID
flood 3000
kill -CONT $PASTA_PID
wait_for grep -q "netlink notifications lost" "$WORK/pasta.log" ||
	fail "no overrun seen after 6000 notifications"
ip -n "$H" addr add 203.0.113.9/24 dev h0
wait_for sh -c "ip -n $N -o addr show | grep -q 'inet 203.0.113.9/24'" ||
	fail "an address added after the overrun wasn't copied"
log "after a notification overrun, N still follows H"
head -c 65536 /dev/urandom > "$RESOLV"
sleep 1
{ i=0; while [ $i -lt 65536 ]; do echo "nameserver 300.1.2.$i search a b"; i=$((i + 1)); done; } > "$RESOLV"
sleep 1
pasta_alive
# No valid name server in either: 127.0.0.1 (resolv.conf(5)), then a sane
# file names the other one, which only a file read after both can say
echo "nameserver 127.0.0.2" > "$RESOLV"
WAIT_S=10 wait_for answers 203.0.113.2 203.0.113.78 ||
	fail "DNS after garbage resolv.conf: '$(ask 203.0.113.2)'"
pasta_alive
helper=$(pgrep -P $PASTA_PID -x pasta-resolv) && daemon_running $helper ||
	fail "the resolv.conf helper (pasta-resolv) is gone"
log "flood and garbage: pasta and its resolv.conf helper alive, DNS back with a sane resolv.conf"
stop_pasta
pass "pasta follows the host's addresses, routes and name servers"
