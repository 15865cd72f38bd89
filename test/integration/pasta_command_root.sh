#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_command_root.sh - pasta started as root runs COMMAND as root and
# goes on as nobody: the command must still end with pasta (SIGTERM, SIGINT,
# SIGHUP), and pasta exits with the command's status
#
# Expected values: exit status of sh -c 'exit 7' is 7; a process killed by
# SIGTERM reports 128 + 15 (shell convention); a command that exists but
# can't be executed 126, one not found 127 (POSIX shell, 2.8.2).
. "$(dirname "$0")/lib.sh"

setup_topology

for sig in TERM INT HUP; do
	rm -f "$WORK/cmd.pid"
	ip netns exec "$H" "$PASTA_BIN" --quiet -f -- \
		sh -c "echo \$\$ > $WORK/cmd.pid; exec sleep 30" &
	pp=$!
	track $pp
	wait_for test -s "$WORK/cmd.pid" || fail "command didn't start"
	cmd=$(cat "$WORK/cmd.pid")
	track "$cmd"
	[ "$(stat -c %u /proc/"$cmd")" = 0 ] || fail "command not root"
	kill -$sig $pp
	wait $pp
	WAIT_S=5 wait_for sh -c "! kill -0 $cmd" ||
		fail "command still running after SIG$sig to pasta"
done

rc=0; ip netns exec "$H" "$PASTA_BIN" --quiet -f -- sh -c 'exit 7' || rc=$?
[ $rc = 7 ] || fail "exit status $rc, expected 7"
rc=0; ip netns exec "$H" "$PASTA_BIN" --quiet -f -- sh -c 'kill -TERM $$' || rc=$?
[ $rc = 143 ] || fail "exit status $rc, expected 143"
echo data > "$WORK/noexec"; chmod 644 "$WORK/noexec"
rc=0; ip netns exec "$H" "$PASTA_BIN" --quiet -f -- "$WORK/noexec" 2>/dev/null || rc=$?
[ $rc = 126 ] || fail "non-executable: exit status $rc, expected 126"
rc=0; ip netns exec "$H" "$PASTA_BIN" --quiet -f -- /nonexistent/cmd 2>/dev/null || rc=$?
[ $rc = 127 ] || fail "not found: exit status $rc, expected 127"
pass "command ends with pasta; exit status passed on"
