#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/bench/splice_iperf3.sh - iperf3 through the loopback splice path, both
# ways, next to plain loopback (the kernel's own limit) and Debian's pasta
# (/usr/bin/pasta, package passt) on the same scenario, interleaved
#
# Usage: PASST_BIN=build/passt sh test/bench/splice_iperf3.sh [ROUNDS] [SECONDS]
#
# Scenario (scratch namespaces from test/integration/lib.sh): our pasta
# connects N, Debian's pasta connects N2, both started in H.
#   host->ns: iperf3 client in H to 127.0.0.1:PORT (-t), server in N/N2
#   ns->host: iperf3 client in N/N2 to 127.0.0.1:PORT (-T), server in H
#   loopback: client and server in H on 127.0.0.1
# Each round runs every case once for SECONDS (default 5); the report has
# the median, min and max of ROUNDS (default 5) rounds, and the daemon's CPU
# time (utime + stime from /proc/PID/stat) per GB carried.  Throughput
# depends on the machine and its load: compare within one run only.
. "$(dirname "$0")/../integration/lib.sh"

ROUNDS=${1:-5}
SECS=${2:-5}
DEB_PASTA=${DEB_PASTA:-/usr/bin/pasta}
command -v iperf3 >/dev/null || skip "iperf3 missing"
HZ=$(getconf CLK_TCK)

# cpu PID - utime + stime of a process, clock ticks
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

setup_topology
PASTA_DEBUG=-q start_pasta -t 5201 -T 5202:5203
OURS=$PASTA_PID

DEB=""
if [ -x "$DEB_PASTA" ]; then
	N2=n2-$TEST_ID
	ip netns add "$N2"
	NAMESPACES="$NAMESPACES $N2"
	# As root it would switch to nobody, who can't enter N2 later
	ip netns exec "$H" "$DEB_PASTA" -f -q --config-net -t 5211 -T 5212:5213 \
		-u none -U none --runas 0 --netns "/run/netns/$N2" \
		> "$WORK/deb.log" 2>&1 &
	DEB=$!
	track $DEB
	wait_for sh -c "ip -n $N2 -o addr show | grep -q 'inet .*global'" ||
		{ cat "$WORK/deb.log"; fail "Debian's pasta did not configure $N2"; }
	DEB_VER="$DEB_PASTA, package passt $(dpkg-query -W -f='${Version}' passt 2>/dev/null)"
fi

bg in_ns sh -c "exec iperf3 -s -p 5201 > /dev/null 2>&1"
for p in 5203 5213 5301; do bg in_host sh -c "exec iperf3 -s -p $p > /dev/null 2>&1"; done
[ -n "$DEB" ] && bg ip netns exec "$N2" sh -c "exec iperf3 -s -p 5211 > /dev/null 2>&1"
sleep 1

# run CASE PID NS PORT - one iperf3 client run; appends
# "CASE Gbit/s cpu_s_per_GB" to $WORK/results
run() {
	c0=0; [ "$2" != - ] && c0=$(cpu "$2")
	ip netns exec "$3" iperf3 -c 127.0.0.1 -p "$4" -t "$SECS" -J > "$WORK/j" 2>&1 ||
		{ cat "$WORK/j"; fail "$1: iperf3"; }
	c1=0; [ "$2" != - ] && c1=$(cpu "$2")
	python3 - "$1" $((c1 - c0)) "$HZ" "$WORK/j" >> "$WORK/results" <<'PY'
import json, sys
name, ticks, hz, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
r = json.load(open(path))["end"]["sum_received"]
gb = r["bytes"] / 1e9
print("%s %.2f %.3f" % (name, r["bits_per_second"] / 1e9, ticks / hz / gb))
PY
	tail -n 1 "$WORK/results"
}

for i in $(seq 1 "$ROUNDS"); do
	log "round $i of $ROUNDS"
	run loopback - "$H" 5301
	run ours_host_to_ns "$OURS" "$H" 5201
	run ours_ns_to_host "$OURS" "$N" 5202
	if [ -n "$DEB" ]; then
		run debian_host_to_ns "$DEB" "$H" 5211
		run debian_ns_to_host "$DEB" "$N2" 5212
	fi
done
pasta_alive

echo
echo "kernel $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, lo MTU $(ip -n "$H" -o link show lo | sed 's/.*mtu \([0-9]*\).*/\1/')"
echo "Debian's pasta: ${DEB_VER:-not found}"
echo "iperf3 -t $SECS, $ROUNDS rounds: median (min-max)"
python3 - "$WORK/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, gbps, cpu = line.split()
    rows.setdefault(name, []).append((float(gbps), float(cpu)))
print("%-20s %22s %26s" % ("case", "Gbit/s", "daemon CPU s per GB"))
for name, v in rows.items():
    g = [x[0] for x in v]; c = [x[1] for x in v]
    cpu = "-" if name == "loopback" else "%.3f (%.3f-%.3f)" % (statistics.median(c), min(c), max(c))
    print("%-20s %22s %26s" % (name, "%.2f (%.2f-%.2f)" % (statistics.median(g), min(g), max(g)), cpu))
PY
