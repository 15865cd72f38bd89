#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# splice_fd_leak.sh - 10,000 short spliced connections (one in ten reset by
# the client with data in flight), plus connections to a port where nothing
# listens: pasta ends with as many fds open as it started with, and every
# connection was closed
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
N_CONN=${N_CONN:-10000}

fds() { ls "/proc/$PASTA_PID/fd" | wc -l; }

setup_topology
start_pasta -t 5301-5302 -T 5303:7303 --stats
bg in_ns $T serve-echo 5301 --bind ::
bg in_host $T serve-echo 7303 --bind ::
wait_for in_ns sh -c "ss -Hltn | grep -q ':5301 '" || fail "server in N"
wait_for in_host sh -c "ss -Hltn | grep -q ':7303 '" || fail "server in H"
fds0=$(fds)
log "pasta has $fds0 fds open"

half=$((N_CONN / 2))
in_host $T churn 127.0.0.1 5301 $half 8 || fail "host->ns churn"
in_ns $T churn ::1 5303 $((N_CONN - half)) 8 || fail "ns->host churn"
# Nothing listens on 5302 in the namespace: each one is reset
for i in $(seq 1 20); do
	in_host $T expect-rst 127.0.0.1 5302 >/dev/null ||
		fail "connection to a closed port: no reset"
done
pasta_alive

WAIT_S=5 wait_for sh -c "[ \$(ls /proc/$PASTA_PID/fd | wc -l) -eq $fds0 ]" ||
	{ ls -l /proc/$PASTA_PID/fd; fail "pasta has $(fds) fds open, $fds0 before"; }
log "pasta has $(fds) fds open again"

stop_pasta
line=$(grep 'stats: spliced flows' "$WORK/pasta.log")
log "$line"
n=$((N_CONN + 20))
echo "$line" | grep -q "spliced flows $n closed $n," ||
	fail "expected $n spliced connections opened and closed"
echo "$line" | grep -q "connect failures 20\$" ||
	fail "expected 20 refused connects"
pass "$N_CONN spliced connections, no fd left behind"
