#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sockfile_race.sh - passt started as root creates its socket files (-s and
# -c) in a directory the --runas user may write to, while that user swaps a
# symbolic link to a root-owned file in for them as fast as it can
# (sockracer.c, by rename(), whenever a name is a socket): over many
# starts, the link's target keeps its owner (0:0) and mode (0644).  Issue
# 26 item 1: chmod() and chown() by path after bind() handed the target to
# the user, mode 0600.  Without the racer, the files are sockets of the
# --runas user (65534, the default when started as root), -c with mode
# 0600 (passt.1), and no private directory is left behind.  Then once
# with owner and mode changes held 0.3 s by strace, so that a change by
# path after bind() fails the test on every machine, not by chance.
#
# Expected values: rename(2) replaces the entry atomically; chown(2) and
# chmod(2) follow a symbolic link, lchown()/AT_SYMLINK_NOFOLLOW don't;
# nobody is 65534 (passt.1, --runas).
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
D="$WORK/d"
mkdir "$D" && chown 65534:65534 "$D" && chmod 755 "$D" || fail "mkdir"
printf 'precious\n' > "$WORK/victim"
chmod 644 "$WORK/victim"
want="0:0 644"

# start_once - start passt with both sockets in $D, wait until set-up is
# over (seccomp filter on) or it exits, stop it
start_once() {
	rm -f "$D/p.sock" "$D/c.sock"
	ip netns exec "$H" "$PASST_BIN" -f -q -s "$D/p.sock" -c "$D/c.sock" \
		>"$WORK/passt.log" 2>&1 &
	_p=$!
	_i=0
	while [ $_i -lt 100 ] && kill -0 $_p 2>/dev/null &&
	      ! grep -q '^Seccomp:[[:space:]]*2' /proc/$_p/status 2>/dev/null; do
		sleep 0.05; _i=$((_i + 1))
	done
	kill $_p 2>/dev/null
	wait $_p 2>/dev/null
}

# Plain start, no racer: owner and modes
ip netns exec "$H" "$PASST_BIN" -f -q -s "$D/p.sock" -c "$D/c.sock" >"$WORK/passt.log" 2>&1 &
pid=$!
track $pid
wait_for test -S "$D/c.sock" || { cat "$WORK/passt.log"; fail "no -c socket"; }
wait_for test -S "$D/p.sock" || { cat "$WORK/passt.log"; fail "no -s socket"; }
[ "$(stat -c '%u:%g %a' "$D/c.sock")" = "65534:65534 600" ] ||
	fail "-c socket: $(stat -c '%u:%g %a' "$D/c.sock"), expected 65534:65534 600"
[ "$(stat -c %u "$D/p.sock")" = 65534 ] ||
	fail "-s socket owned by $(stat -c %u "$D/p.sock"), expected 65534"
# shellcheck disable=SC2010 # any hidden name
ls -A "$D" | grep -q '^\.' && { ls -la "$D"; fail "private directory left"; }
kill $pid; wait $pid
log "plain start: sockets of 65534, -c mode 600, nothing else in the directory"

# Many starts against the racer (bounded in count and time)
RACE_S=${RACE_S:-12}
${CC:-cc} -O2 -D_GNU_SOURCE -o "$WORK/sockracer" "$(dirname "$0")/sockracer.c" ||
	fail "can't build sockracer.c"
setpriv --reuid 65534 --regid 65534 --clear-groups \
	"$WORK/sockracer" "$D" "$WORK/victim" "$RACE_S" p.sock c.sock \
	> "$WORK/swaps" &
racer=$!
track $racer
starts=0
end=$(( $(date +%s) + RACE_S - 2 ))
while [ $starts -lt 60 ] && [ "$(date +%s)" -lt $end ]; do
	start_once
	starts=$((starts + 1))
	got=$(stat -c '%u:%g %a' "$WORK/victim")
	[ "$got" = "$want" ] ||
		fail "start $starts: the link's target is now $got (was $want)"
done
wait $racer
swaps=$(cat "$WORK/swaps")
log "$starts starts, $swaps swaps by the racer"
[ "${swaps:-0}" -gt 0 ] || fail "the racer never swapped a link in: test proves nothing"
[ "$(cat "$WORK/victim")" = precious ] || fail "target content changed"
log "$starts starts against the racer: target kept owner and mode"

# The window between bind() and a change by path is microseconds: the
# racer may miss it on a given machine.  So once more with every system
# call that changes an owner or a mode held 0.3 s at its entry (strace's
# syscall fault injection, delay_enter in microseconds, strace(1)): a
# change by path after bind() then always loses to the racer, one by
# descriptor or in our private directory doesn't
if command -v strace >/dev/null; then
	setpriv --reuid 65534 --regid 65534 --clear-groups \
		"$WORK/sockracer" "$D" "$WORK/victim" 6 p.sock c.sock \
		> "$WORK/swaps" &
	racer=$!
	track $racer
	rm -f "$D/p.sock" "$D/c.sock"
	ip netns exec "$H" strace -f -qq -o /dev/null \
		-e trace=chmod,fchmod,fchmodat,chown,fchown,fchownat,lchown \
		-e inject=chmod,fchmod,fchmodat,chown,fchown,fchownat,lchown:delay_enter=300000 \
		"$PASST_BIN" -f -q -s "$D/p.sock" -c "$D/c.sock" >"$WORK/passt.log" 2>&1 &
	_p=$!
	track $_p
	WAIT_S=5 wait_for sh -c "[ -S '$D/c.sock' ] || [ -S '$D/p.sock' ] || ! kill -0 $_p"
	sleep 1.5
	# passt, strace's child, ends; strace follows
	# shellcheck disable=SC2013 # PIDs, space-separated on one line
	for _c in $(cat /proc/$_p/task/*/children 2>/dev/null); do
		kill $_c 2>/dev/null
	done
	WAIT_S=5 wait_for sh -c "! kill -0 $_p"
	kill $_p 2>/dev/null
	wait $_p 2>/dev/null
	wait $racer
	got=$(stat -c '%u:%g %a' "$WORK/victim")
	[ "$got" = "$want" ] ||
		fail "changes held 0.3 s: the link's target is now $got (was $want), $(cat "$WORK/swaps") swaps"
	log "changes held 0.3 s at entry: target kept owner and mode, $(cat "$WORK/swaps") swaps"
else
	log "strace not installed: no run with delayed changes"
fi
pass "target kept owner and mode over $starts starts and $swaps swaps"
