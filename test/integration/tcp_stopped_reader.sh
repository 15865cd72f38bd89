#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_stopped_reader.sh - A reader in the namespace stopped and continued
# ten times (SIGSTOP, SIGCONT) during a 256 MiB transfer into it from a
# remote peer through -t: its window closes and opens again each time
# (zero-window probes, RFC 9293 3.8.6.1, then the guest's window update),
# the transfer completes intact, and pasta uses almost no CPU while the
# reader is stopped.
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
HZ=$(getconf CLK_TCK)
setup_topology
make_file "$WORK/in" 256
want=$(sum "$WORK/in")

# cpu PID - user + system time of PID, in clock ticks
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

for mode in "" "--no-peek-offset"; do
	rm -f "$WORK/out.sum"
	start_pasta -t 6500 $mode
	bg in_ns $T serve-slow-hash 6500 "$WORK/out.sum" 0.0003 --bind ::
	reader=$BG_PID
	wait_for in_ns sh -c "ss -ltn | grep -q ':6500 '"
	bg in_remote socat -u OPEN:"$WORK/in" TCP4:$H4:6500
	sender=$BG_PID

	stopped_ticks=0; k=0
	while [ $k -lt 10 ] && kill -0 $sender 2>/dev/null; do
		sleep 0.15
		kill -STOP $reader
		sleep 0.15		# the window closes
		c0=$(cpu $PASTA_PID)
		sleep 0.3
		c1=$(cpu $PASTA_PID)
		kill -CONT $reader
		stopped_ticks=$((stopped_ticks + c1 - c0))
		k=$((k + 1))
	done
	WAIT_S=60 wait_for test -s "$WORK/out.sum" || fail "transfer stalled ($mode)"
	[ "$(cat "$WORK/out.sum")" = "$((256 << 20)) $want" ] ||
		fail "got '$(cut -c1-30 "$WORK/out.sum")' ($mode)"
	# At most 10% of one CPU while the reader was stopped
	limit=$(( k * HZ * 3 / 10 / 10 + 1 ))
	[ $stopped_ticks -le $limit ] ||
		fail "pasta used $stopped_ticks ticks in $k stops of 0.3 s ($mode)"
	log "${mode:-SO_PEEK_OFF}: $k stops, 256 MiB intact, $stopped_ticks ticks while stopped (limit $limit)"
	pasta_alive
	stop_pasta
	for p in $PIDS; do kill $p 2>/dev/null; done
done
pass "stopped and continued reader: transfer intact, daemon idle while stopped"
