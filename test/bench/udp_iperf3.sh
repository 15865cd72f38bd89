#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/bench/udp_iperf3.sh - UDP throughput namespace -> host with iperf3 -u,
# ours next to Debian's pasta (/usr/bin/pasta, package passt) in the same
# run, interleaved.  Not part of make check.
#
#   PASST_BIN=build/passt test/bench/udp_iperf3.sh [ROUNDS] [SECONDS]
#
# The iperf3 server runs in the scratch host namespace H; the client runs in
# the namespace pasta connects and sends to the gateway address, which both
# implementations map to H's loopback.  For each datagram length and target
# rate, prints the median (min-max) over ROUNDS of the rate the receiver
# saw (iperf3's sum_received) and of the loss iperf3 reports (datagrams
# sent that the server never got, wherever they were dropped: the daemon,
# or the server's socket buffer: -w 4M asks for 4 MiB, within
# net.core.rmem_max here, as 16 or 64 KiB datagrams would overflow the
# default 208 KiB at the first scheduling hiccup of the server).
. "$(dirname "$0")/../integration/lib.sh"

ROUNDS=${1:-3}
SECS=${2:-5}
LENS=${LENS:-"1400 16000 65000"}
RATES=${RATES:-"1G 4G 10G"}
DEB_PASTA=${DEB_PASTA:-/usr/bin/pasta}

command -v iperf3 >/dev/null || skip "iperf3 not installed"
[ -x "$DEB_PASTA" ] || skip "$DEB_PASTA not installed (package passt)"
setup_topology
in_host iperf3 -s -B 127.0.0.1 -p 5201 >"$WORK/server.log" 2>&1 &
track $!
wait_for in_host sh -c "ss -tln | grep -q ':5201 '" || fail "iperf3 server"

# run_one BIN LEN RATE - one measurement, prints "Mbit/s loss%"
run_one() {
	make_target_ns_once
	case "$1" in
	ours) start_pasta ;;
	deb)
		ip netns exec "$H" "$DEB_PASTA" -f -q --config-net --runas 0 \
			-t none -u none -T none -U none \
			--netns "/run/netns/$N" >"$WORK/deb.log" 2>&1 &
		PASTA_PID=$!
		track $PASTA_PID
		wait_for sh -c "ip -n $N -o addr show | grep -q 'inet .*global'" ||
			{ cat "$WORK/deb.log"; fail "Debian pasta"; }
		;;
	esac
	sleep 0.5
	in_ns iperf3 -c $R4 -p 5201 -u -b "$3" -l "$2" -t "$SECS" -w 4M -J \
		>"$WORK/out.json" 2>"$WORK/iperf3.err"
	stop_pasta
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
e = d["end"]
print("%.0f %.2f" % (e["sum_received"]["bits_per_second"] / 1e6,
                     e["sum"]["lost_percent"]))
' "$WORK/out.json" 2>/dev/null || echo "nan nan"
}

make_target_ns_once() {
	echo $NAMESPACES | grep -qw "$N" || make_target_ns
}

median() { sort -n | awk '{ a[NR] = $1 } END {
	printf "%s (%s-%s)", a[int((NR + 1) / 2)], a[1], a[NR] }'; }

echo "kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), MTU 65520 both"
printf "%-6s %-5s %-6s %-28s %-22s\n" len rate impl "receiver Mbit/s med(min-max)" "loss % med(min-max)"
for len in $LENS; do
	for rate in $RATES; do
		: >"$WORK/ours"; : >"$WORK/deb"
		r=0
		while [ $r -lt "$ROUNDS" ]; do
			run_one ours "$len" "$rate" >>"$WORK/ours"
			run_one deb "$len" "$rate" >>"$WORK/deb"
			r=$((r + 1))
		done
		for impl in ours deb; do
			printf "%-6s %-5s %-6s %-28s %-22s\n" "$len" "$rate" "$impl" \
				"$(cut -d' ' -f1 "$WORK/$impl" | median)" \
				"$(cut -d' ' -f2 "$WORK/$impl" | median)"
		done
	done
done
