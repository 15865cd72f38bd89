#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stdio_closed.sh - passt and pasta started with standard descriptors closed
# (as some supervisors and nohup-like wrappers do) still work: the daemon
# stays up and serves a guest, the PID file holds only the PID, the log goes
# only to the log file.
#
# Expected values: open(3p) (the lowest free descriptor is taken, so without
# care the first files opened become 0-2); passt.1 (-P writes the PID, one
# decimal number and a newline); RFC 2131 (a DHCPACK answers the lease).
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology

# check_pidfile FILE WHAT - FILE holds exactly one line, a decimal number;
# prints it
check_pidfile() {
	wait_for test -s "$1" || fail "$2: no PID file"
	sleep 0.2	# the parent writes it, then exits
	[ "$(wc -l < "$1")" = 1 ] || { cat "$1"; fail "$2: PID file is not one line"; }
	grep -Eqx '[0-9]+' "$1" || { cat "$1"; fail "$2: PID file holds more than a PID"; }
	cat "$1"
}

# A: stdout and stderr closed; B: all three closed
for what in "out-err" "in-out-err"; do
	S="$WORK/$what.sock"
	P="$WORK/$what.pid"
	L="$WORK/$what.log"
	case $what in
	out-err) ip netns exec "$H" "$PASST_BIN" -d -P "$P" -s "$S" -l "$L" \
		>&- 2>&- ;;
	*) ip netns exec "$H" "$PASST_BIN" -d -P "$P" -s "$S" -l "$L" \
		<&- >&- 2>&- ;;
	esac
	rc=$?
	[ $rc = 0 ] || fail "$what: passt exited with $rc while detaching"
	pid=$(check_pidfile "$P" "$what")
	track $pid
	# up for a while (it used to exit within a second)...
	sleep 1.5
	kill -0 "$pid" 2>/dev/null || { cat "$L"; fail "$what: passt (PID $pid) exited"; }
	# ...and serving a guest
	out=$(ip netns exec "$H" python3 "$(dirname "$0")/passt_client.py" lease "$S") ||
		{ cat "$L"; fail "$what: no DHCP lease: $out"; }
	echo "$out" | grep -q '^address ' || fail "$what: no address in the lease: $out"
	grep -q "socket bound at $S" "$L" || { cat "$L"; fail "$what: log file lacks the start-up lines"; }
	stop_daemon "$pid" "$L" "passt ($what)"
	log "$what: passt $pid stayed up, served a lease, PID file and log intact"
done

# C: pasta, all three closed, foreground
make_target_ns
P="$WORK/pasta.pid"
L="$WORK/pasta-closed.log"
ip netns exec "$H" "$PASTA_BIN" -f -d --config-net -P "$P" -l "$L" \
	--netns "/run/netns/$N" <&- >&- 2>&- &
pp=$!
track $pp
pid=$(check_pidfile "$P" pasta)
[ "$pid" = "$pp" ] || fail "pasta: PID file says $pid, pasta is $pp"
wait_for sh -c "ip -n $N -o addr show | grep -q 'inet .*global'" ||
	{ cat "$L"; fail "pasta did not configure $N"; }
kill -0 "$pp" 2>/dev/null || { cat "$L"; fail "pasta exited"; }
grep -q . "$L" || fail "pasta: empty log file"
stop_daemon "$pp" "$L" pasta
pass "standard descriptors closed: passt and pasta work, PID file and log intact"
