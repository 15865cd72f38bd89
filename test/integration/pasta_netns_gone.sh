#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_netns_gone.sh - pasta exits as soon as its target goes away, not at
# the next once-a-second check: within 0.5 s of "ip netns del" of its
# --netns namespace (inotify), and of the exit of its target PID (pidfd),
# with status 0 both times (passt.1: --no-netns-quit, by default pasta
# exits when the namespace or the target process goes away)
. "$(dirname "$0")/lib.sh"

# gone_within PID WHAT - pasta PID must end within 0.5 s, status 0
gone_within() {
	_t0=$(date +%s%N)
	WAIT_S=3 wait_for sh -c "! kill -0 $1" || fail "$2: pasta still running"
	_ms=$(( ($(date +%s%N) - _t0) / 1000000 ))
	wait $1; _rc=$?
	[ $_rc -eq 0 ] || fail "$2: exit status $_rc"
	[ $_ms -le 500 ] || fail "$2: pasta took $_ms ms to exit"
	log "$2: pasta exited after $_ms ms"
}

setup_topology
for round in 1 2 3; do
	start_pasta -t none -u none -T none -U none
	sleep 0.3
	ip netns del "$N" || fail "ip netns del"
	NAMESPACES=$(echo "$NAMESPACES" | sed "s/ $N//")
	gone_within $PASTA_PID "--netns deleted ($round)"
	PASTA_PID=""
done

in_host unshare -n sleep 2 &
sp=$!; track $sp
wait_for test -e /proc/$sp/ns/net || fail "no target process"
ip netns exec "$H" "$PASTA_BIN" -f -q --config-net -t none -u none -T none \
	-U none $sp >"$WORK/p.log" 2>&1 &
pp=$!; track $pp
sleep 1
kill -0 $pp 2>/dev/null || { cat "$WORK/p.log"; fail "PID target: pasta didn't start"; }
kill $sp
gone_within $pp "target PID exited"
pass "pasta exits within 0.5 s of its namespace or target process"
