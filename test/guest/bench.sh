#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/guest/bench.sh - passt mode figures with a QEMU guest: boot to DHCP
# lease, and TCP throughput measured by iperf3 inside the guest, to an
# iperf3 server on the host's loopback through the gateway address
# (guest->host) and back with -R (host->guest).  Runs our passt and a
# reference passt (default: Debian's /usr/bin/passt) interleaved, RUNS times
# each, and prints medians with min and max.
#
# Usage: PASST_BIN=build/passt sh test/guest/bench.sh
#   RUNS=3 IPERF_S=8 REF_BIN=/usr/bin/passt
# The machine is shared and QEMU runs with TCG: the guest's CPU emulation,
# not passt, sets the ceiling; compare the two in the same run only.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"

top=$(cd "$here/../.." && pwd)
BUILD_DIR=$(cd "$(dirname "$PASST_BIN")" && pwd)
G=$BUILD_DIR/guest
RUNS=${RUNS:-3}
IPERF_S=${IPERF_S:-8}
REF_BIN=${REF_BIN:-/usr/bin/passt}
GW4=$R4

[ -x "$REF_BIN" ] || skip "no reference passt at $REF_BIN (Debian package passt)"
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
rate() { # iperf3 text output: bits/s of the receiver line, Mbit/s
	sed -n 's/.* \([0-9.]*\) \([MG]\)bits\/sec.*receiver.*/\1 \2/p' | tail -n 1 |
		awk '{ print (\$2 == "G") ? \$1 * 1000 : \$1 }'
}
echo "GUEST up \$(iperf3 -c $GW4 -p 5201 -t $IPERF_S -f m 2>&1 | rate)"
echo "GUEST down \$(iperf3 -c $GW4 -p 5201 -t $IPERF_S -f m -R 2>&1 | rate)"
EOF
chmod 755 "$WORK/run/run.sh"
(cd "$WORK/run" && find . | cpio -o -H newc --quiet) | gzip -1 > "$WORK/run.cpio.gz"
cat "$G/base.cpio.gz" "$G/iperf.cpio.gz" "$WORK/run.cpio.gz" > "$WORK/initrd"

# one RUN BIN LABEL - boot a guest on BIN, append "LABEL lease up down"
one() {
	bin=$1; label=$2
	mkdir -p "$WORK/s" && chmod 1777 "$WORK/s"
	sock=$WORK/s/$label.sock
	rm -f "$sock" "$WORK/console.log"
	q=-q
	[ "$label" = ours ] && q=	# keep info: the stats lines below
	ip netns exec "$H" "$bin" -f $q -s "$sock" >"$WORK/passt.log" 2>&1 &
	pp=$!
	track $pp
	wait_for test -S "$sock" || { cat "$WORK/passt.log"; fail "$label: no socket"; }
	t0=$(date +%s.%N)
	qemu-system-x86_64 -accel tcg -m 512 -nodefaults -display none \
		-no-reboot -serial "file:$WORK/console.log" -kernel "$G/vmlinuz" \
		-initrd "$WORK/initrd" -append "console=ttyS0 quiet panic=-1" \
		-netdev "stream,id=n0,server=off,addr.type=unix,addr.path=$sock" \
		-device virtio-net-pci,netdev=n0 &
	qp=$!
	track $qp
	WAIT_S=90 wait_for grep -q "^GUEST lease" "$WORK/console.log" ||
		{ cat "$WORK/console.log"; fail "$label: no lease"; }
	t1=$(date +%s.%N)
	WAIT_S=$((IPERF_S * 2 + 60)) wait_for grep -q "^GUEST down" "$WORK/console.log" ||
		{ cat "$WORK/console.log"; fail "$label: no iperf3 result"; }
	up=$(sed -n 's/^GUEST up //p' "$WORK/console.log" | tr -d '\r')
	down=$(sed -n 's/^GUEST down //p' "$WORK/console.log" | tr -d '\r')
	lease=$(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }")
	guest=$(sed -n 's/^GUEST lease .* t=//p' "$WORK/console.log" | tr -d '\r')
	echo "$label $lease $guest ${up:-0} ${down:-0}" >> "$WORK/results"
	log "$label: boot to lease ${lease} s (guest uptime $guest s), guest->host ${up:-?} Mbit/s, host->guest ${down:-?} Mbit/s"
	wait $qp 2>/dev/null
	if [ "$label" = ours ]; then
		kill -USR1 $pp
		wait_for grep -q "stream short writes" "$WORK/passt.log"
		log "$label: $(grep -h -e 'stats: tap' -e 'short writes' "$WORK/passt.log" | sed 's/.*stats: //' | tr '\n' ';')"
	fi
	kill $pp 2>/dev/null
	wait $pp 2>/dev/null
}

log "ours: $PASST_BIN; reference: $REF_BIN ($(dpkg-query -W -f='${Version}' passt 2>/dev/null))"
run=0	# not "i": wait_for uses that
while [ $run -lt "$RUNS" ]; do
	one "$PASST_BIN" ours
	one "$REF_BIN" ref
	run=$((run + 1))
done

# median/min/max of column $2 for label $1
stat() {
	awk -v l="$1" -v c="$2" '$1 == l { print $c }' "$WORK/results" | sort -n |
		awk '{ v[NR] = $1 } END {
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%s (min %s, max %s)", m, v[1], v[NR] }'
}
echo
printf "%-10s %-28s %-28s %-30s %-30s\n" "" "boot->lease s (wall)" "guest uptime at lease s" \
	"guest->host Mbit/s" "host->guest Mbit/s"
for l in ours ref; do
	printf "%-10s %-28s %-28s %-30s %-30s\n" "$l" "$(stat $l 2)" "$(stat $l 3)" \
		"$(stat $l 4)" "$(stat $l 5)"
done
pass "bench done"
