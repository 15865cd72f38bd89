#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_accept_burst.sh - a burst of connections to a forwarded port (-t) while
# pasta can't run (stopped with SIGSTOP, as a busy or descheduled daemon
# is) waits in the kernel's accept queue, not in SYN retransmissions: 300
# connect()s each complete within 3 s, none overflows the listener
# (TcpExtListenOverflows stays 0), and once pasta runs again all 300 carry
# 64 KiB each, sha256-checked.  The kernel caps a listen() backlog at
# net.core.somaxconn (Documentation/networking/ip-sysctl.rst, default 4096);
# a backlog of 128 drops the 129th handshake and the peer backs off for up
# to a minute (tcp_synack_retries, tcp_syn_retries).
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
COUNT=300
setup_topology
start_pasta -t 6100
bg in_ns $T serve-pattern 6100 --bind ::
wait_for in_ns sh -c "ss -ltn | grep -q ':6100 '"
in_host nstat -n >/dev/null

kill -STOP "$PASTA_PID" || fail "SIGSTOP pasta"
in_remote $T concurrent $H4 6100 $COUNT 65536 3 >"$WORK/burst" 2>&1 &
C=$!
track $C
WAIT_S=60 wait_for sh -c "grep -q 'connected\|tcptool:' '$WORK/burst'"
kill -CONT "$PASTA_PID"
overflows=$(in_host nstat -az TcpExtListenOverflows | awk '/TcpExtListenOverflows/ { print $2 }')
grep -q "^$COUNT connected" "$WORK/burst" ||
	{ cat "$WORK/burst"; fail "$COUNT connect()s to a stopped pasta: not all within 3 s (listen overflows: $overflows)"; }
[ "$overflows" = 0 ] || fail "TcpExtListenOverflows on the host: $overflows"
log "$COUNT connections queued while pasta was stopped, no listen overflow"

wait $C || { cat "$WORK/burst"; fail "data after SIGCONT"; }
grep -q "^$COUNT connections x 65536 bytes intact" "$WORK/burst" ||
	{ cat "$WORK/burst"; fail "not every connection intact"; }
pasta_alive
pass "$COUNT queued connections served, each 64 KiB intact"
