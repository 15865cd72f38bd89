# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/lib.sh - Scratch topology and helpers for integration tests
#
# Every test runs the daemon inside a scratch "host" namespace H that has no
# route out of the machine: lo plus a veth to a scratch "remote" namespace R.
#
#   [R] r0 198.51.100.2/24 2001:db8:1::2/64 <--> h0 198.51.100.1/24 2001:db8:1::1/64 [H]
#
# H routes by default via R (so the daemon finds a default route to copy),
# R has no route anywhere else.  pasta, started in H, connects a third
# namespace N (created here with "ip netns add", joined with --netns) so
# tests run commands in it with "in_ns".  Everything started is stopped by
# PID, namespaces are deleted, /etc/netns/<H> is removed.
#
# Usage in a test:
#   . "$(dirname "$0")/lib.sh"
#   setup_topology          # H, R, veth, addresses, resolver file
#   start_pasta [opts]      # pasta in H attached to N; waits for the tap
#   start_passt SOCK [opts] # passt in H on UNIX socket SOCK (stop_passt)
#   in_ns cmd...            # run in N (the pasta side)
#   in_host cmd...          # run in H (the host side)
#   in_remote cmd...        # run in R
#   pass / fail "msg" / skip "reason"

set -u

: "${PASST_BIN:?PASST_BIN must point to the passt binary}"
PASTA_BIN="$(dirname "$PASST_BIN")/pasta"
TEST_ID=$(mktemp -u XXXXXX | tr '[:upper:]' '[:lower:]')
H=h-$TEST_ID
R=r-$TEST_ID
N=n-$TEST_ID
WORK=$(mktemp -d /tmp/passt-test.XXXXXX)
chmod 755 "$WORK"
PIDS=""
NAMESPACES=""
PASTA_PID=""

H4=198.51.100.1
R4=198.51.100.2
H6=2001:db8:1::1
R6=2001:db8:1::2

log() { echo "[$(date +%T)] $*"; }
pass() { log "PASS: ${1:-}"; exit 0; }
fail() { log "FAIL: $*"; exit 1; }
skip() { log "skip: $*"; echo "$*"; exit 77; }

# Remember a PID to stop at cleanup
track() { PIDS="$PIDS $*"; }

cleanup() {
	rc=$?
	set +e
	# Whatever made the test fail: a daemon the seccomp filter killed
	# is said first, with the audit line naming the system call
	for _d in "${PASTA_PID:-}:pasta" "${PASST_PID:-}:passt"; do
		_p=${_d%%:*}
		[ -n "$_p" ] && ! daemon_running "$_p" || continue
		wait "$_p" 2>/dev/null
		[ $? -eq 159 ] || continue
		seccomp_audit "$_p"
		log "FAIL: ${_d#*:} (PID $_p) was killed by SIGSYS (exit status 159): the seccomp filter refused a system call"
		rc=1
	done
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	sleep 0.2
	for ns in $NAMESPACES; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill -9 "$p" 2>/dev/null
		done
	done
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	for ns in $NAMESPACES; do ip netns del "$ns" 2>/dev/null; done
	rm -rf "/etc/netns/$H"
	if [ "${KEEP_WORK:-0}" != 1 ]; then rm -rf "$WORK"; fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

in_ns() { ip netns exec "$N" "$@"; }
in_host() { ip netns exec "$H" "$@"; }
in_remote() { ip netns exec "$R" "$@"; }

# setup_topology - create H and R with the veth pair, addresses and routes
setup_topology() {
	[ "$(id -u)" = 0 ] || skip "integration tests need root (to create namespaces)"
	ip netns add "$H" || fail "ip netns add $H"
	NAMESPACES="$NAMESPACES $H"
	ip netns add "$R" || fail "ip netns add $R"
	NAMESPACES="$NAMESPACES $R"
	ip link add h0 netns "$H" type veth peer name r0 netns "$R" ||
		fail "veth"
	ip -n "$H" link set lo up
	ip -n "$R" link set lo up
	ip -n "$H" addr add $H4/24 dev h0
	ip -n "$R" addr add $R4/24 dev r0
	ip -n "$H" addr add $H6/64 dev h0 nodad
	ip -n "$R" addr add $R6/64 dev r0 nodad
	ip -n "$H" link set h0 up
	ip -n "$R" link set r0 up
	ip -n "$H" route add default via $R4
	ip -n "$H" -6 route add default via $R6
	# IPv6 on the veth works once the carrier is seen (linkwatch may take
	# a while on a loaded machine): multicast needs the ff00::/8 route
	wait_for sh -c "ip -n $H -6 route show table local | grep -q 'ff00::/8 dev h0' &&
			ip -n $R -6 route show table local | grep -q 'ff00::/8 dev r0'" ||
		fail "IPv6 not up on the veth"
	mkdir -p "/etc/netns/$H"
	echo "nameserver 127.0.0.1" > "/etc/netns/$H/resolv.conf"
	in_host sysctl -q -w net.ipv4.ping_group_range="0 2147483647"
	in_remote sysctl -q -w net.ipv4.ping_group_range="0 2147483647"
}

# make_target_ns - create the namespace pasta will connect (N)
make_target_ns() {
	ip netns add "$N" || fail "ip netns add $N"
	NAMESPACES="$NAMESPACES $N"
	ip netns exec "$N" sysctl -q -w net.ipv4.ping_group_range="0 2147483647"
}

# router NS... - make each namespace a router: it forwards IPv4 and IPv6,
# and sends an ICMP error for every packet that calls for one (rate limits
# off: net.ipv4.icmp_ratelimit, net.ipv6.icmp.ratelimit in ip-sysctl.rst),
# so that each probe of a test meets its error
router() {
	for _ns in "$@"; do
		ip netns exec "$_ns" sysctl -q -w net.ipv4.ip_forward=1
		ip netns exec "$_ns" sysctl -q -w net.ipv6.conf.all.forwarding=1
		ip netns exec "$_ns" sysctl -q -w net.ipv4.icmp_ratelimit=0
		ip netns exec "$_ns" sysctl -q -w net.ipv6.icmp.ratelimit=0
	done
}

# setup_routed [MTU [R-ADDR4/LEN R-ADDR6/LEN D-ADDR/LEN...]] - setup_topology,
# with R a router (router()) and D (d-$TEST_ID) behind it: veth r1 in R,
# of MTU bytes (default 1500), to d0 in D (1500), both up, and D's loopback
# up.  Given addresses: R-ADDR4 and R-ADDR6 on r1, each D-ADDR (IPv4 or
# IPv6) on d0, and D's default routes via R-ADDR4 and R-ADDR6.  IPv6
# addresses skip duplicate address detection (nodad).
setup_routed() {
	setup_topology
	router "$R"
	D=d-$TEST_ID
	ip netns add "$D" || fail "ip netns add $D"
	NAMESPACES="$NAMESPACES $D"
	ip link add r1 netns "$R" mtu "${1:-1500}" type veth \
		peer name d0 netns "$D" mtu 1500 || fail "veth to D"
	ip -n "$D" link set lo up
	ip -n "$R" link set r1 up
	ip -n "$D" link set d0 up
	[ $# -ge 3 ] || return 0
	ip -n "$R" addr add "$2" dev r1
	ip -n "$R" addr add "$3" dev r1 nodad
	_r4=${2%/*}; _r6=${3%/*}
	shift 3
	for _a in "$@"; do
		case $_a in
		*:*) ip -n "$D" addr add "$_a" dev d0 nodad ;;
		*) ip -n "$D" addr add "$_a" dev d0 ;;
		esac
	done
	ip -n "$D" route add default via "$_r4"
	ip -n "$D" -6 route add default via "$_r6"
}

# readdress_host OLD4 NEW4 GW4 OLD6 NEW6 GW6 - move H's h0 from OLD4/24 and
# OLD6/64 to NEW4/24 and NEW6/64 (nodad), default routes via GW4 and GW6,
# in one netlink batch, as a DHCP renewal that changes the lease does
readdress_host() {
	ip -n "$H" -batch - <<EOF || fail "re-addressing H: $1 -> $2, $4 -> $5"
addr del $1/24 dev h0
addr add $2/24 dev h0
route replace default via $3
addr del $4/64 dev h0
addr add $5/64 dev h0 nodad
route replace default via $6
EOF
}

# firewall NS - load the nftables rules read from stdin, one a line (such
# as "ip daddr 203.0.113.0/28 reject with icmp type net-unreachable"),
# into NS's forward hook (after routing: packets NS forwards), table
# inet icmptest
firewall() {
	{
		printf 'table inet icmptest {\n\tchain forward {\n'
		printf '\t\ttype filter hook forward priority 0;\n'
		cat
		printf '\t}\n}\n'
	} | ip netns exec "$1" nft -f - || fail "nft on $1"
}

# reject_codes NS - NS's firewall (firewall()) answers each forwarded
# packet to
#   203.0.113.0/28 .. 203.0.113.96/28: net-, host-, prot-, port-unreachable,
#     net-, host-, admin-prohibited (ICMP 3/0, 1, 2, 3, 9, 10, 13: RFC 792,
#     RFC 1122 3.2.2.1, RFC 1812 5.2.7.1)
#   2001:db8:90::/48 .. 2001:db8:93::/48: no-route, admin-prohibited,
#     addr-unreachable, port-unreachable (ICMPv6 1/0, 1, 3, 4: RFC 4443 3.1)
# and routes 203.0.113.0/24 and 2001:db8:90::/44 to its link r1, so that
# the firewall decides (NS must be a router with r1 up: setup_routed())
reject_codes() {
	ip -n "$1" route add 203.0.113.0/24 dev r1
	ip -n "$1" -6 route add 2001:db8:90::/44 dev r1
	firewall "$1" <<'NFT'
ip daddr 203.0.113.0/28 reject with icmp type net-unreachable
ip daddr 203.0.113.16/28 reject with icmp type host-unreachable
ip daddr 203.0.113.32/28 reject with icmp type prot-unreachable
ip daddr 203.0.113.48/28 reject with icmp type port-unreachable
ip daddr 203.0.113.64/28 reject with icmp type net-prohibited
ip daddr 203.0.113.80/28 reject with icmp type host-prohibited
ip daddr 203.0.113.96/28 reject with icmp type admin-prohibited
ip6 daddr 2001:db8:90::/48 reject with icmpv6 type no-route
ip6 daddr 2001:db8:91::/48 reject with icmpv6 type admin-prohibited
ip6 daddr 2001:db8:92::/48 reject with icmpv6 type addr-unreachable
ip6 daddr 2001:db8:93::/48 reject with icmpv6 type port-unreachable
NFT
}

# wait_for COND_CMD... - poll a command for up to WAIT_S (default 10) seconds
wait_for() {
	i=0
	lim=$(( ${WAIT_S:-10} * 10 ))
	while [ $i -lt $lim ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# start_pasta [OPTIONS...] - pasta in H attached to N, foreground, logging
# to $WORK/pasta.log; waits for its PID file (written once the namespace is
# set up) and until the tap in N is up with an address.
# Sets PASTA_PID.  Extra options go before --netns.  With CONFIG_NET=0, no
# --config-net is given and we only wait for the tap to exist (TAP_NAME,
# default h0).
start_pasta() {
	echo $NAMESPACES | grep -qw "$N" || make_target_ns
	cfg=--config-net
	[ "${CONFIG_NET:-1}" = 0 ] && cfg=
	rm -f "$WORK/start_pasta.pid"
	ip netns exec "$H" "$PASTA_BIN" -f ${PASTA_DEBUG:--d} $cfg "$@" \
		--pid "$WORK/start_pasta.pid" \
		--netns "/run/netns/$N" >"$WORK/pasta.log" 2>&1 &
	PASTA_PID=$!
	track $PASTA_PID
	# The PID file is written once the namespace is set up
	wait_for test -s "$WORK/start_pasta.pid" ||
		{ cat "$WORK/pasta.log"; fail "pasta wrote no PID file"; }
	if [ -z "$cfg" ]; then
		wait_for ip -n "$N" link show "${TAP_NAME:-h0}" ||
			{ cat "$WORK/pasta.log"; fail "pasta created no tap in $N"; }
	elif ! wait_for sh -c "ip -n $N -o addr show | grep -q 'inet .*global'" &&
	   ! wait_for sh -c "ip -n $N -o link show | grep -v ' lo:' | grep -q UP"; then
		cat "$WORK/pasta.log"
		fail "pasta did not configure $N"
	fi
	kill -0 $PASTA_PID 2>/dev/null || { cat "$WORK/pasta.log"; fail "pasta exited"; }
}

# pasta_take_over OLD CTL OPTION... - start pasta B in H with OPTION...,
# --restart-from CTL, on N, logging to $WORK/b.log: the old pasta (PID OLD,
# its log $WORK/pasta.log) must exit 0 saying it handed over, B must write
# its PID file ($WORK/b.pid, another PID) and run.  Sets B to B's PID.
pasta_take_over() {
	_old=$1 _ctl=$2
	shift 2
	ip netns exec "$H" "$PASTA_BIN" -f -d --config-net "$@" -c "$_ctl" \
		--restart-from "$_ctl" --netns "/run/netns/$N" \
		--pid "$WORK/b.pid" >"$WORK/b.log" 2>&1 &
	B=$!
	track $B
	WAIT_S=20 wait_for sh -c "! kill -0 $_old" ||
		{ cat "$WORK/b.log"; fail "pasta A is still running: nothing was handed over"; }
	wait $_old
	_rc=$?
	[ $_rc -eq 0 ] || { tail -20 "$WORK/pasta.log"; fail "pasta A exited with $_rc"; }
	grep -q "handed over: exiting" "$WORK/pasta.log" ||
		{ tail -20 "$WORK/pasta.log"; fail "pasta A didn't say it handed over"; }
	WAIT_S=20 wait_for test -s "$WORK/b.pid" ||
		{ cat "$WORK/b.log"; fail "pasta B wrote no PID file"; }
	daemon_running $B || daemon_gone $B "$WORK/b.log" "pasta B"
	[ "$(cat "$WORK/b.pid")" != "$_old" ] || fail "same PID"
}

# seccomp_audit PID - the kernel's seccomp audit lines for PID running
# PASST_BIN (dmesg, "audit: type=1326 ... pid=PID ... exe=... syscall=N";
# the kernel may rate-limit them): a kill (sig=31) in release
# builds, a call let through and logged (code=0x7ffc0000) in sanitizer
# builds, whose filter only logs (passt/isolation.c)
seccomp_audit() {
	dmesg 2>/dev/null | grep 'type=1326' | grep " pid=$1 " |
		grep -F "exe=\"$(readlink -f "$PASST_BIN")\"" | tail -n 5
}

# daemon_gone PID LOG NAME - NAME (PID, a child of this shell) has exited:
# print LOG, then fail with the reason; killed by SIGSYS (exit status 159)
# means the seccomp filter refused a system call, said loudly with the
# audit line naming it
daemon_gone() {
	wait "$1" 2>/dev/null
	_rc=$?
	cat "$2"
	if [ $_rc -eq 159 ]; then
		seccomp_audit "$1"
		fail "$3 (PID $1) was killed by SIGSYS (exit status 159): the seccomp filter refused a system call (syscall=N in the audit line above, or in dmesg)"
	fi
	fail "$3 (PID $1) is not running (exit status $_rc)"
}

# daemon_running PID - is PID running (not gone, nor a zombie this shell
# hasn't reaped yet)?
daemon_running() {
	kill -0 "$1" 2>/dev/null &&
		! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# pasta_alive - fail if pasta died (crash under ASan, seccomp kill, ...)
pasta_alive() {
	daemon_running "$PASTA_PID" && return 0
	daemon_gone "$PASTA_PID" "$WORK/pasta.log" pasta
}

# passt_alive - fail if passt died
passt_alive() {
	daemon_running "$PASST_PID" && return 0
	daemon_gone "$PASST_PID" "$WORK/passt.log" passt
}

# stop_daemon PID LOG NAME - SIGTERM PID, wait for it up to 20 s, fail
# (printing LOG) if it was killed by SIGSYS (seccomp) before or while
# stopping, or if LOG holds a sanitizer report; NAME is for the message.
# A daemon that had exited otherwise (its command ended) is no failure.
stop_daemon() {
	kill "$1" 2>/dev/null
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 150 ]; do
		sleep 0.1; i=$((i + 1))
	done
	# A SIGTERM lost during set-up (rare, cause not found: see
	# signal_early.sh) leaves the daemon in its loop with nothing
	# pending: say so with the signal state, and send it again
	if kill -0 "$1" 2>/dev/null; then
		log "WARNING: $3 (PID $1) still running 15 s after SIGTERM: $(grep -h -e '^State' -e '^Sig' -e '^ShdPnd' "/proc/$1/status" 2>/dev/null | tr '\n\t' '  '); sending it again"
		kill "$1" 2>/dev/null
		i=0
		while kill -0 "$1" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1; i=$((i + 1))
		done
	fi
	if grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error:' \
		-e 'ERROR: LeakSanitizer' "$2"; then
		cat "$2"
		fail "sanitizer report in $3 log"
	fi
	if ! daemon_running "$1"; then
		wait "$1" 2>/dev/null
		if [ $? -eq 159 ]; then
			cat "$2"; seccomp_audit "$1"
			fail "$3 (PID $1) was killed by SIGSYS (exit status 159): the seccomp filter refused a system call (syscall=N in the audit line above, or in dmesg)"
		fi
	fi
	# Sanitizer builds only log what the filter would have killed: say
	# so (not a failure: the sanitizer run-time makes calls of its own)
	seccomp_audit "$1" | grep -q 'code=0x7ffc0000' &&
		log "WARNING: seccomp logged system calls of $3 (PID $1) that a release build would be killed for: $(seccomp_audit "$1" | grep -o 'syscall=[0-9]*' | sort -u | tr '\n' ' ')"
	return 0
}

# stop_pasta - SIGTERM pasta, wait, fail on sanitizer reports in its log
stop_pasta() {
	[ -n "$PASTA_PID" ] || return 0
	stop_daemon "$PASTA_PID" "$WORK/pasta.log" pasta
	PASTA_PID=""
}

# start_passt SOCK [OPTIONS...] - passt in H, foreground, listening on the
# UNIX socket SOCK, logging to $WORK/passt.log; waits for the socket.
# Sets PASST_PID.
start_passt() {
	_sock=$1; shift
	ip netns exec "$H" "$PASST_BIN" -f ${PASST_DEBUG:--d} -s "$_sock" "$@" \
		>"$WORK/passt.log" 2>&1 &
	PASST_PID=$!
	track $PASST_PID
	if ! wait_for grep -q "socket bound at $_sock" "$WORK/passt.log"; then
		cat "$WORK/passt.log"
		fail "passt did not bind $_sock"
	fi
}

# stop_passt - SIGTERM passt, wait, fail on sanitizer reports in its log
stop_passt() {
	[ -n "${PASST_PID:-}" ] || return 0
	stop_daemon "$PASST_PID" "$WORK/passt.log" passt
	PASST_PID=""
}

# bg [in_ns|in_host|in_remote] CMD... - start a command in the background
# and track it; sets BG_PID (the command's own PID: ip netns exec execs it)
bg() {
	case "$1" in
	in_ns) shift; ip netns exec "$N" "$@" & ;;
	in_host) shift; ip netns exec "$H" "$@" & ;;
	in_remote) shift; ip netns exec "$R" "$@" & ;;
	*) "$@" & ;;
	esac
	BG_PID=$!
	track $BG_PID
}

# passt_expect_syn SOCK PORT LOG - connect R to H's PORT: the passt client on
# SOCK (output in $WORK/syn) must see the SYN; LOG is printed on failure
passt_expect_syn() {
	bg in_host python3 "$(dirname "$0")/passt_client.py" expect-syn "$1" "$2" \
		>"$WORK/syn" 2>&1
	_syn=$BG_PID
	wait_for grep -q ready "$WORK/syn" || { cat "$WORK/syn"; fail "client"; }
	in_remote python3 -c "
import socket
s = socket.socket()
s.settimeout(3)
try:
    s.connect(('$H4', $2))
except OSError:
    pass" &
	wait $_syn || { cat "$WORK/syn" "$3"; fail "no SYN for port $2"; }
}

# remote_udp_echo PORT - give R a second address, 198.51.100.3/24 and
# 2001:db8:1::3/64 (its first one is the gateway, which stands for H's
# loopback), and start socat UDP echo servers on PORT there, IPv4 and
# IPv6, for datagrams up to 64 KiB
remote_udp_echo() {
	ip -n "$R" addr add 198.51.100.3/24 dev r0
	ip -n "$R" addr add 2001:db8:1::3/64 dev r0 nodad
	bg in_remote socat -b 65536 \
		UDP4-LISTEN:"$1",bind=198.51.100.3,fork,reuseaddr PIPE
	bg in_remote socat -b 65536 \
		UDP6-LISTEN:"$1",bind='[2001:db8:1::3]',fork,reuseaddr PIPE
}

# make_file PATH SIZE_MIB - random file
make_file() {
	head -c $(( $2 * 1024 * 1024 )) /dev/urandom > "$1"
}

# sum FILE - sha256 of a file
sum() { sha256sum "$1" | cut -d' ' -f1; }
