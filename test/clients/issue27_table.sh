#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/clients/issue27_table.sh - every port spec form and option of issue
# 27, run against several builds of passt/pasta/pesto, one row per case,
# one column per build (the table of test/clients/ISSUE27.md)
#
# Usage (root): issue27_table.sh LABEL=DIR...
#   DIR holds passt, pasta and pesto of one build (ours before issue 27,
#   ours now, upstream's).  UPSTREAM_PESTO (default: the DIR labelled
#   "upstream") drives each pasta through -c as well as the build's own.
#
# Scratch topology of test/integration/lib.sh: pasta runs in H, attached
# to a fresh namespace N per case; R is the remote peer.  The namespace
# has 192.0.2.5/32 on its loopback device for the target address forms.  Data
# checks move 256 KiB and compare sha256.  Nothing leaves the machine.
# Upstream's pasta gets --runas 0 (see below).
# Not in make check: a reference run of three builds, not a test.

first=${1#*=}
PASST_BIN=$first/passt
. "$(dirname "$0")/../integration/lib.sh"
all_cleanup() {
	NAMESPACES="$NAMESPACES $(cat "$WORK/nslist" 2>/dev/null)"
	cleanup
}
trap all_cleanup EXIT INT TERM

UPSTREAM_PESTO=${UPSTREAM_PESTO:-}
for a in "$@"; do
	[ "${a%%=*}" = upstream ] && : "${UPSTREAM_PESTO:=${a#*=}/pesto}"
done
setup_topology
head -c 262144 /dev/urandom > "$WORK/data"
want=$(sum "$WORK/data")

# fresh_ns - a new target namespace N (lo up with 192.0.2.5/32 on it); run
# in a subshell, so the names go to files that the exit trap reads
fresh_ns() {
	K=$(($(cat "$WORK/k" 2>/dev/null || echo 0) + 1))
	echo $K > "$WORK/k"
	N=n-$TEST_ID-$K
	ip netns add "$N"
	echo "$N" >> "$WORK/nslist"
	ip -n "$N" link set lo up
	ip -n "$N" addr add 192.0.2.5/32 dev lo
}

# up ARGS... - pasta of $D in H into a fresh N; 0 if it runs, else MSG
# holds its last line
up() {
	fresh_ns
	rm -f "$WORK/pid"
	ip netns exec "$H" "$D/pasta" -f --config-net $EXTRA "$@" --pid "$WORK/pid" \
		--netns "/run/netns/$N" >"$WORK/log" 2>&1 &
	PP=$!
	i=0
	while [ $i -lt 150 ] && [ ! -s "$WORK/pid" ] && kill -0 $PP 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	if [ -s "$WORK/pid" ] && kill -0 $PP 2>/dev/null; then
		wait_for sh -c "ip -n $N -o addr show | grep -q 'inet .*global'"
		return 0
	fi
	kill $PP 2>/dev/null
	wait $PP 2>/dev/null
	MSG=$(grep -v -e '^$' -e '^ ' "$WORK/log" | grep -i -m1 -e error -e invalid -e refus -e accept -e "can't" -e not -e fail -e usage ||
	      grep -v '^$' "$WORK/log" | tail -n 1)
	MSG="refused: \"$(echo "$MSG" | cut -c1-110 | tr '|' '/')\""
	return 1
}
down() { kill $PP 2>/dev/null; wait $PP 2>/dev/null; }

# xfer FROM DST PORT LISTEN - 256 KiB from FROM (in_remote, in_host) to
# DST:PORT, received by a socat LISTEN address in N; 0 if intact
xfer() {
	rm -f "$WORK/got"
	ip netns exec "$N" timeout 8 socat -u "$4",reuseaddr OPEN:"$WORK/got",creat,trunc &
	_s=$!
	if [ -n "${WAITH:-}" ]; then
		WAIT_S=4 wait_for sh -c "[ -n \"\$(ip netns exec $H ss -Hltn 'sport = :$WAITH')\" ]"
	else
		sleep 0.3
	fi
	$1 timeout 5 socat -u OPEN:"$WORK/data" "TCP:$2:$3" 2>/dev/null
	wait $_s 2>/dev/null
	[ -f "$WORK/got" ] && [ "$(sum "$WORK/got")" = "$want" ]
}
ok() { if "$@"; then printf 'data ok'; else printf 'data FAIL'; fi; }

# hlisten PORT - local addresses H listens on at TCP PORT, space-separated
hlisten() {
	in_host ss -Hltn "sport = :$1" | awk '{ print $4 }' | tr '\n' ' ' | sed 's/ $//'
}

# pesto_try PESTO WHAT - pesto --add -t 0.0.0.0/5891 -t [::]/5891 through
# -c, then show; says whether pasta took it
pesto_try() {
	if [ ! -x "$1" ]; then printf '%s: n/a' "$2"; return; fi
	timeout 5 "$1" --add -t 0.0.0.0/5891 -t "[::]/5891" "$WORK/ctl" >"$WORK/p" 2>&1
	_rc=$?
	if [ $_rc -eq 0 ] && [ -n "$(hlisten 5891)" ]; then
		printf '%s: ok (%s)' "$2" "$(hlisten 5891)"
	else
		printf '%s: fail rc %s "%s"' "$2" $_rc "$(grep -v '^$' "$WORK/p" | head -n 1 | cut -c1-70 | tr '|' '/')"
	fi
	timeout 5 "$1" --delete -t 0.0.0.0/5891 -t "[::]/5891" "$WORK/ctl" >/dev/null 2>&1
}

# gone_time - seconds (0.1 s steps, up to 10) until pasta $PP exits
gone_time() {
	i=0
	while daemon_running $PP && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	wait $PP 2>/dev/null
	echo "$((i / 10)).$((i % 10)) s"
}

NONE="-u none -T none -U none"
run_case() {
	case $1 in
	bracket_any)
		up -t "[::]/5801" $NONE || { echo "$MSG"; return; }
		echo "$(hlisten 5801), $(ok xfer in_remote "[$H6]" 5801 TCP6-LISTEN:5801)"; down ;;
	bracket_addr)
		up -t "[$H6]/5802" $NONE || { echo "$MSG"; return; }
		echo "$(hlisten 5802), $(ok xfer in_remote "[$H6]" 5802 TCP6-LISTEN:5802)"; down ;;
	bracket_if)
		up -t "[$H6]%h0/5803" $NONE || { echo "$MSG"; return; }
		echo "$(hlisten 5803), $(ok xfer in_remote "[$H6]" 5803 TCP6-LISTEN:5803)"; down ;;
	star)
		up -t "*/5804" $NONE || { echo "$MSG"; return; }
		echo "$(hlisten 5804), v4 $(ok xfer in_remote $H4 5804 TCP6-LISTEN:5804), v6 $(ok xfer in_remote "[$H6]" 5804 TCP6-LISTEN:5804)"; down ;;
	target)
		up -t 0.0.0.0/5805:192.0.2.5/6805 $NONE || { echo "$MSG"; return; }
		echo "$(hlisten 5805), to 192.0.2.5:6805 $(ok xfer in_remote $H4 5805 TCP4-LISTEN:6805,bind=192.0.2.5)"; down ;;
	target_range)
		up -t 5810-5811:192.0.2.5/6810-6811 $NONE || { echo "$MSG"; return; }
		echo "$(hlisten 5811); 5811 to 192.0.2.5:6811 over IPv4 $(ok xfer in_remote $H4 5811 TCP4-LISTEN:6811,bind=192.0.2.5), over IPv6 $(ok xfer in_remote "[$H6]" 5811 TCP4-LISTEN:6811,bind=192.0.2.5)"; down ;;
	target_range4)
		up -t 0.0.0.0/5812-5813:192.0.2.5/6812-6813 $NONE || { echo "$MSG"; return; }
		echo "5813 to 192.0.2.5:6813 $(ok xfer in_remote $H4 5813 TCP4-LISTEN:6813,bind=192.0.2.5)"; down ;;
	all_target4)
		up -t 0.0.0.0/all:192.0.2.5 $NONE || { echo "$MSG"; return; }
		echo "2001 to 192.0.2.5:2001 $(ok xfer in_remote $H4 2001 TCP4-LISTEN:2001,bind=192.0.2.5)"; down ;;
	all_target)
		up -t all:192.0.2.5 $NONE || { echo "$MSG"; return; }
		echo "2000 to 192.0.2.5:2000 $(ok xfer in_remote $H4 2000 TCP4-LISTEN:2000,bind=192.0.2.5)"; down ;;
	ns_target)
		up -t none -T 5830:192.0.2.5/6830 -u none -U none || { echo "$MSG"; return; }
		echo "accepted"; down ;;
	range_auto)
		up -t 5840-5842,auto $NONE || { echo "$MSG"; return; }
		ip netns exec "$N" timeout 8 socat -u TCP6-LISTEN:5850,reuseaddr - >/dev/null &
		_a=$!
		_d=$(WAITH=5841 ok xfer in_remote $H4 5841 TCP6-LISTEN:5841)
		echo "N binds 5841 and 5850: H 5841 $_d; H 5850 [$(hlisten 5850)]; H 5840 (unbound in N) [$(hlisten 5840)]"
		kill $_a 2>/dev/null; wait $_a 2>/dev/null; down ;;
	addr_auto)
		up -t 127.0.0.1/auto $NONE || { echo "$MSG"; return; }
		ip netns exec "$N" timeout 8 socat -u TCP6-LISTEN:5860,reuseaddr - >/dev/null &
		_a=$!
		WAIT_S=4 wait_for sh -c "[ -n \"\$(ip netns exec $H ss -Hltn 'sport = :5860')\" ]"
		echo "N binds [::]:5860, H listens on: [$(hlisten 5860)]"
		kill $_a 2>/dev/null; wait $_a 2>/dev/null; down ;;
	all_auto)
		up -t all,auto $NONE || { echo "$MSG"; return; }
		ip netns exec "$N" timeout 8 socat -u TCP6-LISTEN:5870,reuseaddr - >/dev/null &
		_a=$!
		WAIT_S=4 wait_for sh -c "[ -n \"\$(ip netns exec $H ss -Hltn 'sport = :5870')\" ]"
		echo "N binds 5870: H [$(hlisten 5870)]; 5871 unbound: H [$(hlisten 5871)]"
		kill $_a 2>/dev/null; wait $_a 2>/dev/null; down ;;
	bad_spec)
		up -t "5x" $NONE && { echo "accepted"; down; return; }
		echo "$MSG" ;;
	mtu0)
		up -m 0 -t none $NONE || { echo "$MSG"; return; }
		echo "tap MTU $(ip -n "$N" -o link show | grep -v -e ' lo:' | grep -o 'mtu [0-9]*')"; down ;;
	stderr)
		up --stderr -t none $NONE || { echo "$MSG"; return; }
		echo "runs; $(grep -i -m1 stderr "$WORK/log" | cut -c1-80 || echo 'no warning')"; down ;;
	logfile)
		up -d -l "$WORK/logfile" -t none $NONE || { echo "$MSG"; return; }
		sleep 0.5; down
		echo "stderr $(grep -c . "$WORK/log") lines, file $(grep -c . "$WORK/logfile") lines"
		rm -f "$WORK/logfile" ;;
	pesto)
		up -c "$WORK/ctl" -t none $NONE || { echo "$MSG"; return; }
		wait_for test -S "$WORK/ctl"
		echo "$(pesto_try "$D/pesto" "own pesto"); $(pesto_try "$UPSTREAM_PESTO" "upstream's pesto"); $(pesto_try "$NOW_PESTO" "our pesto now")"
		down ;;
	netns_gone)
		up -t none $NONE || { echo "$MSG"; return; }
		ip netns del "$N"
		echo "exit $(gone_time) after ip netns del" ;;
	pid_gone)
		fresh_ns
		ip netns exec "$N" sleep 30 &
		_t=$!
		sleep 0.2
		ip netns exec "$H" "$D/pasta" -f -q --config-net $EXTRA -t none $NONE $_t >"$WORK/log" 2>&1 &
		PP=$!
		wait_for sh -c "ip -n $N -o addr show | grep -q 'inet .*global'"
		kill $_t; wait $_t 2>/dev/null
		echo "exit $(gone_time) after the target PID exits" ;;
	pid_gone_conn)
		# the target is a server with an idle connection from R: it
		# exits, the kernel closes its socket, nothing is left queued
		fresh_ns
		ip netns exec "$N" socat -u TCP6-LISTEN:5905 OPEN:/dev/null &
		_t=$!
		sleep 0.2
		ip netns exec "$H" "$D/pasta" -f -q --config-net $EXTRA -t 5905 $NONE $_t >"$WORK/log" 2>&1 &
		PP=$!
		WAIT_S=4 wait_for sh -c "[ -n \"\$(ip netns exec $H ss -Hltn 'sport = :5905')\" ]"
		in_remote timeout 15 socat -u EXEC:"sleep 12" TCP:$H4:5905 2>/dev/null &
		_c=$!
		sleep 0.5
		kill $_t; wait $_t 2>/dev/null
		echo "exit $(gone_time) after the target PID (with an idle connection) exits"
		kill $_c 2>/dev/null; wait $_c 2>/dev/null ;;
	auto_lo)
		up -t auto --host-lo-to-ns-lo $NONE || { echo "$MSG"; return; }
		_d=$(WAITH=5400 ok xfer in_host 127.0.0.1 5400 TCP4-LISTEN:5400,bind=127.0.0.1)
		echo "N binds 127.0.0.1:5400: H [$(hlisten 5400)] $_d from H's 127.0.0.1"
		down ;;
	logfile_cmd)
		# pasta runs a command in the namespace (no -f): what goes to
		# standard error once it runs, with -l and without
		fresh_ns
		ip netns exec "$H" "$D/pasta" --config-net $EXTRA -d -l "$WORK/logfile" -t none $NONE -- sh -c 'sleep 1' >"$WORK/log" 2>&1
		_w=$(grep -c . "$WORK/log"); _f=$(grep -c . "$WORK/logfile")
		rm -f "$WORK/logfile"
		ip netns exec "$H" "$D/pasta" --config-net $EXTRA -d -t none $NONE -- sh -c 'sleep 1' >"$WORK/log" 2>&1
		echo "-d -l F -- cmd: stderr $_w lines, file $_f lines; -d -- cmd: stderr $(grep -c . "$WORK/log") lines" ;;
	restart)
		up -t 5900 $NONE || { echo "$MSG"; return; }
		_pa=$PP
		rm -f "$WORK/old"
		ip netns exec "$N" timeout 20 socat -u TCP6-LISTEN:5900,reuseaddr OPEN:"$WORK/old",creat,trunc &
		_s=$!
		sleep 0.3
		# 40 x 16 KiB, one every 50 ms: busy for 2 s
		printf 'i=0\nwhile [ $i -lt 40 ]; do head -c 16384 /dev/zero; sleep 0.05; i=$((i + 1)); done\n' > "$WORK/busy.sh"
		in_remote timeout 20 socat -u EXEC:"sh $WORK/busy.sh" TCP:$H4:5900 2>/dev/null &
		_c=$!
		sleep 0.5
		kill $_pa
		cp "$WORK/log" "$WORK/log.a"
		if up -t 5900 $NONE; then
			_b="new pasta binds at once, $(ok xfer in_remote $H4 5900 TCP6-LISTEN:5900)"
			down
		else
			_b="new pasta: $MSG"
		fi
		wait $_c 2>/dev/null; wait $_s 2>/dev/null
		PP=$_pa; down
		echo "$_b; old connection: $(stat -c %s "$WORK/old" 2>/dev/null || echo 0) of 655360 bytes" ;;
	esac
}

CASES="bracket_any bracket_addr bracket_if star target target_range target_range4
all_target all_target4
ns_target range_auto addr_auto all_auto bad_spec mtu0 stderr logfile logfile_cmd pesto
netns_gone pid_gone pid_gone_conn auto_lo restart"
NOW_PESTO=${NOW_PESTO:-}
for c in ${ONLY:-$CASES}; do
	for a in "$@"; do
		D=${a#*=}
		# upstream's pasta started as root changes to nobody, who can't
		# join the scratch namespace: --runas 0 keeps it root (ours
		# joins first, then drops)
		EXTRA=
		[ "${a%%=*}" = upstream ] && EXTRA="--runas 0"
		printf '%s\t%s\t%s\n' "$c" "${a%%=*}" "$(run_case "$c")"
	done
done
