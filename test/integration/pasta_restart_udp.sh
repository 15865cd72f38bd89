#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_restart_udp.sh - UDP flows survive a hitless restart (--restart-from)
# with their sockets: the ports the peers see don't change, and a datagram
# sent to a peer after the restart, unasked, still reaches it
#
# pasta A (-u 6301:5301 -u 6302:5302 -c CTL) connects N.  Before the
# restart, three exchanges, each answered:
#   1. N (port 40001) -> the gateway's 7000, a server in H: the tap path
#      out; H's port 40001 is taken, so A's socket for the flow has
#      another port, X, which H's server reports;
#   2. R (203.0.113.2:41001) -> H:6301, a server on N's 5301: the tap path
#      in, the answer leaves through the -u socket, from port 6301;
#   3. H's loopback (127.0.0.1:42001) -> 127.0.0.1:6302, spliced to a
#      server on N's 5302.
# Then pasta B (same options, --restart-from CTL) takes over; A exits 0.
# After it: 1. N sends again: H's server must see port X again (a new
# socket gets another port, H's 40001 being taken); 2. and 3. the servers
# in N send "push" to their peer unasked: it must reach R from H:6301, and
# H's loopback client from 127.0.0.1:6302.  Before this, the flows were
# made again by their next datagram: 1. came from a new port, 2. from
# H's port 5301, 3. was lost.
# asan: yes
. "$(dirname "$0")/lib.sh"

P="python3 -u $(dirname "$0")/udp_restart_peer.py"
CTL="$WORK/ctl"
RB=203.0.113.2
setup_topology
ip -n "$R" addr add $RB/32 dev r0

start_pasta -u 6301:5301 -u 6302:5302 -c "$CTL"
A=$PASTA_PID

# H's 40001 is taken (no SO_REUSEADDR): the flow's socket can't keep it
bg in_host python3 -c "import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('0.0.0.0', 40001)); time.sleep(30)"
bg in_host $P server 0.0.0.0 7000 "$WORK/never" 30
bg in_ns $P server 0.0.0.0 5301 "$WORK/push" 30
bg in_ns $P server 0.0.0.0 5302 "$WORK/push" 30
wait_for in_host sh -c "ss -Huln | grep -q ':7000 '" || fail "no server in H"
wait_for in_host sh -c "ss -Huln | grep -q ':40001 '" || fail "40001 not taken"
wait_for in_ns sh -c "ss -Huln | grep -q ':5301 ' && ss -Huln | grep -q ':5302 '" ||
	fail "no servers in N"

in_ns $P client 0.0.0.0 40001 $R4 7000 "$WORK/go" again 20 >"$WORK/c1" &
C1=$!
in_remote $P client $RB 41001 $H4 6301 "$WORK/go" wait 20 >"$WORK/c2" &
C2=$!
in_host $P client 127.0.0.1 42001 127.0.0.1 6302 "$WORK/go" wait 20 >"$WORK/c3" &
C3=$!
track $C1 $C2 $C3
for c in c1 c2 c3; do
	wait_for grep -q reply1 "$WORK/$c" ||
		{ tail -20 "$WORK/pasta.log"; fail "$c: no answer before the restart"; }
done
X=$(sed -n 's/^reply1 .* from:\([0-9]*\)$/\1/p' "$WORK/c1")
log "before: $(cat "$WORK/c1"); $(cat "$WORK/c2"); $(cat "$WORK/c3")"
grep -q "^reply1 $H4 6301 echo:one" "$WORK/c2" || fail "2. answer not from $H4:6301"
grep -q "^reply1 127.0.0.1 6302 echo:one" "$WORK/c3" || fail "3. answer not from 127.0.0.1:6302"
[ -n "$X" ] && [ "$X" != 40001 ] || fail "1. the flow kept port 40001 ($X): the test can't tell"

pasta_take_over $A "$CTL" -u 6301:5301 -u 6302:5302
grep -q "taken over from the old process" "$WORK/b.log" ||
	{ tail -20 "$WORK/b.log"; fail "pasta B took over no UDP flow"; }

touch "$WORK/push" "$WORK/go"
i=0
for pid in $C1 $C2 $C3; do
	i=$((i + 1))
	wait "$pid" || { tail -30 "$WORK/b.log"; fail "client $i: no datagram after the restart"; }
done
log "after: $(tail -1 "$WORK/c1"); $(tail -1 "$WORK/c2"); $(tail -1 "$WORK/c3")"
grep -q "^reply2 .* echo:two from:$X\$" "$WORK/c1" ||
	fail "1. H's server saw another port than $X after the restart"
grep -q "^push $H4 6301 push\$" "$WORK/c2" || fail "2. push not from $H4:6301"
grep -q "^push 127.0.0.1 6302 push\$" "$WORK/c3" || fail "3. push not from 127.0.0.1:6302"
pass "UDP flows taken over: same ports, pushes after the restart delivered"
