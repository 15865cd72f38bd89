#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ports_auto_lo.sh - "-t auto" with --host-lo-to-ns-lo forwards a namespace
# server bound to 127.0.0.1 from the host's 127.0.0.1, as trixie's passt
# does (rootlesskit 2.3 runs pasta so); without the option it stays
# unforwarded.  4 MiB through the port, sha256 compared.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
make_file "$WORK/data" 4
want=$(sum "$WORK/data")

# serve - one-shot server on the namespace's 127.0.0.1:5400
serve() {
	rm -f "$WORK/out"
	bg in_ns socat -u TCP4-LISTEN:5400,bind=127.0.0.1,reuseaddr \
		OPEN:"$WORK/out",creat,trunc
	SRV=$BG_PID
	wait_for in_ns sh -c "ss -Hltn | grep -q '127.0.0.1:5400 '" ||
		fail "no server in N"
}

start_pasta -t auto --host-lo-to-ns-lo
serve
WAIT_S=5 wait_for in_host sh -c "ss -Hltn | grep -q ':5400 '" ||
	{ cat "$WORK/pasta.log"; fail "--host-lo-to-ns-lo: 5400 not forwarded within 5 s"; }
in_host socat -u OPEN:"$WORK/data" TCP4:127.0.0.1:5400 ||
	fail "--host-lo-to-ns-lo: connection from the host's loopback"
WAIT_S=20 wait_for sh -c "! kill -0 $SRV" || fail "server still running"
[ "$(sum "$WORK/out")" = "$want" ] ||
	fail "$(stat -c %s "$WORK/out") of 4 MiB arrived"
log "ok: --host-lo-to-ns-lo: 4 MiB from the host's 127.0.0.1"
stop_pasta

start_pasta -t auto
serve
sleep 3		# three scans
in_host ss -Hltn | grep -q ':5400 ' &&
	fail "without --host-lo-to-ns-lo, a loopback-only server was forwarded"
kill $SRV 2>/dev/null
stop_pasta
pass "auto with --host-lo-to-ns-lo forwards a namespace loopback server"
