#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/guest/vhost_bench.sh - passt stream socket vs --vhost-user, same guest
#
# Boots the same TCG guest on our passt twice per run, once with -netdev
# stream and once with vhost-user-net (guest RAM in a shared memfd), and
# runs iperf3 inside it to an iperf3 server on the host's loopback through
# the gateway: guest->host, then host->guest (-R).  For each direction it
# reads passt's utime + stime (/proc/PID/stat fields 14 and 15, in clock
# ticks) just before and after, and the bytes the iperf3 receiver counted,
# and prints Mbit/s and the daemon's CPU seconds per GB moved.  TCG sets
# the throughput ceiling; the CPU per GB is the figure to compare.
#
# Usage: PASST_BIN=build/passt sh test/guest/vhost_bench.sh
#   RUNS=1 IPERF_S=10
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"

top=$(cd "$here/../.." && pwd)
BUILD_DIR=$(cd "$(dirname "$PASST_BIN")" && pwd)
G=$BUILD_DIR/guest
RUNS=${RUNS:-1}
IPERF_S=${IPERF_S:-10}
GW4=$R4
TCK=$(getconf CLK_TCK)

make -s -C "$top" --no-print-directory BUILD="$BUILD_DIR" GUEST_EXTRA=iperf \
	guest || fail "make guest"

setup_topology
bg in_host iperf3 -s -B 127.0.0.1 -p 5201 >/dev/null 2>&1
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:5201 '" || fail "iperf3 -s"

mkdir -p "$WORK/run"
cat > "$WORK/run/run.sh" <<EOF
#!/bin/sh
ip link set eth0 up
udhcpc -i eth0 -f -q -n -t 10 -T 2 -O mtu -s /etc/udhcpc/script ||
	echo "GUEST udhcpc failed"
sleep 1
for d in up down; do
	r=; [ \$d = down ] && r=-R
	echo "GUEST mark \${d}0"
	sleep 1
	echo "GUEST \$d \$(iperf3 -c $GW4 -p 5201 -t $IPERF_S -f m \$r 2>&1 | grep receiver | tail -n 1)"
	echo "GUEST mark \${d}1"
	sleep 1
done
echo "GUEST bench done"
EOF
chmod 755 "$WORK/run/run.sh"
(cd "$WORK/run" && find . | cpio -o -H newc --quiet) | gzip -1 > "$WORK/run.cpio.gz"
cat "$G/base.cpio.gz" "$G/iperf.cpio.gz" "$WORK/run.cpio.gz" > "$WORK/initrd"

# cpu PID - utime + stime of PID, clock ticks
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# bytes LINE - bytes in an iperf3 receiver line ("... 512 MBytes ...")
bytes() {
	echo "$1" | awk '{ for (i = 2; i <= NF; i++) {
		if ($i == "KBytes") { printf "%.0f", $(i-1) * 1024; exit }
		if ($i == "MBytes") { printf "%.0f", $(i-1) * 1048576; exit }
		if ($i == "GBytes") { printf "%.0f", $(i-1) * 1073741824; exit } } }'
}

# one MODE - boot a guest on passt in MODE (stream, vhost), append results
one() {
	mode=$1
	mkdir -m 1777 -p "$WORK/s"
	sock=$WORK/s/$mode.sock
	rm -f "$sock"
	C=$WORK/console-$mode.log
	: > "$C"
	opt=; [ "$mode" = vhost ] && opt=--vhost-user
	ip netns exec "$H" "$PASST_BIN" -f -q $opt -s "$sock" >"$WORK/passt-$mode.log" 2>&1 &
	pp=$!
	track $pp
	wait_for test -S "$sock" || { cat "$WORK/passt-$mode.log"; fail "$mode: no socket"; }
	if [ "$mode" = vhost ]; then
		net="-object memory-backend-memfd,id=m,share=on,size=512M -numa node,memdev=m
		     -chardev socket,id=c,path=$sock -netdev vhost-user,id=n0,chardev=c
		     -device virtio-net-pci,netdev=n0,vectors=0"
	else
		net="-netdev stream,id=n0,server=off,addr.type=unix,addr.path=$sock
		     -device virtio-net-pci,netdev=n0"
	fi
	# shellcheck disable=SC2086
	qemu-system-x86_64 -accel tcg -m 512 -nodefaults -display none \
		-no-reboot -serial "file:$C" -kernel "$G/vmlinuz" \
		-initrd "$WORK/initrd" -append "console=ttyS0 quiet panic=-1" \
		$net &
	qp=$!
	track $qp
	line="$mode"
	for d in up down; do
		WAIT_S=150 wait_for grep -q "^GUEST mark ${d}0" "$C" ||
			{ cat "$C"; fail "$mode: no $d start"; }
		c0=$(cpu $pp)
		WAIT_S=$((IPERF_S + 60)) wait_for grep -q "^GUEST mark ${d}1" "$C" ||
			{ cat "$C"; fail "$mode: no $d end"; }
		c1=$(cpu $pp)
		res=$(sed -n "s/^GUEST $d //p" "$C" | tr -d '\r')
		b=$(bytes "$res")
		rate=$(echo "$res" | awk '{ for (i = 2; i <= NF; i++) if ($i == "Mbits/sec") print $(i-1) }')
		cpg=$(awk "BEGIN { if (${b:-0} > 0) printf \"%.2f\", ($c1 - $c0) / $TCK / (${b:-0} / 1e9); else print \"?\" }")
		line="$line ${rate:-0} $cpg $(( c1 - c0 )) ${b:-0}"
		log "$mode $d: ${rate:-?} Mbit/s, ${b:-?} bytes, passt CPU $(( c1 - c0 )) ticks: $cpg s/GB"
	done
	echo "$line" >> "$WORK/results"
	kill $qp 2>/dev/null
	wait $qp 2>/dev/null
	kill $pp 2>/dev/null
	wait $pp 2>/dev/null
}

run=0
while [ $run -lt "$RUNS" ]; do
	one stream
	one vhost
	run=$((run + 1))
done
echo
echo "mode   up_Mbit/s up_cpu_s/GB  down_Mbit/s down_cpu_s/GB  (one line per run)"
awk '{ printf "%-6s %9s %12s %12s %14s\n", $1, $2, $3, $6, $7 }' "$WORK/results"
pass "vhost bench done"
