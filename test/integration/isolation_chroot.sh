#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# isolation_chroot.sh - --chroot-fallback: pasta started in a chroot(2),
# whose root is no mount point, can't pivot_root(2) (EINVAL, pivot_root(2)
# ERRORS): without the option the file system stays reachable, with a
# warning; with it, the root directory becomes the empty one all the same
# (passt.1, SECURITY).  The chroot is a plain directory with the host's
# directories bind-mounted in it, in a mount namespace of its own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_isolation.sh"

setup_topology
make_target_ns
D="$WORK/root"
mkdir -p "$D"
for d in usr etc dev proc run tmp sys work var; do mkdir -p "$D/$d"; done
for l in bin lib lib64 sbin; do [ -L /$l ] && ln -s "$(readlink /$l)" "$D/$l"; done
bindir=$(cd "$(dirname "$PASST_BIN")" && pwd)
mkdir -p "$D$bindir"

# run_chroot LOG OPTS... - pasta in the chroot, in the background: PASTA_PID
run_chroot() {
	_log=$1; shift
	rm -f "$WORK/pid"
	ip netns exec "$H" unshare -m sh -c "
		for d in usr etc dev proc run sys var; do mount --rbind /\$d '$D'/\$d; done
		mount --bind '$bindir' '$D$bindir'
		exec chroot '$D' '$bindir/pasta' -f -d -t none -u none -T none -U none \
			--netns /run/netns/$N --pid /tmp/pid $*" >"$_log" 2>&1 &
	PASTA_PID=$!; track $PASTA_PID
	wait_for sh -c "grep -q 'Seccomp:[[:space:]]*2' /proc/$PASTA_PID/status" ||
		{ cat "$_log"; fail "pasta in the chroot: no seccomp filter"; }
}

run_chroot "$WORK/plain.log"
root=$(ls -A "/proc/$PASTA_PID/root/" 2>&1)
[ -n "$root" ] || fail "without --chroot-fallback: root directory empty"
grep -q "can't switch to an empty root directory" "$WORK/plain.log" ||
	{ cat "$WORK/plain.log"; fail "without --chroot-fallback: no warning"; }
kill $PASTA_PID; wait $PASTA_PID

run_chroot "$WORK/fallback.log" --chroot-fallback
expect_isolated $PASTA_PID $CAP_NONE
grep -q "can't switch to an empty root directory" "$WORK/fallback.log" &&
	{ cat "$WORK/fallback.log"; fail "--chroot-fallback: still the warning"; }
kill $PASTA_PID; wait $PASTA_PID; rc=$?
[ $rc -eq 0 ] || { cat "$WORK/fallback.log"; fail "exit status $rc"; }
PASTA_PID=""
pass "--chroot-fallback: empty root directory where pivot_root() fails"
