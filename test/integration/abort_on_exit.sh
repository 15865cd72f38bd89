#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# abort_on_exit.sh - when pasta exits with connections still open, their host
# peers see a reset, not the end of a complete stream: spliced -t and -T
# connections, and a tap-path connection of a -t port
#
# Expected values: RFC 9293 3.6 (ABORT is signalled with RST, CLOSE with
# FIN); ECONNRESET is what the real kernel reports to the receiving peer.
# asan: yes
. "$(dirname "$0")/lib.sh"

TT="python3 $(dirname "$0")/tcptool.py"
setup_topology
start_pasta -t 9014,9200 -T 9104

bg in_ns $TT serve-source 9014				# host lo -> -t: spliced
bg in_host $TT serve-source 9104 --bind 127.0.0.1	# ns lo -> -T: spliced
bg in_ns $TT serve-source 9200				# R -> -t: tap path
wait_for in_ns sh -c "ss -ltn | grep -q ':9014 '"
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:9104 '"
wait_for in_ns sh -c "ss -ltn | grep -q ':9200 '"
bg in_host $TT sink-expect-rst 127.0.0.1 9014 "$WORK/r1"; S1=$BG_PID
bg in_ns $TT sink-expect-rst 127.0.0.1 9104 "$WORK/r2"; S2=$BG_PID
bg in_remote $TT sink-expect-rst $H4 9200 "$WORK/r3"; S3=$BG_PID
for f in r1 r2 r3; do
	wait_for test -e "$WORK/$f" || { cat "$WORK/pasta.log"; fail "transfer $f didn't start"; }
done

kill -TERM "$PASTA_PID"
wait "$PASTA_PID" || fail "pasta exit status $? after SIGTERM"
PASTA_PID=""
wait $S1 || fail "host peer of a spliced -t connection saw a clean end"
wait $S2 || fail "namespace peer of a spliced -T connection saw a clean end"
wait $S3 || fail "remote peer of a tap-path -t connection saw a clean end"
pass "open connections reset on exit"
