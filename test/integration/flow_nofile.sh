#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# flow_nofile.sh - Out of file descriptors: new flows refused, old ones fine
#
# pasta runs with RLIMIT_NOFILE 128 (prlimit(1)), well below what the
# default --flow-max needs, so it must warn at start.  The namespace then
# opens connections until one is refused (the guest's SYN gets an RST once
# socket() fails with EMFILE): each descriptor pasta hasn't used at that
# point must have gone to a connection, but for two (its reserve, and one
# of slack), at least 10, and all must keep working.  (The count of
# descriptors in use comes from /proc/PID/fd: a fixed figure would change
# with every descriptor set-up adds, as following the host's network did.)  A connection to a -t port while out of descriptors
# must be reset (accept4() fails with EMFILE; pasta frees its reserve
# descriptor to take it off the queue), and pasta must not spin on the
# listener meanwhile.  Refusals are counted; after the connections close,
# new ones work again.
# asan: yes
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
setup_topology
make_target_ns
# No "auto" for the other tables: its sockets (sock_diag, -T listeners for
# the echo server on H) would come out of the 128 descriptors counted here
ip netns exec "$H" prlimit --nofile=128:128 "$PASTA_BIN" -f -d --config-net \
	-t 5300 -u none -T none -U none --netns "/run/netns/$N" \
	>"$WORK/pasta.log" 2>&1 &
PASTA_PID=$!; track $PASTA_PID
wait_for sh -c "ip -n $N -o addr show | grep -q 'inet .*global'" ||
	{ cat "$WORK/pasta.log"; fail "pasta did not start"; }
grep -q "RLIMIT_NOFILE: hard limit 128 is below" "$WORK/pasta.log" ||
	{ cat "$WORK/pasta.log"; fail "no warning about the descriptor limit"; }

bg in_host python3 "$here/tcptool.py" serve-echo 5200
bg in_ns python3 "$here/tcptool.py" serve-echo 5300
sleep 0.3
free=$((128 - $(ls /proc/$PASTA_PID/fd | wc -l)))

rm -f "$WORK/release"
in_ns timeout 120 python3 "$here/tcptool.py" hold $R4 5200 150 -1 "$WORK/release" \
	>"$WORK/hold.out" 2>&1 &
holder=$!; track $holder
wait_for grep -q "connected and echo" "$WORK/hold.out" ||
	{ cat "$WORK/hold.out"; tail "$WORK/pasta.log"; fail "connections until the first refusal"; }
held=$(awk '/connected and echo/ { print $1 }' "$WORK/hold.out")
log "$(head -1 "$WORK/hold.out"), $free descriptors were free"
[ "$held" -ge $((free - 2)) ] && [ "$held" -ge 10 ] ||
	fail "only $held connections before running out, $free descriptors were free"

in_remote timeout 20 python3 "$here/tcptool.py" expect-rst $H4 5300 ||
	fail "-t port while out of descriptors: no reset"

# No busy loop on the listener: CPU time (utime + stime, clock ticks, proc(5))
ticks() { awk '{ print $14 + $15 }' "/proc/$PASTA_PID/stat"; }
t0=$(ticks); sleep 2; t1=$(ticks)
log "CPU time while idle and out of descriptors: $((t1 - t0)) ticks in 2 s"
[ $((t1 - t0)) -lt 50 ] || fail "pasta spins: $((t1 - t0)) ticks in 2 s"

touch "$WORK/release"
wait $holder || { cat "$WORK/hold.out"; fail "held connections stopped working"; }
pasta_alive
kill -USR1 $PASTA_PID
wait_for grep -q "out of descriptors or socket memory [1-9]" "$WORK/pasta.log" ||
	{ grep "stats:" "$WORK/pasta.log"; fail "refusals not counted"; }
grep -q "out of file descriptors or socket memory: refusing new flows" "$WORK/pasta.log" ||
	fail "refusals not logged"

WAIT_S=20 wait_for in_ns timeout 5 python3 "$here/tcptool.py" hold $R4 5200 1 1 ||
	fail "no new connection after the descriptors came back"
stop_pasta
pass "out of descriptors: new flows refused cleanly, existing ones undisturbed"
