#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/bench/vhost_iperf3.sh - passt stream socket vs --vhost-user without and
# with TSO, the same TCG guest, iperf3 both ways, passt CPU seconds per GB
#
# For each mode the same guest kernel and initramfs boot on a fresh passt
# (-m $BENCH_MTU, so the guest's MTU is small enough for segmentation
# offload to matter), take their lease, and run iperf3 to an iperf3 server
# on the host's loopback through the gateway: guest -> host ("up"), then
# host -> guest (-R, "down").  Modes:
#   stream       -netdev stream (4-byte length per frame over the socket)
#   vhost        -netdev vhost-user, virtio-net-pci with guest_tso4/6 and
#                host_tso4/6 off: checksum offload only, one frame per MSS
#   vhost-tso    -netdev vhost-user with QEMU's defaults: the guest
#                negotiates VIRTIO_NET_F_GUEST_TSO4/6 and HOST_TSO4/6 that
#                passt offers, so TCP crosses in 64 KiB super-frames
# For each direction passt's utime + stime (/proc/PID/stat fields 14 and 15,
# clock ticks) are read just before and after, next to the bytes the
# iperf3 receiver counted: Mbit/s and passt CPU seconds per GB moved.  The
# guest prints the virtio features its driver negotiated
# (/sys/class/net/eth0/device/features, bit 0 first) so the table shows
# what each mode really ran with, and passt's counters (SIGUSR1) give the
# frames each way.  TCG sets the throughput ceiling; the CPU per GB is the
# figure to compare.  Not part of make check (three TCG boots, ~3 min).
#
# Usage: PASST_BIN=build/passt sh test/bench/vhost_iperf3.sh
#   MODES="stream vhost vhost-tso" RUNS=1 IPERF_S=10 BENCH_MTU=1500
# Run as root (namespaces); addresses from the documentation ranges only,
# in namespaces with no route out (test/integration/lib.sh).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"

top=$(cd "$here/../.." && pwd)
BUILD_DIR=$(cd "$(dirname "$PASST_BIN")" && pwd)
G=$BUILD_DIR/guest
RUNS=${RUNS:-1}
IPERF_S=${IPERF_S:-10}
BENCH_MTU=${BENCH_MTU:-1500}
MODES=${MODES:-stream vhost vhost-tso}
QEMU=${QEMU:-qemu-system-x86_64}
GW4=$R4
TCK=$(getconf CLK_TCK)

command -v "$QEMU" >/dev/null || skip "no $QEMU (Debian package qemu-system-x86)"
[ "$(id -u)" = 0 ] || skip "needs root (namespaces)"
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
echo "GUEST features \$(cat /sys/class/net/eth0/device/features)"
echo "GUEST mtu \$(cat /sys/class/net/eth0/mtu)"
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
sleep 600
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

# bit FEATURES N - bit N of the guest's feature string (bit 0 first)
bit() { echo "$1" | cut -c$(($2 + 1)); }

# one MODE - boot a guest on passt in MODE, append a line to results
one() {
	mode=$1
	mkdir -p "$WORK/s" && chmod 1777 "$WORK/s"
	sock=$WORK/s/$mode.sock
	rm -f "$sock"
	C=$WORK/console-$mode.log
	: > "$C"
	opt=; [ "$mode" != stream ] && opt=--vhost-user
	ip netns exec "$H" "$PASST_BIN" -f $opt -m "$BENCH_MTU" -s "$sock" \
		>"$WORK/passt-$mode.log" 2>&1 &
	pp=$!
	track $pp
	wait_for test -S "$sock" || { cat "$WORK/passt-$mode.log"; fail "$mode: no socket"; }
	dev=virtio-net-pci,netdev=n0
	case $mode in
	stream)
		net="-netdev stream,id=n0,server=off,addr.type=unix,addr.path=$sock" ;;
	vhost*)
		# vectors=0: see test/integration/passt_vhost_qemu.sh (QEMU 7.2
		# TCG and vhost-user MSI-X)
		net="-object memory-backend-memfd,id=m,share=on,size=512M
		     -numa node,memdev=m
		     -chardev socket,id=c,path=$sock
		     -netdev vhost-user,id=n0,chardev=c"
		dev="$dev,vectors=0"
		[ "$mode" = vhost ] &&
			dev="$dev,guest_tso4=off,guest_tso6=off,host_tso4=off,host_tso6=off"
		;;
	esac
	# shellcheck disable=SC2086
	"$QEMU" -accel tcg -m 512 -nodefaults -display none \
		-no-reboot -serial "file:$C" -kernel "$G/vmlinuz" \
		-initrd "$WORK/initrd" -append "console=ttyS0 quiet panic=-1" \
		$net -device "$dev" &
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
	f=$(sed -n 's/^GUEST features //p' "$C" | tr -d '\r')
	mtu=$(sed -n 's/^GUEST mtu //p' "$C" | tr -d '\r')
	tso="g$(bit "$f" 7)$(bit "$f" 8)/h$(bit "$f" 11)$(bit "$f" 12)"
	kill -USR1 $pp 2>/dev/null
	sleep 1
	st=$(grep "stats: tap rx" "$WORK/passt-$mode.log" | tail -n 1)
	log "$mode: guest MTU $mtu, TSO guest4/6 host4/6 $tso; $st"
	echo "$line $mtu $tso" >> "$WORK/results"
	kill $qp 2>/dev/null
	wait $qp 2>/dev/null
	kill $pp 2>/dev/null
	wait $pp 2>/dev/null
}

run=0
while [ $run -lt "$RUNS" ]; do
	for m in $MODES; do one "$m"; done
	run=$((run + 1))
done
echo
echo "| mode | guest MTU | TSO (guest 4/6, host 4/6) | up Mbit/s | up passt CPU s/GB | down Mbit/s | down passt CPU s/GB |"
echo "|---|---|---|---|---|---|---|"
awk '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $10, $11, $2, $3, $6, $7 }' "$WORK/results"
cp "$WORK/results" "${BENCH_OUT:-/tmp}/vhost_iperf3.results" 2>/dev/null
pass "vhost_iperf3 done"
