#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_target_exit.sh - pasta attached to the namespace of a process (PID
# argument, or --netns /proc/PID/ns/net) exits with status 0 once that
# process has exited, even while nobody has reaped it yet
#
# Expected values: passt.1 (--no-netns-quit: by default pasta exits when the
# target process exits); proc(5) for /proc/PID/ns/net.
. "$(dirname "$0")/lib.sh"

setup_topology
for form in pid path; do
	# a process in its own network namespace, for 3 s
	in_host unshare -n sleep 3 &
	sp=$!
	track $sp
	wait_for test -e /proc/$sp/ns/net || fail "no target process"
	if [ $form = pid ]; then
		target=$sp
	else
		target="--netns /proc/$sp/ns/net"
	fi
	ip netns exec "$H" "$PASTA_BIN" -f -q --config-net $target \
		>"$WORK/p.log" 2>&1 &
	pp=$!
	track $pp
	sleep 1
	kill -0 $pp 2>/dev/null || { cat "$WORK/p.log"; fail "$form: pasta didn't start"; }
	# the test shell doesn't reap the target until "wait": it stays a zombie
	WAIT_S=8 wait_for sh -c "! kill -0 $pp" ||
		fail "$form: pasta still running after the target exited"
	wait $pp; rc=$?
	[ $rc = 0 ] || { cat "$WORK/p.log"; fail "$form: exit status $rc"; }
	wait $sp
done
pass "pasta exits with its target process (PID and /proc/PID/ns/net)"
