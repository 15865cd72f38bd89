#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vhost_hitless_restart.sh - A new passt --vhost-user takes over a running
# one's front-end, guest memory, rings and TCP connections mid-transfer
# (--restart-from)
#
# The guest is namespace N's kernel behind a tap device, relayed to the
# rings by vhost_relay.py, a scripted front-end that sends its set-up
# messages once and never again.  passt A (--vhost-user -s SOCK -c CTL
# -t 7331) serves it; 8 connections from R to H:7331 (passt's -t, into
# the guest's server) and 8 from the guest to a server in R carry paced
# two-way transfers of 256 KiB each way (about 1.6 s).  Once all are open,
# passt B (same options, --restart-from CTL) is started: A must exit 0, B
# must take over the device (its log names the rings' indices) and the 16
# connections, and every stream must arrive whole both ways (sha256 of
# each against the stream computed apart from the transfer), no reset,
# while the front-end never sees its socket close.  Then a new connection
# goes through B.
# Before: A refuses the hand-over ("--vhost-user can't be handed over
# yet") and B exits.
# asan: yes
. "$(dirname "$0")/lib.sh"

S="python3 -u $(dirname "$0")/restart_streams.py"
SOCK=$WORK/vu.sock
CTL=$WORK/ctl
SIZE=262144
R4B=203.0.113.2		# a remote address (R4 maps to the host itself)

setup_topology
make_target_ns
ip -n "$R" addr add $R4B/32 dev r0
in_ns ip link set lo up
in_ns sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
	net.ipv6.conf.default.disable_ipv6=1

start_passt "$SOCK" --vhost-user -c "$CTL" -t 7331 -m 1500
A=$PASST_PID
bg in_ns python3 -u "$(dirname "$0")/vhost_relay.py" "$SOCK" g0
RELAY=$BG_PID
wait_for in_ns ip link show g0 up || fail "no tap in N"
in_ns ip addr add $H4/24 dev g0
in_ns ip route add default via $R4
wait_for grep -q "queue 1 started" "$WORK/passt.log" ||
	{ cat "$WORK/passt.log"; fail "the front-end's queues didn't start"; }

bg in_ns $S serve 7331 0.0.0.0 "$WORK/res_n"
bg in_remote $S serve 7332 0.0.0.0 "$WORK/res_r"
wait_for in_ns sh -c "ss -ltn | grep -q ':7331 '" || fail "no server in N"
wait_for in_remote sh -c "ss -ltn | grep -q ':7332 '" || fail "no server in R"
bg in_remote $S run $H4 7331 8 1000 $SIZE "$WORK/ready1"
C1=$BG_PID
bg in_ns $S run $R4B 7332 8 2000 $SIZE "$WORK/ready2"
C2=$BG_PID
WAIT_S=20 wait_for sh -c "test -e $WORK/ready1 && test -e $WORK/ready2" ||
	{ tail -20 "$WORK/passt.log"; fail "the 16 connections didn't open"; }
sleep 0.3
passt_alive
daemon_running $RELAY ||
	{ tail -30 "$WORK/passt.log"; fail "the front-end ended before the restart"; }

ip netns exec "$H" "$PASST_BIN" -f -d --vhost-user -s "$SOCK" -c "$CTL" \
	-t 7331 -m 1500 --restart-from "$CTL" >"$WORK/b.log" 2>&1 &
B=$!
track $B
WAIT_S=20 wait_for sh -c "! kill -0 $A" ||
	{ cat "$WORK/b.log"; tail -5 "$WORK/passt.log"; fail "passt A is still running: nothing was handed over"; }
wait $A
RC=$?
PASST_PID=""
[ $RC -eq 0 ] || { tail -20 "$WORK/passt.log"; fail "passt A exited with $RC"; }
WAIT_S=10 wait_for grep -q "took over" "$WORK/b.log" ||
	{ cat "$WORK/b.log"; fail "passt B didn't take over"; }
daemon_running $B || daemon_gone $B "$WORK/b.log" "passt B"
grep -q "vhost-user: device taken over" "$WORK/b.log" ||
	{ cat "$WORK/b.log"; fail "passt B didn't take the vhost-user device"; }
NF=$(sed -n 's/.*took over from .*: \([0-9]*\) flows.*/\1/p' "$WORK/b.log")
[ "${NF:-0}" -ge 16 ] || { cat "$WORK/b.log"; fail "B took over ${NF:-no} flows, not the 16 open"; }
V=$("$PASST_BIN" --version | head -1)
grep -qF "($V)" "$WORK/b.log" ||
	{ head -20 "$WORK/b.log"; fail "passt B's log doesn't name '$V'"; }
log "ok: A ($A) exited 0, B ($B) took the device and $NF flows: $(grep -o 'queues at .*' "$WORK/b.log")"

FAILED=0
for c in $C1 $C2; do
	wait $c || FAILED=1
done
[ $FAILED = 0 ] || { grep -v 'debug: flow' "$WORK/b.log" | tail -40; fail "a stream towards a client was cut or changed"; }
WAIT_S=20 wait_for sh -c "test \$(cat $WORK/res_n $WORK/res_r 2>/dev/null | wc -l) -eq 16" ||
	{ cat "$WORK/res_n" "$WORK/res_r"; fail "not every upload ended"; }
OK=$(cat "$WORK/res_n" "$WORK/res_r" | grep -c '^ok ')
[ "$OK" -eq 16 ] || { cat "$WORK/res_n" "$WORK/res_r"; fail "$OK uploads of 16 whole"; }
daemon_running $RELAY || { wait $RELAY; fail "the front-end ended (socket closed?)"; }
log "ok: 16 streams whole both ways across the restart, same front-end"

in_remote $S run $H4 7331 1 3000 65536 "$WORK/ready3" ||
	{ tail -20 "$WORK/b.log"; fail "a new connection through B"; }
stop_daemon $B "$WORK/b.log" "passt B"
pass "hitless restart of passt --vhost-user: device, rings and 16 connections taken over"
