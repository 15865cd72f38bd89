#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_exit_drain.sh - Nothing we acknowledged is lost when we exit
#
# 1. pasta's command sends 64 MiB (socat -u, IPv4 then IPv6) to a server on
#    the host's loopback through the gateway address and exits at once:
#    pasta drains before it exits, and the host gets every byte, every run
#    (the sha256 of what arrived is compared with the file's).
# 2. A host client sends 64 MiB into the namespace through -t and exits at
#    once, over the tap path (from R) and over splice (from H's loopback).
# 3. A passt --one-off guest uploads 16 MiB, and disconnects as soon as
#    passt ACKed its FIN: what passt ACKed still reaches the host.
# 4. SIGTERM while a command still sends: the transfer completes; a second
#    SIGTERM exits at once.
# 5. A host reader much slower than --drain-timeout 1 allows (2 MiB at
#    about 640 KB/s): once the guest's FIN is passed on, pasta hands the
#    socket to the kernel and exits at once; the reader still gets every
#    byte (before: reset after 2 s, 1.3 of 2 MiB delivered).
# RUNS (default 2) sets how many times 1. runs.
# asan: yes
. "$(dirname "$0")/lib.sh"

RUNS=${RUNS:-2}
T="python3 -u $(dirname "$0")/tcptool.py"
setup_topology
make_file "$WORK/in" 64
want=$(sum "$WORK/in")

# recv PORT FAMILY FILE - one-shot socat server on the host's loopback
recv() {
	rm -f "$3"
	if [ "$2" = 4 ]; then
		bg in_host socat -u TCP4-LISTEN:$1,bind=127.0.0.1,reuseaddr \
			OPEN:"$3",creat,trunc
	else
		bg in_host socat -u TCP6-LISTEN:$1,bind='[::1]',reuseaddr \
			OPEN:"$3",creat,trunc
	fi
	wait_for in_host sh -c "ss -ltn | grep -q ':$1 '"
}

# check FILE WHAT - FILE must be a copy of $WORK/in, once its writer is done
check() {
	WAIT_S=20 wait_for sh -c "! ip netns pids $H | xargs -r ps -o args= -p 2>/dev/null | grep -q 'OPEN:$1'"
	got=$(sum "$1")
	[ "$got" = "$want" ] || fail "$2: $(stat -c %s "$1") of $((64 << 20)) bytes arrived"
}

# 1. The command exits right after sending
run=0
while [ $run -lt "$RUNS" ]; do
	recv 7001 4 "$WORK/out4"
	recv 7002 6 "$WORK/out6"
	rc=0
	ip netns exec "$H" "$PASTA_BIN" --config-net -q -f -- sh -c \
		"socat -u OPEN:$WORK/in TCP4:$R4:7001 && socat -u OPEN:$WORK/in TCP6:[$R6]:7002" \
		>"$WORK/cmd.log" 2>&1 || rc=$?
	[ $rc = 0 ] || { cat "$WORK/cmd.log"; fail "run $run: pasta exited with $rc"; }
	check "$WORK/out4" "run $run, IPv4"
	check "$WORK/out6" "run $run, IPv6"
	run=$((run + 1))
done
log "$RUNS runs: the command's 64 MiB arrived whole, IPv4 and IPv6"

# 2. A host client sends into the namespace and exits
start_pasta -t 6400
for from in remote host; do
	rm -f "$WORK/nsout"
	bg in_ns socat -u TCP-LISTEN:6400,reuseaddr OPEN:"$WORK/nsout",creat,trunc
	ns_rx=$BG_PID
	wait_for in_ns sh -c "ss -ltn | grep -q ':6400 '"
	if [ $from = remote ]; then
		in_remote socat -u OPEN:"$WORK/in" TCP4:$H4:6400 || fail "client"
	else
		in_host socat -u OPEN:"$WORK/in" TCP4:127.0.0.1:6400 || fail "client"
	fi
	WAIT_S=20 wait_for sh -c "! kill -0 $ns_rx" || fail "namespace receiver still running ($from)"
	[ "$(sum "$WORK/nsout")" = "$want" ] ||
		fail "from $from: $(stat -c %s "$WORK/nsout") bytes arrived"
done
pasta_alive
stop_pasta
log "clients that send and exit: 64 MiB intact over the tap and over splice"

# 3. A passt --one-off guest that uploads and disconnects, to a host reader
#    slower than the upload: when it leaves, megabytes we ACKed still sit in
#    the host socket's send queue
bg in_host $T serve-slow-hash 7003 "$WORK/p.sum" --bind 127.0.0.1
wait_for in_host sh -c "ss -ltn | grep -q ':7003 '"
S=$WORK/p.sock
start_passt "$S" -1
in_host python3 "$(dirname "$0")/passt_client.py" upload "$S" $R4 7003 up 16777216 \
	>"$WORK/up.out" 2>&1 || { cat "$WORK/up.out"; fail "passt guest upload"; }
WAIT_S=20 wait_for test -s "$WORK/p.sum" || fail "the host reader didn't finish"
pw=$(python3 -c "import sys; sys.path.insert(0, '$(dirname "$0")'); import tcptool; print(tcptool.stream_digest('up', 16777216))")
[ "$(cat "$WORK/p.sum")" = "16777216 $pw" ] ||
	{ tail -5 "$WORK/passt.log"; fail "passt --one-off: the host got '$(cut -c1-20 "$WORK/p.sum")'"; }
wait_for sh -c "! kill -0 $PASST_PID" || fail "passt -1 still running after the guest left"
grep -q 'ERROR: AddressSanitizer\|runtime error:' "$WORK/passt.log" && fail "sanitizer report"
log "passt --one-off guest: 16 MiB ACKed before it left arrived whole"

# 4. SIGTERM during a transfer: it completes; a second SIGTERM is at once
recv 7004 4 "$WORK/out4"
ip netns exec "$H" "$PASTA_BIN" --config-net -q -f -- sh -c \
	"socat -u OPEN:$WORK/in TCP4:$R4:7004; sleep 30" &
pp=$!
track $pp
WAIT_S=20 wait_for test -s "$WORK/out4" || fail "transfer to 7004 didn't start"
kill -TERM $pp
wait $pp
check "$WORK/out4" "SIGTERM during the transfer"
ip netns exec "$H" "$PASTA_BIN" --config-net -q -f -- sh -c "sleep 30" &
pp=$!
track $pp
sleep 0.5
kill -TERM $pp; kill -TERM $pp
t0=$(date +%s%N)
wait $pp
dt=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $dt -lt 2000 ] || fail "two SIGTERMs: exit took $dt ms"

# 5. A reader slower than the drain allows
make_file "$WORK/in2" 2
want2="$(stat -c %s "$WORK/in2") $(sum "$WORK/in2")"
bg in_host $T serve-slow-hash 7005 "$WORK/s.sum" --bind 127.0.0.1 0.1
wait_for in_host sh -c "ss -ltn | grep -q ':7005 '"
ip netns exec "$H" "$PASTA_BIN" --config-net -q -f --drain-timeout 1 -- \
	socat -u OPEN:"$WORK/in2" TCP4:$R4:7005 >"$WORK/cmd.log" 2>&1 ||
	{ cat "$WORK/cmd.log"; fail "slow reader: pasta failed"; }
WAIT_S=30 wait_for test -s "$WORK/s.sum" || fail "slow reader: no result"
[ "$(cat "$WORK/s.sum")" = "$want2" ] ||
	fail "slow reader: $(cat "$WORK/s.sum") arrived, $want2 sent"
log "a reader slower than --drain-timeout 1 got all 2 MiB"
pass "no acknowledged byte lost at exit"
