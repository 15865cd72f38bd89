#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/bench/run.sh - Throughput, latency and connection-rate benchmarks of our
# pasta against Debian's pasta, slirp4netns and the kernel alone
#
# Runs as root, entirely inside scratch namespaces with no route out:
#
#   [R] r0 198.51.100.2 <-- veth --> h0 198.51.100.1 [H] --daemon--> tap [N]
#
# For every run, a fresh target namespace N is created, the daemon under test
# is started in H and attached to N, servers and clients are placed as the
# scenario says, the daemon's CPU time and peak RSS are read from /proc, and
# everything is stopped by PID and N deleted.  Implementations are
# interleaved within each repetition (their order rotates from one
# repetition to the next) so that machine noise hits all of them alike.
# The kernel columns run the same traffic with no daemon: over the R-H veth
# ("veth") and over H's loopback ("loopback").
#
# Results: OUT/results.tsv (one line per run), OUT/report.md (Markdown
# summary, also printed), OUT/raw/ (client outputs), OUT/logs/ (daemons).
# See test/bench/README.md for scenarios and options.
set -u

here=$(cd "$(dirname "$0")" && pwd)

usage() {
	cat <<EOF
Usage: $0 [OPTIONS]
  -r, --reps N          repetitions (default 3)
  -d, --duration S      seconds per measurement (default 5)
  -s, --scenarios LIST  comma-separated, from: $ALL_SCEN
                        (default: all)
  -i, --impls LIST      comma-separated, from: $ALL_IMPLS
                        (default: all)
  -o, --out DIR         results directory (default: \$BUILD/bench/DATE)
  -n, --note TEXT       line added to the report (e.g. "machine shared")
  -p, --perf            perf record each daemon during the client's run:
                        OUT/perf/RUN.data and RUN.txt (top symbols)
      --smoke           1 repetition x 1 s of S1 and S2, and M2.10 (ours and
                        veth only); fails only if the suite itself breaks (no
                        numbers for ours or kernel)
      --wan-check       check the delay line of the W scenarios (ping RTT
                        = 2 x delay within 10 %, >= 1 Gbit/s at delay 0,
                        kernel alone) and exit
Scenario groups: M1, M2 (many flows, all three N), M (both);
  WD, WU (long-RTT downloads, uploads: all delays and losses), W (both);
  MIG (live migration of a QEMU guest holding 1, 100, 1000 connections)
  -h, --help            this text
Environment: PASST_BIN (our passt binary, pasta link beside it, required),
  OURS_OPTS (extra options for ours and base, e.g. --stats),
  BASE_BIN (another build of our passt, run as implementation "base" exactly
  like ours: before/after a change in one interleaved run), BASE_OPTS
  (options for base instead of OURS_OPTS: one binary with and without one),
  DEBIAN_PASTA (default /usr/bin/pasta), SLIRP4NETNS (default slirp4netns),
  UPSTREAM_PASTA (default test/bench/pasta_chroot.sh: Debian 13's pasta from
  the check-clients chroot CHROOT, default /var/cache/passt-clients/trixie);
  for MIG: QEMU10_DIR (default \$BUILD/qemu10, make qemu10), MIG_UPSTREAM
  (upstream's passt, passt-repair beside it; default
  \$BUILD/upstream-passt/passt, make upstream-passt), MIG_PAIRS (source-
  destination pairs, default ours-ours,upstream-upstream,ours-upstream)
EOF
}

# W<D|U><one-way delay, ms>L<loss, %>: long-RTT downloads and uploads
WAN_DELAYS="0 10 40"
WAN_LOSSES="0 0.1 1"
wan_cells() {
	for d in $WAN_DELAYS; do for l in $WAN_LOSSES; do
		printf ',W%s%sL%s' "$1" "$d" "$l"
	done; done
}
ALL_W="$(wan_cells D)$(wan_cells U)"
ALL_U="U1.1400,U1.8000,U2.1400,U2.8000,Q200,Q2000"
ALL_G="G1.1400,G1.8000,G2.1400,G2.8000"
ALL_MIG="MIG.1,MIG.100,MIG.1000"
ALL_SCEN="S1,S2,S2R,S3,S3T,S4.1,S4.2,S5,S6,M1.10,M1.100,M1.1000,M2.10,M2.100,M2.1000,$ALL_U,$ALL_G$ALL_W,$ALL_MIG"
ALL_IMPLS="ours,base,pasta,upstream,slirp4netns,veth,loopback"
REPS=3
DUR=5
SCEN=$ALL_SCEN
# "base" only by default when there is one to run
IMPLS=$ALL_IMPLS
[ -n "${BASE_BIN:-}" ] || IMPLS=$(echo "$IMPLS" | sed 's/,base//')
UPSTREAM_PASTA=${UPSTREAM_PASTA:-$(dirname "$0")/pasta_chroot.sh}
CHROOT=${CHROOT:-/var/cache/passt-clients/trixie}
[ -x "$CHROOT/usr/bin/pasta" ] || IMPLS=$(echo "$IMPLS" | sed 's/,upstream//')
IMPLS_SET=0
OUT=""
NOTE=""
SMOKE=0
PERF=0
WAN_CHECK=0

while [ $# -gt 0 ]; do
	case "$1" in
	-r|--reps) REPS=$2; shift ;;
	-d|--duration) DUR=$2; shift ;;
	-s|--scenarios) SCEN=$2; shift ;;
	-i|--impls) IMPLS=$2; IMPLS_SET=1; shift ;;
	-o|--out) OUT=$2; shift ;;
	-n|--note) NOTE=$2; shift ;;
	-p|--perf) PERF=1 ;;
	--smoke) SMOKE=1 ;;
	--wan-check) WAN_CHECK=1 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

if [ $SMOKE = 1 ]; then
	REPS=1; DUR=1; SCEN="S1,S2,M2.10,U2.1400,Q200"
fi

# scenario groups: M1 and M2 stand for their three flow counts, M for both
SCEN=$(echo "$SCEN" | sed 's/\(^\|,\)M\(,\|$\)/\1M1,M2\2/g;
	s/\(^\|,\)\(M[12]\)\(,\|$\)/\1\2.10,\2.100,\2.1000\3/g;
	s/\(^\|,\)\(M[12]\)\(,\|$\)/\1\2.10,\2.100,\2.1000\3/g
	s/\(^\|,\)U\(,\|$\)/\1'"$ALL_U"'\2/g
	s/\(^\|,\)G\(,\|$\)/\1'"$ALL_G"'\2/g
	s/\(^\|,\)MIG\(,\|$\)/\1'"$ALL_MIG"'\2/g' |
	sed "s/\(^\|,\)W\(,\|\$\)/\1WD,WU\2/g
	s/\(^\|,\)WD\(,\|\$\)/\1$(wan_cells D | cut -c2-)\2/g
	s/\(^\|,\)WU\(,\|\$\)/\1$(wan_cells U | cut -c2-)\2/g")

case "$REPS$DUR" in *[!0-9]*) echo "reps and duration are integers" >&2; exit 2 ;; esac
[ "$REPS" -ge 1 ] && [ "$DUR" -ge 1 ] || { echo "reps, duration >= 1" >&2; exit 2; }
for s in $(echo "$SCEN" | tr ',' ' '); do
	case ",$ALL_SCEN," in *",$s,"*) ;; *) echo "unknown scenario $s" >&2; exit 2 ;; esac
done
for i in $(echo "$IMPLS" | tr ',' ' '); do
	case ",$ALL_IMPLS," in *",$i,"*) ;; *) echo "unknown implementation $i" >&2; exit 2 ;; esac
done

: "${PASST_BIN:?PASST_BIN must point to our passt binary}"
OURS_BIN="$(dirname "$PASST_BIN")/pasta"
DEBIAN_PASTA=${DEBIAN_PASTA:-/usr/bin/pasta}
SLIRP4NETNS=${SLIRP4NETNS:-slirp4netns}
PY=${PYTHON:-python3}

if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (it creates network namespaces)" >&2
	exit 77
fi
for t in ip ss iperf3 timeout "$PY"; do
	command -v "$t" >/dev/null || { echo "bench: $t missing" >&2; exit 77; }
done
[ -x "$OURS_BIN" ] || { echo "bench: $OURS_BIN missing" >&2; exit 1; }
if [ $PERF = 1 ] && ! command -v perf >/dev/null; then
	echo "bench: --perf needs perf (linux-perf)" >&2; exit 2
fi

RM_OUT=0
if [ -z "$OUT" ] && [ $SMOKE = 1 ]; then
	OUT=$(mktemp -d /tmp/passt-bench-smoke.XXXXXX) && RM_OUT=1
fi
[ -n "$OUT" ] || OUT="$(dirname "$PASST_BIN")/bench/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT/raw" "$OUT/logs" || exit 1
OUT=$(cd "$OUT" && pwd)
TSV="$OUT/results.tsv"
META="$OUT/meta.tsv"

ID=$(mktemp -u XXXXXX | tr '[:upper:]' '[:lower:]')
H=bh-$ID
R=br-$ID
N=bn-$ID
H4=198.51.100.1
R4=198.51.100.2
SLIRP_CIDR=203.0.113.0/24
SLIRP_GW=203.0.113.2
SLIRP_SOCK="$OUT/slirp.sock"
# Long-RTT (W) scenarios: R and H also meet through a router namespace X
# where the delay line (delayline.c) joins xr (to R) and xh (to H) at
# layer 2, holding every frame for the one-way delay and dropping a
# fraction.  MTU 9000 without GSO (gso_max_segs 1) on both ends, so that
# each frame is one segment and loss hits segments, as on a real path; at
# 1500 the kernel alone gets 0.6 Gbit/s over a bare veth on this 2-core
# machine, too little to tell anything from the delay line's own limit.
X=bx-$ID
W_H4=203.0.113.129
W_R4=203.0.113.130
WAN_MTU=${WAN_MTU:-9000}
WAN_WMEM=${WAN_WMEM:-67108864}	# bytes, tcp_wmem maximum of R and H
WAN_CC=${WAN_CC:-}	# iperf3 -C for W runs (default: the kernel's, bbr here)
WAN_GSO=${WAN_GSO:-0}	# 1: leave GSO on (frames up to 64 KiB, lost whole)
WAN_RATE=${WAN_RATE:-}	# Mbit/s: a bottleneck in the delay line (-r), buffer WAN_QUEUE_MS
WAN_QUEUE_MS=${WAN_QUEUE_MS:-}	# ms of the bottleneck's buffer (default 2 x delay, >= 5)
DL_PID=""

# Ports: *_FWD are forwarded by the daemon (-t), *_HOST are host services
# reached from the namespace through the gateway address, *_NS through -T
IPERF_FWD=5201
IPERF_HOST=5202
IPERF_NS=5203
IPERF_WAN=5204
UDPQ_FWD=5354
UDPQ_HOST=5353
SOCKPERF_FWD=11111
SOCKPERF_HOST=11112
HTTP_FWD=8080
FLOWS_FWD=5301
FLOWS_HOST=5302

# Many flows (M1.N, M2.N): N connections of FLOW_SIZE bytes each, every
# flow given at most FLOWS_TIMEOUT seconds
FLOW_SIZE=1048576
FLOWS_TIMEOUT=60

# One descriptor per flow in every daemon, server and client (and two in
# the daemon for a flow through the tap's host side): 1000 flows need more
# than the usual soft limit of 1024.  Raised here for everything this
# script starts, recorded in meta.tsv
# shellcheck disable=SC3045 # dash and bash both have ulimit -n and -H
nofile=$(ulimit -n)
if [ "$nofile" != unlimited ] && [ "$nofile" -lt 16384 ]; then
	# shellcheck disable=SC3045 # dash and bash both have ulimit -n and -H
	ulimit -n 16384 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null
fi

CLK_TCK=$(getconf CLK_TCK)
NAMESPACES=""
BG_PIDS=""
DPID=""

log() { echo "[$(date +%T)] $*" >&2; }

# kill_wait PID - SIGTERM, wait up to 3 s, then SIGKILL
kill_wait() {
	kill "$1" 2>/dev/null || return 0
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 30 ]; do
		sleep 0.1; i=$((i + 1))
	done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# ns_del NS - stop every process left in NS by PID, delete it
ns_del() {
	for p in $(ip netns pids "$1" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	ip netns del "$1" 2>/dev/null
	NAMESPACES=$(echo "$NAMESPACES" | tr ' ' '\n' | grep -v -x "$1" | tr '\n' ' ')
}

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	rc=$?
	set +e
	for p in $BG_PIDS $DPID $DL_PID; do kill_wait "$p"; done
	for ns in $NAMESPACES; do ns_del "$ns"; done
	rm -rf "/etc/netns/$H" "$SLIRP_SOCK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for TENTHS CMD... - poll CMD every 0.1 s, up to TENTHS times
wait_for() {
	n=$1; shift
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1; n=$((n - 1))
	done
	return 1
}

# listening NS PORT - true if a TCP socket listens on PORT in NS
# shellcheck disable=SC2317 # called through wait_for
listening() {
	[ -n "$(ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null)" ]
}

# listening_udp NS PORT - true if a UDP socket is bound to PORT in NS
# shellcheck disable=SC2317 # called through wait_for
listening_udp() {
	[ -n "$(ip netns exec "$1" ss -Hlun "sport = :$2" 2>/dev/null)" ]
}

setup_topology() {
	ip netns add "$H" && NAMESPACES="$NAMESPACES $H" &&
	ip netns add "$R" && NAMESPACES="$NAMESPACES $R" &&
	ip link add h0 netns "$H" type veth peer name r0 netns "$R" &&
	ip -n "$H" link set lo up && ip -n "$R" link set lo up &&
	ip -n "$H" addr add $H4/24 dev h0 && ip -n "$R" addr add $R4/24 dev r0 &&
	ip -n "$H" link set h0 up && ip -n "$R" link set r0 up &&
	ip -n "$H" route add default via $R4 || return 1
	mkdir -p "/etc/netns/$H"
	echo "nameserver 127.0.0.1" > "/etc/netns/$H/resolv.conf"
	wait_for 50 sh -c "ip -n $H link show h0 | grep -q LOWER_UP"
}

# setup_wan - X between R and H, see W_H4 above; the delay line is started
# per run (delayline_start)
setup_wan() {
	ip netns add "$X" && NAMESPACES="$NAMESPACES $X" &&
	ip link add w0 netns "$R" mtu $WAN_MTU type veth peer name xr netns "$X" mtu $WAN_MTU &&
	ip link add w1 netns "$H" mtu $WAN_MTU type veth peer name xh netns "$X" mtu $WAN_MTU &&
	if [ "$WAN_GSO" = 0 ]; then
		ip -n "$R" link set w0 gso_max_segs 1 && ip -n "$H" link set w1 gso_max_segs 1
	fi &&
	ip -n "$R" addr add $W_R4/25 dev w0 && ip -n "$H" addr add $W_H4/25 dev w1 &&
	ip -n "$X" link set lo up && ip -n "$X" link set xr up &&
	ip -n "$X" link set xh up && ip -n "$R" link set w0 up &&
	ip -n "$H" link set w1 up || return 1
	[ -x "$OUT/delayline" ] || return 1
	# senders not capped at 4 MiB in flight (tcp_wmem's default maximum,
	# 0.4 Gbit/s at 80 ms): the receiver's window is what is measured
	for ns in "$R" "$H"; do
		ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_wmem="4096 16384 $WAN_WMEM" || return 1
	done
	wait_for 50 sh -c "ip -n $H link show w1 | grep -q LOWER_UP"
}

# wan_delay SCEN, wan_loss SCEN - one-way delay (ms), loss (%) of a W cell
wan_delay() { echo "$1" | sed 's/^W[DU]\([0-9]*\)L.*/\1/'; }
wan_loss() { echo "$1" | sed 's/^W[DU][0-9]*L//'; }

# delayline_start DELAY_MS LOSS_PCT LOG - the delay line in X, ARP warmed
# through it (a first ping pays for resolution at twice the delay)
delayline_start() {
	ip netns exec "$X" "$OUT/delayline" -a xr -b xh -d "$1" -l "$2%" \
		${WAN_RATE:+-r "$WAN_RATE"} ${WAN_RATE:+${WAN_QUEUE_MS:+-Q "$WAN_QUEUE_MS"}} \
		-t $((DUR + 120)) 2>"$3" &
	DL_PID=$!
	sleep 0.2
	ip netns exec "$H" ping -c 1 -W 3 $W_R4 >/dev/null 2>&1
	ip netns exec "$R" ping -c 1 -W 3 $W_H4 >/dev/null 2>&1
	kill -0 "$DL_PID" 2>/dev/null
}

delayline_stop() {
	[ -n "$DL_PID" ] && kill_wait "$DL_PID"
	DL_PID=""
}

# wan_check - verify the delay line: RTT = 2 x delay within 10 % (ping,
# the median of 10 after a warm-up), and >= 1 Gbit/s at delay 0 with the
# kernel alone (iperf3 H -> R and R -> H).  Return: 0 if all hold
wan_check() {
	ok=0
	for d in $WAN_DELAYS; do
		delayline_start "$d" 0 "$OUT/logs/wan-check-$d.log" || { echo "delay line did not start"; return 1; }
		rtt=$(ip netns exec "$H" ping -c 10 -i 0.2 $W_R4 | sed -n 's/.*time=\([0-9.]*\) ms/\1/p' |
			sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		verdict=$(awk -v r="$rtt" -v d="$d" 'BEGIN {
			if (d == 0) print (r < 1 ? "PASS" : "MISS"); else
			print (r >= 1.8 * d && r <= 2.2 * d ? "PASS" : "MISS") }')
		[ "$verdict" = PASS ] || ok=1
		echo "delay $d ms: ping RTT median $rtt ms (want $((2 * d)) ms +- 10 %): $verdict"
		if [ "$d" = 0 ]; then
			for rev in "" -R; do
				ip netns exec "$R" timeout 30 iperf3 -s -1 -B $W_R4 -p $IPERF_WAN >/dev/null 2>&1 &
				sp=$!
				wait_for 50 listening "$R" $IPERF_WAN
				g=$(ip netns exec "$H" timeout 30 iperf3 -c $W_R4 -p $IPERF_WAN -t "$DUR" $rev -J 2>/dev/null |
					"$PY" -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))' 2>/dev/null)
				kill_wait $sp
				v=$(awk -v g="${g:-0}" 'BEGIN { print (g >= 1 ? "PASS" : "MISS") }')
				[ "$v" = PASS ] || ok=1
				echo "delay 0 ms, kernel alone, iperf3 ${rev:-H->R}${rev:+ R->H}: ${g:-fail} Gbit/s (want >= 1): $v"
			done
		fi
		delayline_stop
		sed 's/^/  /' "$OUT/logs/wan-check-$d.log"
	done
	return $ok
}

# veth_mtu_for SCEN - the R-H veth's MTU for SCEN: UDP_VETH_MTU for the UDP
# scenarios (U, Q: 8000-byte datagrams would otherwise be fragmented on
# the way from R, and the kernel column would measure fragmentation, not
# the path at the daemons' MTU; G.8000: the kernel refuses UDP_SEGMENT
# with a segment beyond the route's MTU, EINVAL, so at 1500 nothing is
# sent), the original one for everything else (G.1400 too)
veth_mtu_for() {
	case "$1" in U*|Q*|G?.8000) m=$UDP_VETH_MTU ;; *) m=$VETH_MTU0 ;; esac
	[ "$m" = "$VETH_MTU_NOW" ] && return 0
	ip -n "$H" link set h0 mtu "$m" && ip -n "$R" link set r0 mtu "$m" &&
		VETH_MTU_NOW=$m
}

# cpu_ticks PID - utime + stime of the whole process, in clock ticks;
# nothing if it is gone or a zombie (it died)
cpu_ticks() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '$1 != "Z" { print $12 + $13 }'
}

# Scenario table: path tool [tool options]
#   out:        namespace -> host loopback via the gateway address (tap)
#   in:         remote (R) -> H's address, forwarded -t port -> namespace (tap)
#   splice_in:  H's loopback -> -t port -> namespace
#   splice_out: namespace loopback -> -T port -> H's loopback
# M1.N is N flows on the out path, M2.N on the in path; U1.LEN is one UDP
# flow of LEN-byte datagrams on the out path, U2.LEN on the in path (-u as
# well as -t: iperf3 has a TCP control connection); G1.LEN and G2.LEN the
# same paths with udpgso.c (a UDP_SEGMENT sender, a UDP_GRO receiver, -u
# only); QN is N DNS-like
# clients on the out path (the gateway maps to the host's loopback)
scen_path() {
	case "$1" in
	S1|S4.1|M1.*|U1.*|G1.*|Q*) echo out ;;
	S2|S2R|S4.2|S5|S6|M2.*|U2.*|G2.*) echo in ;;
	S3) echo splice_in ;;
	S3T) echo splice_out ;;
	WD*) echo wan_down ;;
	WU*) echo wan_up ;;
	esac
}
scen_tool() {
	case "$1" in
	S4.*) echo sockperf ;;
	S5) echo wrk ;;
	M*) echo flows ;;
	U*) echo iperf3u ;;
	G*) echo udpgso ;;
	Q*) echo udpq ;;
	*) echo iperf3 ;;
	esac
}

# port_for TOOL PATH - the port a server listens on
port_for() {
	case "$1:$2" in
	iperf3*:out) echo $IPERF_HOST ;;
	iperf3*:splice_out) echo $IPERF_NS ;;
	iperf3*:wan_*) echo $IPERF_WAN ;;
	iperf3*:*) echo $IPERF_FWD ;;
	udpq:out|udpgso:out) echo $UDPQ_HOST ;;
	udpq:*|udpgso:*) echo $UDPQ_FWD ;;
	sockperf:out) echo $SOCKPERF_HOST ;;
	sockperf:*) echo $SOCKPERF_FWD ;;
	wrk:*) echo $HTTP_FWD ;;
	flows:out) echo $FLOWS_HOST ;;
	flows:*) echo $FLOWS_FWD ;;
	esac
}

# impl_unsupported IMPL SCEN - print why IMPL can't run SCEN, if it can't
impl_unsupported() {
	case "$1" in
	pasta) [ -x "$DEBIAN_PASTA" ] || { echo "$DEBIAN_PASTA not installed"; return 0; } ;;
	upstream) [ -x "$CHROOT/usr/bin/pasta" ] || { echo "no $CHROOT/usr/bin/pasta (make check-clients)"; return 0; } ;;
	base) [ -n "${BASE_BIN:-}" ] && [ -x "$(dirname "$BASE_BIN")/pasta" ] ||
		{ echo "BASE_BIN not set (or no pasta link beside it)"; return 0; } ;;
	slirp4netns)
		command -v "$SLIRP4NETNS" >/dev/null || { echo "slirp4netns not installed"; return 0; }
		[ "$2" = S3T ] && { echo "slirp4netns has no namespace-to-host port forwarding"; return 0; } ;;
	esac
	case "$1:$(scen_path "$2")" in
	slirp4netns:wan_*) echo "its own network 203.0.113.0/24 holds the WAN addresses"; return 0 ;;
	loopback:wan_*) echo "no loopback path for a remote peer"; return 0 ;;
	esac
	case "$(scen_tool "$2")" in
	sockperf) command -v sockperf >/dev/null || { echo "sockperf not installed"; return 0; } ;;
	wrk) command -v wrk >/dev/null || { echo "wrk not installed"; return 0; }
	     [ -x "$OUT/httpd" ] || { echo "test/bench/httpd.c did not build"; return 0; } ;;
	udpq) [ -x "$OUT/udpq" ] || { echo "test/bench/udpq.c did not build"; return 0; } ;;
	udpgso) [ -x "$OUT/udpgso" ] || { echo "test/bench/udpgso.c did not build"; return 0; } ;;
	esac
	return 1
}

# daemon_start IMPL SCEN VARIANT LOG - new N, daemon attached to it, forwards
# for SCEN only.  Sets DPID, GW (the ns's address for the host) and NOTE_RUN
# on failure.  Return: 0 if the namespace is up and the forwards listen
daemon_start() {
	impl=$1; scen=$2; variant=$3; dlog=$4
	path=$(scen_path "$scen")
	port=$(port_for "$(scen_tool "$scen")" "$path")
	ip netns add "$N" || { NOTE_RUN="ip netns add failed"; return 1; }
	NAMESPACES="$NAMESPACES $N"
	t=none; T=none; u=none
	case "$path" in in|splice_in) t=$port ;; splice_out) T=$port ;; esac
	# UDP in: iperf3 -u has a TCP control connection beside the datagrams
	case "$(scen_tool "$scen"):$path" in
	iperf3u:in) u=$port ;;
	udpq:in|udpgso:in) u=$port; t=none ;;
	esac

	case "$impl" in
	ours|base|pasta|upstream)
		if [ "$impl" = ours ] || [ "$impl" = base ]; then
			# --stats: counters in the log at exit, read by ours_notes
			bin=$OURS_BIN; extra="--stats ${OURS_OPTS:-}"
			[ "$impl" = base ] && bin="$(dirname "$BASE_BIN")/pasta" &&
				extra="--stats ${BASE_OPTS-${OURS_OPTS:-}}"
			[ "$variant" = fallback ] && extra="$extra --no-peek-offset"
		elif [ "$impl" = upstream ]; then
			bin=$UPSTREAM_PASTA; extra="-q --runas 0"
		else
			bin=$DEBIAN_PASTA; extra="-q --runas 0"
		fi
		ip netns exec "$H" "$bin" -f $extra --config-net -t $t -T $T \
			-u $u -U none --netns "/run/netns/$N" >"$dlog" 2>&1 &
		DPID=$!
		GW=$R4
		;;
	slirp4netns)
		rm -f "$SLIRP_SOCK"
		ip netns exec "$H" "$SLIRP4NETNS" --configure --mtu=65520 \
			--cidr=$SLIRP_CIDR --api-socket "$SLIRP_SOCK" \
			--netns-type=path "/run/netns/$N" tap0 >"$dlog" 2>&1 &
		DPID=$!
		GW=$SLIRP_GW
		;;
	esac

	if ! wait_for 200 sh -c "ip -n $N -o addr show | grep -q 'inet .*global'"; then
		NOTE_RUN="$impl did not configure the namespace: $(tail -n 1 "$dlog" | tr '\t' ' ')"
		return 1
	fi
	kill -0 "$DPID" 2>/dev/null || { NOTE_RUN="$impl exited: $(tail -n 1 "$dlog")"; return 1; }
	[ -n "$MTU_SEEN" ] || MTU_SEEN=$(ip -n "$N" -o link show | grep -v ' lo:' |
		sed -n 's/.* mtu \([0-9]*\).*/\1/p' | head -n 1)

	for fwd in tcp:$t udp:$u; do
		fp=${fwd#*:}
		[ "$impl" = slirp4netns ] && [ "$fp" != none ] || continue
		req="{\"execute\": \"add_hostfwd\", \"arguments\": {\"proto\": \"${fwd%%:*}\", \"host_addr\": \"0.0.0.0\", \"host_port\": $fp, \"guest_port\": $fp}}"
		if ! printf '%s' "$req" | timeout 5 "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
s.sendall(sys.stdin.read().encode()); s.shutdown(socket.SHUT_WR)
r = s.recv(4096).decode(); print(r); sys.exit(0 if "return" in r else 1)' \
			"$SLIRP_SOCK" >>"$dlog" 2>&1; then
			NOTE_RUN="slirp4netns add_hostfwd ${fwd%%:*} failed"
			return 1
		fi
	done
	if [ "$t" != none ] && ! wait_for 50 listening "$H" "$t"; then
		NOTE_RUN="$impl does not listen on forwarded port $t"
		return 1
	fi
	if [ "$u" != none ] && ! wait_for 50 listening_udp "$H" "$u"; then
		NOTE_RUN="$impl does not bind forwarded UDP port $u"
		return 1
	fi
	if [ "$T" != none ] && ! wait_for 50 listening "$N" "$T"; then
		NOTE_RUN="$impl does not listen on -T port $T in the namespace"
		return 1
	fi
	return 0
}

daemon_stop() {
	[ -n "$DPID" ] && kill_wait "$DPID"
	DPID=""
	ns_del "$N"
}

# placement IMPL PATH PORT - set SRV_NS SRV_ADDR CLI_NS CLI_DST
placement() {
	case "$1" in
	veth)
		case "$2" in
		wan_*) SRV_NS=$R; SRV_ADDR=$W_R4; CLI_NS=$H; CLI_DST=$W_R4 ;;
		*) SRV_NS=$H; SRV_ADDR=$H4; CLI_NS=$R; CLI_DST=$H4 ;;
		esac
		return ;;
	loopback) SRV_NS=$H; SRV_ADDR=127.0.0.1; CLI_NS=$H; CLI_DST=127.0.0.1; return ;;
	esac
	case "$2" in
	out) SRV_NS=$H; SRV_ADDR=127.0.0.1; CLI_NS=$N; CLI_DST=$GW ;;
	in) SRV_NS=$N; SRV_ADDR=0.0.0.0; CLI_NS=$R; CLI_DST=$H4 ;;
	splice_in) SRV_NS=$N; SRV_ADDR=0.0.0.0; CLI_NS=$H; CLI_DST=127.0.0.1 ;;
	splice_out) SRV_NS=$H; SRV_ADDR=127.0.0.1; CLI_NS=$N; CLI_DST=127.0.0.1 ;;
	wan_*) SRV_NS=$R; SRV_ADDR=$W_R4; CLI_NS=$N; CLI_DST=$W_R4 ;;
	esac
}

# server_start TOOL PORT - start the server in SRV_NS, wait until it listens
server_start() {
	life=$((DUR + 60))
	case "$1" in
	iperf3|iperf3u) ip netns exec "$SRV_NS" timeout $life iperf3 -s -1 -B "$SRV_ADDR" -p "$2" >/dev/null 2>&1 & ;;
	udpq) ip netns exec "$SRV_NS" "$OUT/udpq" serve "$SRV_ADDR" "$2" $life >/dev/null 2>&1 & ;;
	udpgso) ip netns exec "$SRV_NS" "$OUT/udpgso" serve "$SRV_ADDR" "$2" $life >/dev/null 2>&1 & ;;
	sockperf) ip netns exec "$SRV_NS" timeout $life sockperf server --tcp -i "$SRV_ADDR" -p "$2" >/dev/null 2>&1 & ;;
	wrk) ip netns exec "$SRV_NS" "$OUT/httpd" "$SRV_ADDR" "$2" $life >/dev/null 2>&1 & ;;
	flows) life=$((FLOWS_TIMEOUT + 60))
	       ip netns exec "$SRV_NS" timeout $life "$PY" "$here/flows.py" serve "$2" \
		--bind "$SRV_ADDR" --life $life >"$OUT/logs/$tag-server.log" 2>&1 & ;;
	esac
	SRV_PID=$!
	BG_PIDS="$BG_PIDS $SRV_PID"
	case "$1" in udpq|udpgso) wait_for 100 listening_udp "$SRV_NS" "$2"; return ;; esac
	wait_for 100 listening "$SRV_NS" "$2"
}

server_stop() {
	kill_wait "$SRV_PID"
	BG_PIDS=$(echo "$BG_PIDS" | tr ' ' '\n' | grep -v -x "$SRV_PID" | tr '\n' ' ')
}

# client_run TOOL SCEN PORT RAW - run the client in CLI_NS, output to RAW.
# In the background with a wait, so that a signal to this script is handled
# (and the client stopped by PID) without waiting for the client's timeout.
# Return: the client's exit code (124: timed out)
client_run() {
	lim=$((DUR + 30))
	case "$1" in
	iperf3)
		rev=""
		case "$2" in S2R|WD*) rev=-R ;; esac
		case "$2" in W*) [ -n "$WAN_CC" ] && rev="$rev -C $WAN_CC" ;; esac
		ip netns exec "$CLI_NS" timeout -k 5 $lim iperf3 -c "$CLI_DST" -p "$3" \
			-t "$DUR" -i 1 -J --connect-timeout 5000 $rev >"$4" 2>&1 & ;;
	iperf3u)
		# -w 4M: the receiver's buffer (within rmem_max), as a 8000-byte
		# burst overflows the default 208 KiB at the first hiccup
		ip netns exec "$CLI_NS" timeout -k 5 $lim iperf3 -c "$CLI_DST" -p "$3" \
			-u -b 0 -l "${2#U?.}" -w 4M -t "$DUR" -i 1 -J \
			--connect-timeout 5000 >"$4" 2>&1 & ;;
	udpq)
		# the gateway's MAC first: 2000 queries at once would overflow
		# the neighbour queue while ARP waits for the daemon's answer
		ip netns exec "$CLI_NS" ping -c 1 -W 1 "$CLI_DST" >/dev/null 2>&1
		ip netns exec "$CLI_NS" timeout -k 5 $lim "$OUT/udpq" run \
			"$CLI_DST" "$3" "${2#Q}" "$DUR" >"$4" 2>&1 & ;;
	udpgso)
		# the gateway's MAC first, as for udpq
		ip netns exec "$CLI_NS" ping -c 1 -W 1 "$CLI_DST" >/dev/null 2>&1
		ip netns exec "$CLI_NS" timeout -k 5 $lim "$OUT/udpgso" run \
			"$CLI_DST" "$3" "${2#G?.}" "$DUR" >"$4" 2>&1 & ;;
	sockperf)
		ip netns exec "$CLI_NS" timeout -k 5 $lim sockperf ping-pong --tcp \
			-i "$CLI_DST" -p "$3" -t "$DUR" >"$4" 2>&1 & ;;
	wrk)
		ip netns exec "$CLI_NS" timeout -k 5 $lim wrk -t 1 -c 16 -d "${DUR}s" \
			-H 'Connection: close' "http://$CLI_DST:$3/" >"$4" 2>&1 & ;;
	flows)
		ip netns exec "$CLI_NS" timeout -k 5 $((FLOWS_TIMEOUT + 30)) "$PY" \
			"$here/flows.py" run "$CLI_DST" "$3" "${2#M?.}" $FLOW_SIZE \
			--timeout $FLOWS_TIMEOUT >"$4" 2>&1 & ;;
	esac
	cli=$!
	BG_PIDS="$BG_PIDS $cli"
	wait $cli
	crc=$?
	BG_PIDS=$(echo "$BG_PIDS" | tr ' ' '\n' | grep -v -x "$cli" | tr '\n' ' ')
	return $crc
}

# row FIELDS... - append one tab-separated line to the TSV
row() {
	(IFS='	'; echo "$*") >>"$TSV"
}

# run_case REP SCEN IMPL VARIANT - one measurement, one TSV line
run_case() {
	rep=$1; scen=$2; impl=$3; variant=$4
	tag="$rep-$scen-$impl${variant:+-$variant}"
	why=$(impl_unsupported "$impl" "$scen")
	if [ -n "$why" ]; then
		row "$rep" "$scen" "$impl" "$variant" n/a - - - - - - - - - - - - "$why"
		return
	fi
	tool=$(scen_tool "$scen")
	path=$(scen_path "$scen")
	port=$(port_for "$tool" "$path")
	raw="$OUT/raw/$tag.txt"
	dlog="$OUT/logs/$tag.log"
	NOTE_RUN=""; GW=""; DPID=""
	veth_mtu_for "$scen"
	daemon=0
	case "$impl" in ours|base|pasta|upstream|slirp4netns) daemon=1 ;; esac

	if [ $daemon = 1 ] && ! daemon_start "$impl" "$scen" "$variant" "$dlog"; then
		daemon_stop
		log "$tag: n/a ($NOTE_RUN)"
		row "$rep" "$scen" "$impl" "$variant" n/a - - - - - - - - - - - - "$NOTE_RUN"
		return
	fi
	placement "$impl" "$path"
	case "$path" in
	wan_*)
		if ! delayline_start "$(wan_delay "$scen")" "$(wan_loss "$scen")" "$OUT/logs/$tag-delayline.log"; then
			delayline_stop
			[ $daemon = 1 ] && daemon_stop
			log "$tag: fail (delay line did not start)"
			row "$rep" "$scen" "$impl" "$variant" fail - - - - - - - - - - - - "delay line did not start"
			return
		fi ;;
	esac
	if ! server_start "$tool" "$port"; then
		server_stop
		delayline_stop
		[ $daemon = 1 ] && daemon_stop
		log "$tag: fail (server did not start)"
		row "$rep" "$scen" "$impl" "$variant" fail - - - - - - - - - - - - "server did not listen"
		return
	fi

	c0=""; [ $daemon = 1 ] && c0=$(cpu_ticks "$DPID")
	perf_start "$tag"
	wan_probe_start "$path"
	udp_probe_start "$scen"
	client_run "$tool" "$scen" "$port" "$raw"
	crc=$?
	udp_probe_stop "$scen"
	wan_probe_stop "$path"
	perf_stop "$tag"
	cpu=-; rss=-; alive=1; drops=-
	if [ $daemon = 1 ]; then
		c1=$(cpu_ticks "$DPID")
		drops=$(tap_drops)
		if [ -n "$c0" ] && [ -n "$c1" ]; then
			cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$CLK_TCK" 'BEGIN { printf "%.3f", (b - a) / hz }')
			rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$DPID/status" 2>/dev/null)
		else
			alive=0
		fi
		[ -n "$rss" ] || rss=-
	fi
	server_stop
	delayline_stop
	[ $daemon = 1 ] && daemon_stop

	# status value unit p99 bytes conns retrans stalls minfrac note
	# p50 max client_cpu
	res=$("$PY" "$here/bench.py" parse "$tool" "$raw" "$crc")
	[ $alive = 1 ] || res=$(printf 'fail\t-\t-\t-\t-\t-\t-\t-\t-\t%s' \
		"$impl died during the run: $(tail -n 1 "$dlog" | tr '\t' ' ')")
	if [ "$impl" = ours ] && [ "$scen" = S6 ]; then
		want="SO_PEEK_OFF"; [ "$variant" = fallback ] && want="discard buffer"
		grep -q "TCP reader:.*$want" "$dlog" 2>/dev/null ||
			res=$(echo "$res" | note_add "reader line \"$want\" not in the log")
	fi
	[ "$impl" = ours ] && res=$(echo "$res" | note_add "$(ours_notes "$scen" "$dlog")")
	# cpu per unit: s/GB for bulk, s per 1000 connections, s per 1M round trips
	per=$(echo "$res" | awk -F'\t' -v c="$cpu" -v t="$tool" '
		c == "-" || $1 != "ok" { print "-"; exit }
		(t ~ /^iperf3/ || t == "flows" || t == "udpgso") && $5 > 0 { printf "%.3f\n", c / ($5 / 1e9); exit }
		t == "udpq" && $6 > 0 { printf "%.3f\n", c / ($6 / 1e6); exit }
		t == "wrk" && $6 > 0 { printf "%.3f\n", c / ($6 / 1000); exit }
		t == "sockperf" && $6 > 0 { printf "%.3f\n", c / ($6 / 1e6); exit }
		{ print "-" }')
	row "$rep" "$scen" "$impl" "$variant" \
		"$(echo "$res" | cut -f1-6)" "$cpu" "$per" "$rss" "$drops" \
		"$(echo "$res" | cut -f7-)"
	log "$tag: $(echo "$res" | cut -f1-3 | tr '\t' ' ') cpu=${cpu}s rss=${rss}KiB"
}

# wan_probe_start PATH - for W runs: TCP counters (nstat) of H and R from
# here to wan_probe_stop, and ss -tin of H's TCP sockets towards R (and of
# N's and R's ends) at one third and two thirds of the run, in OUT/logs/TAG-probe.txt: how the
# host-side receiver's window (rcv_space, rcv_ssthresh, rcv_wnd) grows and
# what the remote sender retransmits
wan_probe_start() {
	PROBE_PID=""
	case "$1" in wan_*) ;; *) return 0 ;; esac
	for ns in "$H" "$R"; do NSTAT_HISTORY="$OUT/logs/.nstat-$ns" ip netns exec "$ns" nstat -n >/dev/null 2>&1; done
	(
		for t in 1 2; do
			sleep "$(awk -v d="$DUR" 'BEGIN { print d / 3 }')"
			echo "== ss -tin in H at $t/3 of the run"
			ip netns exec "$H" ss -tinm "dst $W_R4" 2>/dev/null
			[ -n "$DPID" ] && echo "== ss -tin in N" &&
				ip netns exec "$N" ss -tinm state established 2>/dev/null
			echo "== ss -tin in R (the remote end: cwnd, snd_wnd)"
			ip netns exec "$R" ss -tin "src $W_R4" 2>/dev/null
		done
	) >"$OUT/logs/$tag-probe.txt" 2>&1 &
	PROBE_PID=$!
	BG_PIDS="$BG_PIDS $PROBE_PID"
}

wan_probe_stop() {
	case "$1" in wan_*) ;; *) return 0 ;; esac
	kill_wait "$PROBE_PID"
	BG_PIDS=$(echo "$BG_PIDS" | tr ' ' '\n' | grep -v -x "$PROBE_PID" | tr '\n' ' ')
	for ns in "$H" "$R"; do
		echo "== nstat in $( [ "$ns" = "$H" ] && echo H || echo R) over the run"
		NSTAT_HISTORY="$OUT/logs/.nstat-$ns" ip netns exec "$ns" nstat 2>/dev/null | grep -E 'Retrans|TcpOutSegs|TcpInSegs|Prune|Collapse|RcvQDrop|OFO|Backlog|ZeroWindow|WinProbe|TCPRcvCoalesce|DSACK|SACKRecovery|LossProbes|Timeouts'
	done >>"$OUT/logs/$tag-probe.txt"
}

# udp_probe_start SCEN - for U, G and Q runs: the UDP counters (nstat) of
# H, R and, with a daemon, N from here to udp_probe_stop, in
# OUT/logs/TAG-udp.txt: where datagrams were lost (UdpRcvbufErrors of the
# receiver's namespace, or of H for the daemon's forwarded-port socket;
# UdpSndbufErrors of the sender's)
udp_probe_start() {
	case "$1" in U*|G*|Q*) ;; *) return 0 ;; esac
	for ns in "$H" "$R" ${DPID:+"$N"}; do
		NSTAT_HISTORY="$OUT/logs/.nstat-$ns" ip netns exec "$ns" nstat -n >/dev/null 2>&1
	done
}

udp_probe_stop() {
	case "$1" in U*|G*|Q*) ;; *) return 0 ;; esac
	for ns in "$H" "$R" ${DPID:+"$N"}; do
		echo "== nstat in $( [ "$ns" = "$H" ] && echo H || { [ "$ns" = "$R" ] && echo R || echo N; })"
		NSTAT_HISTORY="$OUT/logs/.nstat-$ns" ip netns exec "$ns" nstat 2>/dev/null | grep -E '^Udp|^Udp6|^IpExt(In|Out)(Octets|NoRoute)|^IpInDiscards|^IpOutDiscards'
	done >"$OUT/logs/$tag-udp.txt"
}

# tap_drops - frames the namespace's tap dropped on transmit (its queue to
# the daemon was full: the daemon did not read in time); - if unknown
tap_drops() {
	ip netns exec "$N" sh -c 'n=0; for d in /sys/class/net/*; do
		[ "${d##*/}" = lo ] || n=$((n + $(cat "$d/statistics/tx_dropped")))
		done; echo $n' 2>/dev/null || echo -
}

# perf_start TAG - with --perf, record the daemon's profile in the background
perf_start() {
	PERF_PID=""
	[ $PERF = 1 ] && [ -n "$DPID" ] || return 0
	mkdir -p "$OUT/perf"
	perf record -q -g -p "$DPID" -o "$OUT/perf/$1.data" >/dev/null 2>&1 &
	PERF_PID=$!
	BG_PIDS="$BG_PIDS $PERF_PID"
	sleep 0.2
}

# perf_stop TAG - end the recording (SIGINT), write the top symbols
perf_stop() {
	[ -n "$PERF_PID" ] || return 0
	kill -INT "$PERF_PID" 2>/dev/null
	i=0
	while kill -0 "$PERF_PID" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	kill_wait "$PERF_PID"
	BG_PIDS=$(echo "$BG_PIDS" | tr ' ' '\n' | grep -v -x "$PERF_PID" | tr '\n' ' ')
	timeout 120 perf report -i "$OUT/perf/$1.data" --stdio --no-children \
		--sort symbol -g none 2>/dev/null | grep -v '^#' | grep -v '^$' |
		head -n 40 >"$OUT/perf/$1.txt"
}

# note_add TEXT - append TEXT to the note (10th field) of the line on stdin
note_add() {
	awk -F'\t' -v OFS='\t' -v t="$1" '{ if (t != "") $10 = ($10 == "" || $10 == "-") ? t : $10 "; " t; print }'
}

# ours_notes SCEN LOG - what our --stats counters say that the client can't:
# whether S3/S3T were spliced, resets in S5 (iperf3 ends its data
# connections with one), retransmission timeouts
ours_notes() {
	sed -n 's/.*spliced flows \([0-9]*\).*/spliced \1/p
		s/.*RST to guest \([0-9]*\), RST to host \([0-9]*\).*/RST \1 \2/p
		s/.*RTO \([0-9]*\)).*/RTO \1/p' "$2" 2>/dev/null |
	awk -v scen="$1" '
		$1 == "spliced" && scen ~ /^S3/ { n = n sep ($2 > 0 ? "spliced flows " $2 : "not spliced (spliced flows 0)"); sep = "; " }
		$1 == "RST" && scen == "S5" && $2 + $3 > 0 { n = n sep "RST to ns " $2 ", to host " $3; sep = "; " }
		$1 == "RTO" && $2 > 0 { n = n sep "RTO " $2; sep = "; " }
		END { print n }'
}

# rotate LIST K - LIST (space-separated) rotated left by K
rotate() {
	echo "$1" | awk -v k="$2" '{ n = NF; for (i = 0; i < n; i++) printf "%s%s", $(((i + k) % n) + 1), (i < n - 1 ? " " : "\n") }'
}

version_of() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown
}

# Live migration (MIG.N): test/bench/migrate.sh moves a QEMU 10 guest
# holding N idle TCP connections from one passt --vhost-user to another;
# "ours" is PASST_BIN, "upstream" upstream's passt built from its tree
# (MIG_UPSTREAM), each side with the passt-repair beside its passt
QEMU10_DIR=${QEMU10_DIR:-$(dirname "$PASST_BIN")/qemu10}
MIG_UPSTREAM=${MIG_UPSTREAM:-$(dirname "$PASST_BIN")/upstream-passt/passt}
MIG_PAIRS=${MIG_PAIRS:-ours-ours,upstream-upstream,ours-upstream}
MIG_TSV="$OUT/migrate.tsv"
MIG_KEYS="conns survived total_ms downtime_ms paused_ms downtime_kib setup_ms wall_ms passt_src_ms passt_dst_ms tcp_src_ms tcp_dst_ms flows_src flows_dst setup_s probe_in_s probe_out_s tcp_src_cpu_ms tcp_dst_cpu_ms"

# mig_bin IMPL - the passt binary of IMPL (ours, upstream, base: BASE_BIN)
mig_bin() {
	case "$1" in
	ours) echo "$PASST_BIN" ;;
	upstream) echo "$MIG_UPSTREAM" ;;
	base) echo "${BASE_BIN:-}" ;;
	esac
}

# mig_pairs - the pairs of MIG_PAIRS to run: all of them, or with -i
# those whose two sides are both in the list
mig_pairs() {
	for p in $(echo "$MIG_PAIRS" | tr ',' ' '); do
		if [ $IMPLS_SET = 1 ]; then
			case ",$IMPLS," in *",${p%-*},"*) ;; *) continue ;; esac
			case ",$IMPLS," in *",${p#*-},"*) ;; *) continue ;; esac
		fi
		echo "$p"
	done | tr '\n' ' '
}

# run_mig REP SCEN PAIR - one migration (PAIR: SOURCE-DESTINATION), one
# line in the TSV (impl: the source, variant: to-DESTINATION, value: QMP's
# total-time in ms, count: connections intact after it) and one in
# migrate.tsv (every figure of migrate.sh's result)
run_mig() {
	rep=$1; scen=$2; src=${3%-*}; dst=${3#*-}
	tag="$rep-$scen-$3"
	res="$OUT/raw/$tag.txt"
	sb=$(mig_bin "$src"); db=$(mig_bin "$dst")
	why=""
	[ -x "$sb" ] || why="no $src passt at $sb"
	[ -x "$db" ] || why="no $dst passt at $db"
	case "$3" in ours-ours|upstream-upstream|ours-upstream|upstream-ours) ;;
	base-base|base-upstream|upstream-base) [ -n "${BASE_BIN:-}" ] || why="BASE_BIN not set" ;;
	*) why="unknown pair $3 (SOURCE-DESTINATION of ours, upstream, base)" ;; esac
	srcargs=""
	# a guest that moves to upstream's passt must not see our extra
	# virtio features (passt.1, --upstream-features)
	[ "$src" != upstream ] && [ "$dst" = upstream ] && srcargs=--upstream-features
	rc=77
	if [ -z "$why" ]; then
		: >"$res"
		PASST_BIN=$PASST_BIN QEMU10_DIR=$QEMU10_DIR MIG_CONNS=${scen#MIG.} \
			MIG_SRC_BIN=$sb MIG_DST_BIN=$db MIG_SRC_ARGS=$srcargs \
			MIG_RESULT=$res MIG_LOGS="$OUT/logs/$tag" \
			timeout -k 10 1500 sh "$here/migrate.sh" >"$OUT/logs/$tag.log" 2>&1 &
		cli=$!
		BG_PIDS="$BG_PIDS $cli"
		wait $cli
		rc=$?
		BG_PIDS=$(echo "$BG_PIDS" | tr ' ' '\n' | grep -v -x "$cli" | tr '\n' ' ')
		[ $rc = 77 ] && why=$(tail -n 1 "$OUT/logs/$tag.log")
	fi
	# get KEY - a value of the result file, - if none
	get() { v=$(sed -n "s/^$1=//p" "$res" 2>/dev/null | tail -n 1); echo "${v:--}"; }
	if [ $rc = 77 ]; then
		st=n/a; note=$why
	elif [ $rc = 0 ] && [ "$(get status)" = ok ]; then
		st=ok; note=-
	else
		st=fail; note=$(get note)
		[ "$note" = - ] && note="migrate.sh exited with $rc: $(tail -n 1 "$OUT/logs/$tag.log")"
	fi
	note=$(echo "$note" | tr '\t' ' ')
	row "$rep" "$scen" "$src" "to-$dst" "$st" "$(get total_ms)" ms - - \
		"$(get survived)" - - - - - - - "$note" - - -
	line="$rep	$scen	$3	$st"
	for k in $MIG_KEYS; do line="$line	$(get "$k")"; done
	printf '%s\t%s\n' "$line" "$note" >>"$MIG_TSV"
	log "$tag: $st total $(get total_ms) ms, downtime $(get downtime_ms) ms, paused $(get paused_ms) ms, passt $(get passt_src_ms)/$(get passt_dst_ms) ms, $(get survived) of ${scen#MIG.} intact${note#-}"
}

# --- main ---

setup_topology || { echo "bench: topology setup failed" >&2; exit 1; }
VETH_MTU0=$(ip -n "$H" -o link show h0 | sed -n 's/.* mtu \([0-9]*\).*/\1/p')
VETH_MTU_NOW=$VETH_MTU0
UDP_VETH_MTU=${UDP_VETH_MTU:-65520}

case ",$SCEN," in *,W*) WAN=1 ;; *) WAN=$WAN_CHECK ;; esac
if [ $WAN = 1 ]; then
	${CC:-cc} -O2 -Wall -Wextra -o "$OUT/delayline" "$here/delayline.c" 2>"$OUT/logs/delayline-build.log" ||
		{ echo "bench: delayline.c did not build: $(cat "$OUT/logs/delayline-build.log")" >&2; exit 1; }
	setup_wan || { echo "bench: WAN topology setup failed" >&2; exit 1; }
fi
if [ $WAN_CHECK = 1 ]; then
	wan_check
	exit $?
fi

case ",$SCEN," in *,Q*)
	${CC:-cc} -O2 -Wall -Wextra -o "$OUT/udpq" "$here/udpq.c" 2>"$OUT/logs/udpq-build.log" ||
		log "udpq.c did not build: Q scenarios will be n/a" ;;
esac
case ",$SCEN," in *,G*)
	${CC:-cc} -O2 -Wall -Wextra -o "$OUT/udpgso" "$here/udpgso.c" 2>"$OUT/logs/udpgso-build.log" ||
		log "udpgso.c did not build: G scenarios will be n/a" ;;
esac

if command -v wrk >/dev/null; then
	${CC:-cc} -O2 -Wall -Wextra -o "$OUT/httpd" "$here/httpd.c" 2>"$OUT/logs/httpd-build.log" ||
		log "httpd.c did not build: S5 will be n/a"
fi

printf 'rep\tscenario\timpl\tvariant\tstatus\tvalue\tunit\tp99_us\tbytes\tcount\tcpu_s\tcpu_per_unit\trss_kib\ttap_drops\tretrans\tstalls\tmin_interval_frac\tnote\tp50_us\tmax_us\tclient_cpu_s\n' >"$TSV"
case ",$SCEN," in *,MIG*)
	printf 'rep\tscenario\tpair\tstatus\t%s\tnote\n' "$(echo $MIG_KEYS | tr ' ' '\t')" >"$MIG_TSV" ;;
esac

{
	printf 'date\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
	printf 'kernel\t%s\n' "$(uname -r)"
	printf 'cpus\t%s\n' "$(nproc)"
	printf 'cpu_model\t%s\n' "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
	printf 'reps\t%s\n' "$REPS"
	printf 'duration_s\t%s\n' "$DUR"
	printf 'scenarios\t%s\n' "$SCEN"
	printf 'impls\t%s\n' "$IMPLS"
	printf 'ours_opts\t%s\n' "${OURS_OPTS:-}"
	printf 'base_opts\t%s\n' "${BASE_OPTS-${OURS_OPTS:-}}"
	printf 'smoke\t%s\n' "$SMOKE"
	printf 'note\t%s\n' "$NOTE"
	printf 'ours_version\t%s (source tree %s)\n' "$("$OURS_BIN" --version 2>&1 | head -n 1)" \
		"$(git -C "$here" describe --always --dirty 2>/dev/null || echo unknown)"
	printf 'pasta_version\t%s\n' "passt $(version_of passt)"
	printf 'upstream_version\t%s\n' "passt $(grep -A8 '^Package: passt$' "$CHROOT/var/lib/dpkg/status" 2>/dev/null | sed -n 's/^Version: //p')"
	[ -n "${BASE_BIN:-}" ] && printf 'base_version\t%s\n' "$("$BASE_BIN" --version 2>&1 | head -n 1)"
	printf 'slirp4netns_version\t%s\n' "slirp4netns $(version_of slirp4netns)"
	printf 'iperf3_version\t%s\n' "$(version_of iperf3)"
	printf 'sockperf_version\t%s\n' "$(version_of sockperf)"
	printf 'wrk_version\t%s\n' "$(version_of wrk)"
	printf 'python_version\t%s\n' "$("$PY" -V 2>&1)"
	# shellcheck disable=SC3045 # dash and bash both have ulimit -n and -H
	printf 'nofile\t%s\n' "$(ulimit -n)"
	printf 'flow_size\t%s\n' "$FLOW_SIZE"
	printf 'mtu_veth\t%s\n' "$(ip -n "$H" -o link show h0 | sed -n 's/.* mtu \([0-9]*\).*/\1/p')"
	case ",$SCEN," in *,[UQG]*) printf 'mtu_veth_udp\t%s\n' "$UDP_VETH_MTU" ;; esac
	printf 'mtu_lo\t%s\n' "$(ip -n "$H" -o link show lo | sed -n 's/.* mtu \([0-9]*\).*/\1/p')"
	[ $WAN = 1 ] && printf 'mtu_wan\t%s\n' "$WAN_MTU"
	[ $WAN = 1 ] && [ -n "$WAN_RATE" ] && printf 'rate_wan\t%s\n' "$WAN_RATE"
	[ $WAN = 1 ] && [ -n "$WAN_RATE" ] && printf 'queue_wan\t%s\n' "${WAN_QUEUE_MS:-2 x delay, >= 5}"
	case ",$SCEN," in *,MIG*)
		printf 'mig_pairs\t%s\n' "$(mig_pairs)"
		printf 'mig_qemu\t%s\n' "$("$QEMU10_DIR/usr/bin/qemu-system-x86_64" --version 2>/dev/null | head -n 1)"
		printf 'mig_upstream\t%s\n' "$("$MIG_UPSTREAM" --version 2>/dev/null | head -n 1) (git $(cut -c1-12 "$(dirname "$MIG_UPSTREAM")/.rev" 2>/dev/null))" ;;
	esac
} >"$META"

impls=$(echo "$IMPLS" | tr ',' ' ')
nimpl=$(echo "$impls" | wc -w)
log "bench: $REPS x ${DUR}s, scenarios $SCEN, implementations $IMPLS; results in $OUT"

rep=1
while [ $rep -le "$REPS" ]; do
	order=$(rotate "$impls" $(( (rep - 1) % nimpl )))
	for scen in $(echo "$SCEN" | tr ',' ' '); do
		case "$scen" in MIG.*)
			# once per pair, not per implementation
			pairs=$(mig_pairs)
			np=$(echo "$pairs" | wc -w)
			[ "$np" -gt 0 ] || continue
			for pair in $(rotate "$pairs" $(( (rep - 1) % np ))); do
				run_mig $rep "$scen" "$pair"
			done
			continue ;;
		esac
		for impl in $order; do
			if [ "$scen" = S6 ]; then
				# ours only: SO_PEEK_OFF and the forced fallback
				# back to back, their order alternating
				[ "$impl" = ours ] || continue
				if [ $((rep % 2)) = 1 ]; then vs="peek fallback"; else vs="fallback peek"; fi
				for v in $vs; do
					MTU_SEEN=""
					run_case $rep "$scen" ours "$v"
				done
				continue
			fi
			# smoke: many flows and UDP for ours and the kernel only
			case "$SMOKE:$scen:$impl" in
			1:[MUQ]*:ours|1:[MUQ]*:veth) ;;
			1:[MUQ]*) continue ;;
			esac
			MTU_SEEN=$(sed -n "s/^mtu_$impl\t//p" "$META")
			run_case $rep "$scen" "$impl" ""
			if [ $SMOKE = 1 ] && [ "$(tail -n 1 "$TSV" | cut -f5)" = fail ]; then
				# smoke checks the suite, not the machine: one more try
				log "smoke: $scen $impl failed, trying once more"
				sed -i '$d' "$TSV"
				run_case $rep "$scen" "$impl" ""
			fi
			[ -z "$(sed -n "s/^mtu_$impl\t//p" "$META")" ] && [ -n "$MTU_SEEN" ] &&
				printf 'mtu_%s\t%s\n' "$impl" "$MTU_SEEN" >>"$META"
		done
	done
	rep=$((rep + 1))
done

"$PY" "$here/bench.py" report "$TSV" "$META" >"$OUT/report.md" || exit 1
cat "$OUT/report.md"
[ $RM_OUT = 1 ] || echo "bench: raw results in $TSV, report in $OUT/report.md"

if [ $SMOKE = 1 ]; then
	"$PY" "$here/bench.py" smoke "$TSV" || { echo "bench: kept $OUT"; exit 1; }
	[ $RM_OUT = 1 ] && rm -rf "$OUT"
fi
exit 0
