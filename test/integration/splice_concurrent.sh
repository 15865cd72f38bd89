#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# splice_concurrent.sh - 100 concurrent spliced connections carrying 4 MiB
# each, host -> namespace (-t) and namespace -> host (-T), every stream
# verified by sha256; afterwards pasta has as many fds open as before
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
N_CONN=${N_CONN:-100}
SIZE=${SIZE:-4194304}

# fds - number of open fds of pasta
fds() { ls "/proc/$PASTA_PID/fd" | wc -l; }

setup_topology
start_pasta -t 5201 -T 5202:7202 --stats
bg in_ns $T serve-pattern 5201 --bind ::
bg in_host $T serve-pattern 7202 --bind 127.0.0.1
wait_for in_ns sh -c "ss -Hltn | grep -q ':5201 '" || fail "server in N"
wait_for in_host sh -c "ss -Hltn | grep -q ':7202 '" || fail "server in H"
fds0=$(fds)
log "pasta has $fds0 fds open"

in_host $T concurrent 127.0.0.1 5201 "$N_CONN" "$SIZE" ||
	fail "host->ns: $N_CONN x $SIZE bytes"
in_host $T concurrent ::1 5201 "$N_CONN" "$SIZE" ||
	fail "host->ns IPv6: $N_CONN x $SIZE bytes"
in_ns $T concurrent 127.0.0.1 5202 "$N_CONN" "$SIZE" ||
	fail "ns->host: $N_CONN x $SIZE bytes"
pasta_alive

# Pools refill after the last close: give them a moment
WAIT_S=5 wait_for sh -c "[ \$(ls /proc/$PASTA_PID/fd | wc -l) -eq $fds0 ]" ||
	fail "pasta has $(fds) fds open, $fds0 before"
log "pasta has $(fds) fds open again"

stop_pasta
line=$(grep 'stats: spliced flows' "$WORK/pasta.log")
log "$line"
echo "$line" | grep -q "spliced flows $((N_CONN * 3)) closed $((N_CONN * 3))," ||
	fail "expected $((N_CONN * 3)) spliced connections"
pass "$N_CONN concurrent spliced connections x $SIZE bytes, three ways, no fd left behind"
