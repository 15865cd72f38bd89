#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_hitless_restart.sh - A new pasta takes over the connections of a
# running one (--restart-from): every byte arrives, no reset
#
# pasta A (-t 7310 -T 7312 -c CTL) connects N.  100 connections carry
# paced two-way transfers (768 KiB each way, about 5 s) at the same time:
#   30 from R to H:7310, the tap path into N;
#   30 from H's loopback to 127.0.0.1:7310, the splice path into N;
#   30 from N to a server in R (203.0.113.2), the tap path outbound;
#   10 from N's loopback to 127.0.0.1:7312 (-T), spliced to a server in H.
# Once all are connected, pasta B (same options, --restart-from CTL) is
# started: A must exit 0, B must run (a new PID, its log naming the
# version "pasta --version" prints), and every stream must arrive whole in
# both directions (sha256 of each checked against the stream computed
# apart from the transfer, by the receiver of each side), no connection
# reset.  Then new connections go through B (tap and splice), and pesto
# changes B's ports through the -c socket B took over.
# First, a pasta that started its command, replaced twice while 15
# transfers run: the first pasta stays as the command's waiter, and the
# shell that started it sees the command's exit status (7).
# Then the same as user nobody (rootless), 25 connections; and a rootless
# pasta that started its command, replaced, then ended by SIGTERM to the
# first PID (all exit 0, the command goes with them).
# Before: B doesn't know --restart-from, exits at once, A keeps running;
# before issue 29's waiter, B is refused for the pasta with a command.
# asan: yes
. "$(dirname "$0")/lib.sh"

S="python3 -u $(dirname "$0")/restart_streams.py"
SIZE=786432
CTL="$WORK/ctl"
setup_topology
# R's own address for outbound connections: R4 is N's gateway, which pasta
# maps to the host itself
R4B=203.0.113.2
ip -n "$R" addr add $R4B/32 dev r0

# A pasta that started its command: the command stays its child, so the
# first pasta stays as the command's waiter and reports its status
# (passt.1).  Pasta A0 runs "sh CMD": a server on 7330 in its new
# namespace, and 5 paced two-way transfers out to R (tap path); 5 from R
# to H:7330 (tap path in) and 5 from H's loopback to 127.0.0.1:7330 (splice
# path), 384 KiB each way (about 2.4 s).  While they run, B0 takes over
# from A0, then C0 from B0 (the waiter's link handed on).  The command
# exits 7 once its server got 10 whole uploads and its own 5 were whole:
# the shell waiting for A0 must see 7, and C0 exits with 7 too.
SP=$WORK/sp
mkdir -p "$SP"
SPSIZE=393216
cat >"$SP/cmd.sh" <<EOC
echo \$\$ >"$SP/cmd.pid"
$S serve 7330 0.0.0.0 "$SP/res_n" &
echo \$! >"$SP/srv.pid"
$S run $R4B 7331 5 11000 $SPSIZE "$SP/ready3"
rc=\$?
i=0
while [ "\$(cat "$SP/res_n" 2>/dev/null | wc -l)" -lt 10 ] && [ \$i -lt 300 ]; do
	sleep 0.1; i=\$((i + 1))
done
kill \$(cat "$SP/srv.pid")
[ \$rc -eq 0 ] || exit 9
[ "\$(grep -c '^ok ' "$SP/res_n")" -eq 10 ] || exit 10
exit 7
EOC
bg in_remote $S serve 7331 0.0.0.0 "$SP/res_r"
wait_for in_remote sh -c "ss -ltn | grep -q ':7331 '" || fail "no server in R"
ip netns exec "$H" "$PASTA_BIN" -f -d --config-net -t 7330 -c "$SP/ctl" \
	-- sh "$SP/cmd.sh" >"$SP/a.log" 2>&1 &
A0=$!
track $A0
wait_for test -s "$SP/srv.pid" || { cat "$SP/a.log"; fail "the command of A0 didn't start"; }
track "$(cat "$SP/srv.pid")"
# shellcheck disable=SC2317 # called through wait_for
in_cmd() { nsenter -t "$(cat "$SP/cmd.pid")" -n "$@"; }
wait_for in_cmd sh -c "ss -ltn | grep -q ':7330 '" || fail "no server in A0's namespace"
bg in_remote $S run $H4 7330 5 12000 $SPSIZE "$SP/ready1"
E1=$BG_PID
bg in_host $S run 127.0.0.1 7330 5 13000 $SPSIZE "$SP/ready2"
E2=$BG_PID
wait_for sh -c "test -e $SP/ready1 && test -e $SP/ready2 && test -e $SP/ready3" ||
	{ tail -20 "$SP/a.log"; fail "the connections through A0 didn't open"; }
ip netns exec "$H" "$PASTA_BIN" -f -d -t 7330 -c "$SP/ctl" \
	--restart-from "$SP/ctl" >"$SP/b.log" 2>&1 &
B0=$!
track $B0
WAIT_S=20 wait_for sh -c "grep -q 'took over from' $SP/b.log || ! kill -0 $B0"
grep -q "took over from" "$SP/b.log" ||
	{ cat "$SP/b.log"; tail -5 "$SP/a.log"; fail "B0 didn't take over from a pasta that started its command"; }
wait_for grep -q "waiting for the command" "$SP/a.log" ||
	{ tail -20 "$SP/a.log"; fail "A0 doesn't wait for its command"; }
daemon_running $A0 || daemon_gone $A0 "$SP/a.log" "pasta A0 (the waiter)"
log "A0 (PID $A0) waits for its command: $(grep -h VmRSS /proc/$A0/status | tr -s '\t ' ' '), $(ls /proc/$A0/fd | wc -l) descriptors"
ip netns exec "$H" "$PASTA_BIN" -f -d -t 7330 -c "$SP/ctl" \
	--restart-from "$SP/ctl" >"$SP/c.log" 2>&1 &
C0=$!
track $C0
WAIT_S=20 wait_for sh -c "! kill -0 $B0" ||
	{ cat "$SP/c.log"; fail "B0 still runs: not handed over to C0"; }
wait $B0 || { tail -20 "$SP/b.log"; fail "B0 exited with $? after its hand-over"; }
wait_for grep -q "took over from" "$SP/c.log" || { cat "$SP/c.log"; fail "C0 didn't take over"; }
for c in $E1 $E2; do
	wait $c || { tail -30 "$SP/c.log"; fail "a stream through A0, B0, C0 was cut or changed"; }
done
WAIT_S=20 wait_for sh -c "! kill -0 $A0" ||
	{ tail -20 "$SP/a.log"; tail -20 "$SP/c.log"; fail "A0 still runs after its command's end"; }
wait $A0
RC=$?
[ $RC -eq 7 ] || { cat "$SP/a.log"; tail -20 "$SP/c.log"; fail "the shell saw pasta A0 exit with $RC, not the command's 7"; }
WAIT_S=10 wait_for sh -c "! kill -0 $C0" || { tail -20 "$SP/c.log"; fail "C0 runs after the command's end"; }
wait $C0
RC=$?
[ $RC -eq 7 ] || { tail -20 "$SP/c.log"; fail "C0 exited with $RC, not the command's 7"; }
[ "$(grep -c '^ok ' "$SP/res_r")" -eq 5 ] || { cat "$SP/res_r"; fail "the command's uploads to R"; }
log "ok: a pasta that started its command, replaced twice during 15 transfers (tap both ways, splice): whole, and its shell saw the command's 7"

start_pasta -t 7310 -T 7312 -c "$CTL"
A=$PASTA_PID

bg in_ns $S serve 7310 0.0.0.0 "$WORK/res_n"
bg in_remote $S serve 7311 0.0.0.0 "$WORK/res_r"
bg in_host $S serve 7312 127.0.0.1 "$WORK/res_h"
wait_for in_ns sh -c "ss -ltn | grep -q ':7310 '" || fail "no server in N"
wait_for in_remote sh -c "ss -ltn | grep -q ':7311 '" || fail "no server in R"
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:7312 '" ||
	fail "no server in H"
wait_for in_ns sh -c "ss -ltn | grep -q ':7312 '" ||
	fail "pasta doesn't listen on 7312 in N (-T)"

bg in_remote $S run $H4 7310 30 1000 $SIZE "$WORK/ready1"
C1=$BG_PID
bg in_host $S run 127.0.0.1 7310 30 2000 $SIZE "$WORK/ready2"
C2=$BG_PID
bg in_ns $S run $R4B 7311 30 3000 $SIZE "$WORK/ready3"
C3=$BG_PID
bg in_ns $S run 127.0.0.1 7312 10 4000 $SIZE "$WORK/ready4"
C4=$BG_PID
WAIT_S=30 wait_for sh -c "test -e $WORK/ready1 && test -e $WORK/ready2 &&
	test -e $WORK/ready3 && test -e $WORK/ready4" ||
	{ tail -20 "$WORK/pasta.log"; fail "the 100 connections didn't open"; }
sleep 1
pasta_alive

# B: the same options, and the old one's -c socket to take over from
pasta_take_over $A "$CTL" -t 7310 -T 7312
V=$("$PASTA_BIN" --version | head -1)
grep -qF "($V)" "$WORK/b.log" ||
	{ head -20 "$WORK/b.log"; fail "pasta B's log doesn't name '$V'"; }
log "ok: A ($A) exited 0, B ($B) runs: $V"

FAILED=0
for c in $C1 $C2 $C3 $C4; do
	wait $c || FAILED=1
done
[ $FAILED = 0 ] || { tail -30 "$WORK/b.log"; fail "a stream towards a client was cut or changed"; }
daemon_running $B || daemon_gone $B "$WORK/b.log" "pasta B"

# The servers' side: every upload whole
WAIT_S=20 wait_for sh -c "test \$(cat $WORK/res_n $WORK/res_r $WORK/res_h 2>/dev/null | wc -l) -eq 100" ||
	{ cat "$WORK/res_n" "$WORK/res_r" "$WORK/res_h"; fail "not every upload ended"; }
BAD=$(cat "$WORK/res_n" "$WORK/res_r" "$WORK/res_h" | grep -v '^ok ' || true)
[ -z "$BAD" ] || { echo "$BAD"; fail "uploads cut or changed"; }
OK=$(cat "$WORK/res_n" "$WORK/res_r" "$WORK/res_h" | grep -c '^ok ')
[ "$OK" -eq 100 ] || fail "$OK uploads of 100 whole"
log "ok: 100 streams whole both ways across the restart"

# B serves new connections, on the tap and splice paths
in_remote $S run $H4 7310 1 5000 65536 "$WORK/ready5" ||
	{ tail -20 "$WORK/b.log"; fail "a new connection through B (tap)"; }
in_host $S run 127.0.0.1 7310 1 5001 65536 "$WORK/ready6" ||
	{ tail -20 "$WORK/b.log"; fail "a new connection through B (splice)"; }
# B answers on the -c socket it took over: pesto adds a port
PESTO="$(dirname "$PASST_BIN")/pesto"
"$PESTO" -t 7310,7313 "$CTL" || { tail -20 "$WORK/b.log"; fail "pesto on B's -c socket"; }
wait_for in_host sh -c "ss -ltn | grep -q ':7313 '" ||
	fail "B didn't open 7313 for pesto"
stop_daemon $B "$WORK/b.log" "pasta B"
log "ok: 100 streams through a root pasta"

# Rootless: user nobody owns a user and network namespace (a process
# "sleep" holds them, as a container runtime would) and runs pasta A'
# attached to it; another pasta B' of the same user takes over from A'.
# /dev/net/tun is 0600 here: a 0666 node is bind-mounted over it in a
# private mount namespace (testing-recipes.md, "Rootless runs").  10
# connections on the tap path (R to H:7320), 10 on the splice path (H's
# loopback to 127.0.0.1:7320), 5 outbound from the namespace to R, each
# 256 KiB both ways (about 1.6 s), sha256 checked, across the restart.
command -v setpriv >/dev/null || fail "setpriv missing (util-linux)"
RL="$WORK/rl"
mkdir -p "$RL"
chmod 1777 "$RL"
ip netns exec "$H" setpriv --reuid=nobody --regid=nogroup --clear-groups \
	unshare --user --map-root-user --net sleep 120 &
HOLD=$!
track $HOLD
wait_for sh -c "[ \"\$(readlink /proc/$HOLD/ns/user)\" != \"\$(readlink /proc/self/ns/user)\" ]" ||
	fail "no user namespace for nobody"
# rootless_pasta LOG ARGS... - pasta as nobody in H, tun usable
rootless_pasta() {
	_log=$1; shift
	ip netns exec "$H" unshare -m sh -c "mknod -m 666 $RL/tun.\$\$ c 10 200 &&
		mount --bind $RL/tun.\$\$ /dev/net/tun &&
		exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
		$PASTA_BIN -f -d --config-net -t 7320 -c $RL/ctl $* $HOLD" \
		>"$_log" 2>&1 &
	BG_PID=$!
	track $BG_PID
}
rootless_pasta "$RL/a.log" --pid "$RL/a.pid"
RA=$BG_PID
wait_for test -s "$RL/a.pid" || { cat "$RL/a.log"; fail "rootless pasta A' wrote no PID file"; }
[ "$(cat "$RL/a.pid")" = "$RA" ] || fail "rootless pasta A' isn't PID $RA"
[ "$(stat -c %U /proc/$RA)" = nobody ] || fail "pasta A' doesn't run as nobody"
# shellcheck disable=SC2317 # called through wait_for
in_hold() { nsenter -t $HOLD -n "$@"; }
nsenter -t $HOLD -n $S serve 7320 0.0.0.0 "$RL/res_n" &
track $!
bg in_remote $S serve 7321 0.0.0.0 "$RL/res_r"
wait_for in_hold sh -c "ss -ltn | grep -q ':7320 '" || fail "no server in the rootless namespace"
wait_for in_remote sh -c "ss -ltn | grep -q ':7321 '" || fail "no server in R"
RSIZE=262144
bg in_remote $S run $H4 7320 10 6000 $RSIZE "$RL/ready1"
D1=$BG_PID
bg in_host $S run 127.0.0.1 7320 10 7000 $RSIZE "$RL/ready2"
D2=$BG_PID
nsenter -t $HOLD -n $S run $R4B 7321 5 8000 $RSIZE "$RL/ready3" &
D3=$!
track $D3
WAIT_S=20 wait_for sh -c "test -e $RL/ready1 && test -e $RL/ready2 &&
	test -e $RL/ready3" ||
	{ tail -20 "$RL/a.log"; fail "the rootless connections didn't open"; }
sleep 0.3
daemon_running $RA || daemon_gone $RA "$RL/a.log" "rootless pasta A'"
rootless_pasta "$RL/b.log" --restart-from "$RL/ctl" --pid "$RL/b.pid"
RB=$BG_PID
WAIT_S=20 wait_for sh -c "! kill -0 $RA" ||
	{ cat "$RL/b.log"; fail "rootless pasta A' is still running"; }
wait $RA
RC=$?
[ $RC -eq 0 ] || { tail -20 "$RL/a.log"; fail "rootless pasta A' exited with $RC"; }
WAIT_S=20 wait_for test -s "$RL/b.pid" ||
	{ cat "$RL/b.log"; fail "rootless pasta B' wrote no PID file"; }
daemon_running $RB || daemon_gone $RB "$RL/b.log" "rootless pasta B'"
# All 25 were open at the hand-over (each is one flow, tap or spliced)
NF=$(sed -n 's/.*took over from .*: \([0-9]*\) flows.*/\1/p' "$RL/b.log")
[ "${NF:-0}" -ge 25 ] || { cat "$RL/b.log"; fail "B' took over ${NF:-no} flows, not the 25 open"; }
[ "$(stat -c %U /proc/$RB)" = nobody ] || fail "pasta B' doesn't run as nobody"
FAILED=0
for c in $D1 $D2 $D3; do
	wait $c || FAILED=1
done
[ $FAILED = 0 ] || { tail -30 "$RL/b.log"; fail "a rootless stream towards a client was cut or changed"; }
WAIT_S=20 wait_for sh -c "test \$(cat $RL/res_n $RL/res_r 2>/dev/null | wc -l) -eq 25" ||
	{ cat "$RL/res_n" "$RL/res_r"; fail "not every rootless upload ended"; }
OK=$(cat "$RL/res_n" "$RL/res_r" | grep -c '^ok ')
[ "$OK" -eq 25 ] || { cat "$RL/res_n" "$RL/res_r"; fail "$OK rootless uploads of 25 whole"; }
in_remote $S run $H4 7320 1 9000 65536 "$RL/ready4" ||
	{ tail -20 "$RL/b.log"; fail "a new connection through rootless B'"; }
stop_daemon $RB "$RL/b.log" "rootless pasta B'"
log "ok: 25 streams through a rootless pasta"

# Rootless, a pasta that started its command (in a user namespace of its
# own): pasta A1, as nobody, runs a server on 7340; 3 transfers on the tap
# path (R to H:7340) and 3 on the splice path (H's loopback), 128 KiB each
# way (about 0.8 s); B1 (nobody) takes over meanwhile.  Once they are whole, SIGTERM to
# A1, the PID its shell knows: as without a restart, the pasta running
# (B1) drains and exits 0, so does A1, and the command goes with them.
cat >"$RL/cmd.sh" <<EOC
echo \$\$ >"$RL/cmd.pid"
exec $S serve 7340 0.0.0.0 "$RL/res_s"
EOC
chmod 644 "$RL/cmd.sh"
ip netns exec "$H" unshare -m sh -c "mknod -m 666 $RL/tun.\$\$ c 10 200 &&
	mount --bind $RL/tun.\$\$ /dev/net/tun &&
	exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
	$PASTA_BIN -f -d --config-net -t 7340 -c $RL/ctl1 -- sh $RL/cmd.sh" \
	>"$RL/a1.log" 2>&1 &
A1=$!
track $A1
wait_for test -s "$RL/cmd.pid" || { cat "$RL/a1.log"; fail "the command of rootless A1 didn't start"; }
CMD1=$(cat "$RL/cmd.pid")
track "$CMD1"
wait_for nsenter -t "$CMD1" -n sh -c "ss -ltn | grep -q ':7340 '" ||
	fail "no server in rootless A1's namespace"
bg in_remote $S run $H4 7340 3 14000 131072 "$RL/ready5"
F1=$BG_PID
bg in_host $S run 127.0.0.1 7340 3 15000 131072 "$RL/ready6"
F2=$BG_PID
wait_for sh -c "test -e $RL/ready5 && test -e $RL/ready6" ||
	{ tail -20 "$RL/a1.log"; fail "the connections through rootless A1 didn't open"; }
ip netns exec "$H" setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$PASTA_BIN" -f -d -t 7340 -c "$RL/ctl1" --restart-from "$RL/ctl1" \
	>"$RL/b1.log" 2>&1 &
B1=$!
track $B1
WAIT_S=20 wait_for sh -c "grep -q 'took over from' $RL/b1.log || ! kill -0 $B1"
grep -q "took over from" "$RL/b1.log" ||
	{ cat "$RL/b1.log"; tail -5 "$RL/a1.log"; fail "rootless B1 didn't take over from A1"; }
[ "$(stat -c %U /proc/$B1)" = nobody ] || fail "pasta B1 doesn't run as nobody"
for c in $F1 $F2; do
	wait $c || { tail -30 "$RL/b1.log"; fail "a stream through rootless A1, B1 was cut or changed"; }
done
wait_for sh -c "test \$(grep -c '^ok ' $RL/res_s) -eq 6" ||
	{ cat "$RL/res_s"; fail "uploads through rootless A1, B1"; }
daemon_running $A1 || daemon_gone $A1 "$RL/a1.log" "rootless pasta A1 (the waiter)"
kill -TERM $A1
WAIT_S=15 wait_for sh -c "! kill -0 $A1" || { tail -10 "$RL/b1.log"; fail "rootless A1 runs after SIGTERM"; }
wait $A1
RC=$?
[ $RC -eq 0 ] || { cat "$RL/a1.log"; fail "rootless A1 exited with $RC after SIGTERM, not 0"; }
wait_for sh -c "! kill -0 $B1" || { tail -10 "$RL/b1.log"; fail "rootless B1 runs after SIGTERM to A1"; }
wait $B1
RC=$?
[ $RC -eq 0 ] || { tail -10 "$RL/b1.log"; fail "rootless B1 exited with $RC after SIGTERM to A1, not 0"; }
wait_for sh -c "! kill -0 $CMD1" || fail "the command of rootless A1 outlived it"
pass "hitless restart: 100 connections (tap, splice, both ways) whole across a new pasta, 25 across a rootless one; a pasta that started its command replaced twice (its shell sees the command's status), and rootless (SIGTERM to the first ends it all)"
