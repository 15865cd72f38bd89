#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# isolation_seccomp.sh - A system call off the list kills the daemon
#
# With the hidden --seccomp-selftest option, SIGUSR2 makes the daemon call
# personality(), which no rule allows.  Before that it must work normally;
# then the kernel must kill it with SIGSYS (exit status 128 + 31 as the
# shell reports it, signal(7)), both in pasta and in passt mode.  Release
# build only: sanitizer builds log violations instead (passt/isolation.c).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_isolation.sh"

SIGSYS_STATUS=159	# 128 + SIGSYS (31 on x86 and most architectures)

setup_topology
grep -q __asan_init "$PASST_BIN" &&
	skip "sanitizer build: the filter only logs there"

start_pasta --seccomp-selftest
pid=$PASTA_PID
expect_isolated $pid $CAP_NONE
in_ns ping -c1 -W5 $R4 >/dev/null || fail "ping before the self-test"
pasta_alive

kill -USR2 $pid
WAIT_S=10 wait_for sh -c "! kill -0 $pid" || fail "still running after the forbidden call"
wait $pid; rc=$?
PASTA_PID=""
grep -q "seccomp self-test: calling personality()" "$WORK/pasta.log" ||
	{ cat "$WORK/pasta.log"; fail "the self-test didn't run"; }
grep -q "not stopped" "$WORK/pasta.log" && fail "personality() returned"
[ $rc -eq $SIGSYS_STATUS ] || { cat "$WORK/pasta.log"; fail "pasta: exit status $rc, expected $SIGSYS_STATUS (SIGSYS)"; }
log "pasta killed by SIGSYS"

# passt: the same with its own list
sock="$WORK/passt.socket"
ip netns exec "$H" "$PASST_BIN" -f --seccomp-selftest -s "$sock" \
	>"$WORK/passt.log" 2>&1 &
pid=$!; track $pid
expect_isolated $pid $CAP_NONE
kill -USR2 $pid
WAIT_S=10 wait_for sh -c "! kill -0 $pid" || fail "passt: still running"
wait $pid; rc=$?
[ $rc -eq $SIGSYS_STATUS ] || { cat "$WORK/passt.log"; fail "passt: exit status $rc, expected $SIGSYS_STATUS (SIGSYS)"; }
log "passt killed by SIGSYS"

pass "a forbidden system call after set-up kills the daemon (SIGSYS)"
