#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stats_quiet.sh - --stats output is what the user asked for, so -q (which
# podman always passes) doesn't hide it: with -q --stats, SIGUSR1 prints the
# counters and so does exit; -q alone, SIGUSR1 prints them too.  With
# upstream's form "--stats 1", counters also come on their own, at most
# once a second, after traffic (UDP datagrams from the namespace to R)
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology

count() { grep -c "stats: tap rx" "$WORK/pasta.log"; }

PASTA_DEBUG=-q start_pasta --stats
kill -USR1 "$PASTA_PID"
wait_for grep -q "stats: tap rx" "$WORK/pasta.log" ||
	{ cat "$WORK/pasta.log"; fail "-q --stats: nothing on SIGUSR1"; }
stop_pasta
[ "$(count)" -eq 2 ] ||
	{ cat "$WORK/pasta.log"; fail "-q --stats: $(count) dumps, expected 2 (SIGUSR1, exit)"; }

PASTA_DEBUG=-q start_pasta
kill -USR1 "$PASTA_PID"
wait_for grep -q "stats: tap rx" "$WORK/pasta.log" ||
	{ cat "$WORK/pasta.log"; fail "-q: nothing on SIGUSR1"; }
stop_pasta
[ "$(count)" -eq 1 ] || fail "-q: $(count) dumps, expected 1 (no --stats at exit)"

PASTA_DEBUG=-q start_pasta --stats 1
in_ns python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for p in range(7000, 7010):
    s.sendto(b"x", ("198.51.100.3", p))
' || fail "sending"
WAIT_S=5 wait_for grep -q "stats: UDP flows [1-9]" "$WORK/pasta.log" ||
	{ cat "$WORK/pasta.log"; fail "--stats 1: no counters after traffic"; }
pasta_alive
stop_pasta
pass "--stats output with -q: SIGUSR1, exit, and every DELAY seconds"
