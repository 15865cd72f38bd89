#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# listen_nofile.sh - Out of file descriptors, a client of the -c socket
# (pasta) or of passt's UNIX socket (-s) is refused at once, and the daemon
# doesn't spin on the listener (issue 26 item 8: accept4() failed with
# EMFILE, the client stayed queued and the level-triggered listener woke
# the loop again and again).
#
# The daemon runs with RLIMIT_NOFILE 128 (prlimit(1)); TCP connections to a
# forwarded port, which it keeps (pasta: spliced to a server in the
# namespace; passt: waiting for a guest), use up its descriptors.  Then a client
# connects to the UNIX socket: its connection must end (EOF or reset)
# within 10 s instead of waiting in the queue, and
# the daemon's CPU time (utime + stime in /proc/PID/stat, proc(5)) over 2 s
# must stay below half of the clock ticks of those 2 s (sysconf CLK_TCK) in
# at least one of three consecutive 2 s windows.
# asan: yes
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
setup_topology
make_target_ns
TCK=$(getconf CLK_TCK)

cat > "$WORK/client.py" <<'EOF'
import socket, sys
kind = socket.SOCK_SEQPACKET if sys.argv[2] == "seqpacket" else socket.SOCK_STREAM
s = socket.socket(socket.AF_UNIX, kind)
s.connect(sys.argv[1])
print("connected", flush=True)
s.settimeout(float(sys.argv[3]))
try:
    d = s.recv(100)
    print("closed" if not d else "data " + d.decode(errors="replace").split("\n")[0])
except socket.timeout:
    print("pending")
except OSError as e:
    print("reset" if e.errno in (104, 32) else "error %d" % e.errno)
EOF

cat > "$WORK/hog.py" <<'EOF'
import socket, sys, time, os
host, port, n, release = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
held = []
for i in range(n):
    try:
        held.append(socket.create_connection((host, port), timeout=5))
    except OSError:
        pass        # reset by the daemon, out of descriptors
print("held %d" % len(held), flush=True)
while not os.path.exists(release):
    time.sleep(0.1)
EOF

# check_refused PID LOG SOCKET TYPE WHAT
check_refused() {
	_pid=$1; _log=$2; _sock=$3; _type=$4; _what=$5
	ticks() { awk '{ print $14 + $15 }' "/proc/$_pid/stat"; }
	in_host python3 "$WORK/client.py" "$_sock" "$_type" 10 > "$WORK/client.out" 2>&1 &
	_cl=$!; track $_cl
	wait_for grep -q connected "$WORK/client.out" ||
		{ cat "$WORK/client.out"; fail "$_what: client didn't connect"; }
	# A spinning loop spins in every window; work left over from the
	# hog's connections on a loaded machine ends within one
	for _w in 1 2 3; do
		t0=$(ticks); sleep 2; t1=$(ticks)
		log "$_what: CPU time out of descriptors, client queued: $((t1 - t0)) ticks in 2 s ($TCK per second), window $_w"
		[ $((t1 - t0)) -lt $TCK ] && break
	done
	wait $_cl
	out=$(tail -1 "$WORK/client.out")
	case $out in
	closed|reset) ;;
	*) tail -5 "$_log"; fail "$_what: client not refused while out of descriptors: $out" ;;
	esac
	[ $((t1 - t0)) -lt $TCK ] ||
		fail "$_what: daemon spins: $((t1 - t0)) ticks in 2 s"
	log "$_what: client refused ($out), no spinning"
}

# pasta: -c
ip netns exec "$H" prlimit --nofile=128:128 "$PASTA_BIN" -f -d --config-net \
	-t 5300 -u none -T none -U none -c "$WORK/ctl" --netns "/run/netns/$N" \
	>"$WORK/pasta.log" 2>&1 &
PASTA_PID=$!; track $PASTA_PID
wait_for sh -c "ip -n $N -o addr show | grep -q 'inet .*global'" ||
	{ cat "$WORK/pasta.log"; fail "pasta did not start"; }
bg in_ns python3 "$here/tcptool.py" serve-echo 5300
wait_for sh -c "ip netns exec $N ss -Hltn | grep -q ':5300 '" ||
	fail "echo server in the namespace"
rm -f "$WORK/release"
in_host timeout 120 python3 "$WORK/hog.py" 127.0.0.1 5300 40 "$WORK/release" \
	>"$WORK/hog.out" 2>&1 &
hog=$!; track $hog
wait_for grep -q "held" "$WORK/hog.out" || { cat "$WORK/hog.out"; fail "hog"; }
wait_for grep -q "refusing new flows" "$WORK/pasta.log" ||
	{ tail "$WORK/pasta.log"; fail "pasta never ran out of descriptors"; }
check_refused $PASTA_PID "$WORK/pasta.log" "$WORK/ctl" stream "pasta -c"
touch "$WORK/release"
wait $hog
WAIT_S=20 wait_for sh -c "'$(dirname "$PASST_BIN")/pesto' '$WORK/ctl' | grep -q 5300" ||
	fail "pesto doesn't work once descriptors are back"
stop_pasta

# passt: -s, no guest: connections to -t 5400 wait for one, holding a
# descriptor each
ip netns exec "$H" prlimit --nofile=128:128 "$PASST_BIN" -f -d -t 5400 \
	-s "$WORK/p.sock" >"$WORK/passt.log" 2>&1 &
PASST_PID=$!; track $PASST_PID
wait_for grep -q "socket bound at" "$WORK/passt.log" ||
	{ cat "$WORK/passt.log"; fail "passt did not start"; }
rm -f "$WORK/release"
in_host timeout 120 python3 "$WORK/hog.py" 127.0.0.1 5400 120 "$WORK/release" \
	>"$WORK/hog.out" 2>&1 &
hog=$!; track $hog
wait_for grep -q "held" "$WORK/hog.out" || { cat "$WORK/hog.out"; fail "hog"; }
wait_for grep -q "refusing new flows" "$WORK/passt.log" ||
	{ tail "$WORK/passt.log"; fail "passt never ran out of descriptors"; }
check_refused $PASST_PID "$WORK/passt.log" "$WORK/p.sock" stream "passt -s"
touch "$WORK/release"
wait $hog
stop_passt
pass "out of descriptors: UNIX socket clients refused, no busy loop"
