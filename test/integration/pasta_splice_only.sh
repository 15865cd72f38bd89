#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_splice_only.sh - --splice-only: no tap device in the namespace (only
# lo), and loopback traffic still forwarded: 16 MiB from H's loopback to a
# -t port (sha256), 16 MiB from the namespace's loopback to a -T port, UDP
# echoes through -u; a connection to the -t port from R is reset or
# refused, not carried (passt.1, --splice-only)
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
make_file "$WORK/data" 16
want=$(sum "$WORK/data")
make_target_ns
ip netns exec "$H" "$PASTA_BIN" -f -d --splice-only -t 5801 -u 5802 -T 5803 \
	-U none --pid "$WORK/pid" --netns "/run/netns/$N" >"$WORK/pasta.log" 2>&1 &
PASTA_PID=$!; track $PASTA_PID
wait_for test -s "$WORK/pid" || { cat "$WORK/pasta.log"; fail "pasta did not start"; }
links=$(ip -n "$N" -o link show | awk -F': ' '{ print $2 }' | tr '\n' ' ')
[ "$links" = "lo " ] || fail "links in the namespace: $links"
ip -n "$N" -o link show lo | grep -q 'UP' || fail "lo is not up"

bg in_ns timeout 30 socat -u TCP4-LISTEN:5801,reuseaddr OPEN:"$WORK/got1",creat,trunc
srv=$BG_PID
wait_for sh -c "ip netns exec $N ss -Hltn | grep -q ':5801 '" || fail "server in ns"
in_host timeout 30 socat -u OPEN:"$WORK/data" TCP4:127.0.0.1:5801 || fail "-t client"
wait $srv
[ "$(sum "$WORK/got1")" = "$want" ] || fail "-t 5801: sha256"

bg in_host timeout 30 socat -u TCP6-LISTEN:5803,bind='[::1]',reuseaddr OPEN:"$WORK/got3",creat,trunc
srv=$BG_PID
wait_for sh -c "ip netns exec $H ss -Hltn | grep -q ':5803 '" || fail "server in H"
in_ns timeout 30 socat -u OPEN:"$WORK/data" TCP6:'[::1]':5803 || fail "-T client"
wait $srv
[ "$(sum "$WORK/got3")" = "$want" ] || fail "-T 5803: sha256"

bg in_ns $UDPTOOL echo 127.0.0.1 5802 30
wait_for sh -c "ip netns exec $N ss -Hlun | grep -q ':5802 '" || fail "UDP echo in ns"
in_host $UDPTOOL pingpong 127.0.0.1 5802 200 65507 || fail "-u 5802 echo"

bg in_ns timeout 10 socat -u TCP4-LISTEN:5801,reuseaddr /dev/null
wait_for sh -c "ip netns exec $N ss -Hltn | grep -q ':5801 '" || fail "server in ns"
in_remote timeout 5 socat -u OPEN:"$WORK/data" TCP4:$H4:5801 2>/dev/null &&
	fail "a connection from R was carried"
pasta_alive
stop_pasta
pass "--splice-only: no tap, loopback TCP both ways and UDP intact, others refused"
