#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_vhost_qemu.sh - A real guest on passt --vhost-user: QEMU (TCG) with
# vhost-user-net, guest RAM in a shared memfd.  The guest takes its DHCP
# lease and its IPv6 address (SLAAC) from us, fetches a file over IPv4 and
# IPv6 from an HTTP server on H's loopback through the gateway address
# (host -> guest), then serves it: a client in R fetches it through passt
# -t over IPv4 and IPv6 (guest -> host); sizes and sha256 compared.  Then
# QEMU is killed: passt must notice, keep running, and take a second guest
# that leases and fetches a small file.
#
# FILE_MIB (default 64, as issue 16 asks) sets the size each way;
# VHOST_SHORT=1 makes it 8.
# VHOST_RESTART=1 (opt-in, make check-vhost-restart): while R fetches the
# file from the guest (IPv4) a second time, a new passt takes over the
# running one (--restart-from its -c socket, passt.1): QEMU and the guest
# must see nothing, the fetch must end whole (size, sha256), and the rest
# of the test (IPv6 fetch, the second guest) runs on the new passt.
# Release lane of make check only (no "asan: yes"): two TCG boots.
# Time goes to the boots (~4-6 s each with the uncompressed kernel of
# "make guest", twice that from the bzImage); the log says where it went.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=$(cd "$(dirname "$PASST_BIN")" && pwd)
G=$BUILD_DIR/guest
QEMU=${QEMU:-qemu-system-x86_64}
if [ "${VHOST_SHORT:-0}" = 1 ]; then FILE_MIB=${FILE_MIB:-8}; fi
FILE_MIB=${FILE_MIB:-64}
# The guest keeps the file it fetched in its tmpfs, twice while fetching
MEM_MIB=$(( FILE_MIB > 16 ? 512 : 256 ))
GUEST_PORT=8081
GW4=$R4
GW6=$R6

command -v "$QEMU" >/dev/null || skip "no $QEMU (Debian package qemu-system-x86)"
[ "$(id -u)" = 0 ] || skip "needs root (namespaces)"
if ! make -s -C "$top" --no-print-directory BUILD="$BUILD_DIR" guest \
	>"$WORK/mkguest.log" 2>&1; then
	cat "$WORK/mkguest.log"
	skip "no guest kernel: apt-get download from Debian's mirror failed"
fi
# The ELF kernel boots through its PVH entry, without the bzImage's
# decompressor (~5 s under TCG)
KERNEL=$G/vmlinuz
[ -s "$G/vmlinux" ] && KERNEL=$G/vmlinux
# No crypto self-tests (~0.7 s under TCG), no speculation mitigations (TCG
# runs the retpolines too)
APPEND="console=ttyS0 quiet panic=-1 cryptomgr.notests mitigations=off"

T0=$(date +%s.%N)
# since [T] - seconds since T (default: the start), one decimal
since() { awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - ${1:-$T0} }"; }

setup_topology

mkdir -p "$WORK/www" "$WORK/run"
make_file "$WORK/www/file" "$FILE_MIB"
head -c 262144 /dev/urandom > "$WORK/www/small"
want_host=$(sum "$WORK/www/file")
want_small=$(sum "$WORK/www/small")
size=$(( FILE_MIB * 1024 * 1024 ))

( cd "$WORK/www" && exec ip netns exec "$H" python3 -m http.server 8080 --bind :: ) \
	>/dev/null 2>&1 &
track $!
wait_for in_host sh -c "ss -ltn | grep -q ':8080 '" || fail "http server"

# The guest's script.  IPv6 duplicate address detection is off in the guest
# (nobody else is on its link): it held the link-local address, and with it
# the router solicitation, then the SLAAC address, ~4 s in all.  The second
# guest (vhost_second on the kernel command line) only leases and fetches a
# small file.  The first one serves the file it fetched over IPv4, checked
# by then: data made in a TCG guest costs seconds.
cat > "$WORK/run/run.sh" <<EOF
#!/bin/sh
up() { cut -d' ' -f1 /proc/uptime; }
fetch() { # NAME URL - to /tmp/NAME, then its size and sha256
	t=\$(up)
	if timeout 120 wget -q -O /tmp/\$1 "\$2"; then
		echo "GUEST \$1 \$(wc -c < /tmp/\$1) \$(sha256sum /tmp/\$1 | cut -d' ' -f1)"
		echo "GUEST time \$1 \$t \$(up)"
	else
		echo "GUEST \$1 failed"
	fi
}
for c in all default eth0; do
	echo 0 > /proc/sys/net/ipv6/conf/\$c/accept_dad
done
ip link set eth0 up
udhcpc -i eth0 -f -q -n -t 10 -T 2 -O mtu -s /etc/udhcpc/script ||
	echo "GUEST udhcpc failed"
if grep -q vhost_second /proc/cmdline; then
	fetch second http://$GW4:8080/small
	sleep 600
fi
i=0; t6=\$(up)
while [ \$i -lt 150 ] && ! ip -6 addr show dev eth0 scope global | grep -v tentative | grep -q inet6; do
	sleep 0.1; i=\$((i + 1))
done
echo "GUEST time addr6 \$t6 \$(up)"
echo "GUEST addr6 \$(ip -6 addr show dev eth0 scope global | sed -n 's/.*inet6 \([^ ]*\).*/\1/p' | head -n 1)"
fetch get4 http://$GW4:8080/file
fetch get6 "http://[$GW6]:8080/file"
rm -f /tmp/get6
ping -c 1 -W 5 $GW4 >/dev/null 2>&1 && echo "GUEST ping4 ok"
mv /tmp/get4 /www/file
httpd -p $GUEST_PORT -h /www && echo "GUEST httpd ready"
sleep 600
EOF
chmod 755 "$WORK/run/run.sh"
(cd "$WORK/run" && find . | cpio -o -H newc --quiet) > "$WORK/run.cpio"
cat "$G/base.cpio.gz" > "$WORK/initrd"
gzip -1 -c "$WORK/run.cpio" >> "$WORK/initrd"

mkdir -m 1777 "$WORK/s"
S=$WORK/s/passt.sock
start_passt "$S" --vhost-user -t $GUEST_PORT -c "$WORK/ctl"

# qemu CONSOLE EXTRA_CMDLINE - a guest on the vhost-user socket; QEMU_PID
# vectors=0 (INTx, no MSI-X): QEMU 7.2 under TCG dereferences its absent
# KVM irqfd table when vhost-user unmasks MSI-X vectors (SIGSEGV in
# msix_set_vector_notifiers() at the guest's DRIVER_OK); QEMU 10.0 doesn't
qemu() {
	bg "$QEMU" -accel tcg -m $MEM_MIB -nodefaults -display none -no-reboot \
		-object "memory-backend-memfd,id=m,share=on,size=${MEM_MIB}M" \
		-numa node,memdev=m \
		-serial "file:$1" -kernel "$KERNEL" \
		-initrd "$WORK/initrd" -append "$APPEND $2" \
		-chardev "socket,id=c,path=$S" \
		-netdev vhost-user,id=n0,chardev=c \
		-device virtio-net-pci,netdev=n0,vectors=0
	QEMU_PID=$BG_PID
}
C=$WORK/console.log
guest_says() { WAIT_S=${2:-60} wait_for grep -q "^GUEST $1" "$C"; }
gline() { sed -n "s/^GUEST $1 //p" "$C" | tr -d '\r' | head -n 1; }
show() { echo "--- console"; tr -d '\r' < "$C"; echo "--- passt"; tail -n 40 "$WORK/passt.log"; }
# guest_times - what the guest's uptime says about its steps
guest_times() {
	i=$(sed -n 's/^GUEST init //p' "$C" | tr -d '\r')
	l=$(gline lease | sed -n 's/.* t=//p')
	log "guest uptime: init $i s, lease $l s"
	sed -n 's/^GUEST time //p' "$C" | tr -d '\r' |
		while read -r what a b; do log "guest uptime: $what $a to $b s"; done
}

log "set-up $(since) s ($(basename "$KERNEL"))"
t=$(date +%s.%N)
qemu "$C" ""
guest_says "lease\|udhcpc failed" 90 || { show; fail "no DHCP lease"; }
lease=$(gline lease)
case "$lease" in
*"ip=$H4 mask=24 "*"router=$GW4 "*"mtu=65520 "*) ;;
*) show; fail "lease differs from the host's values: $lease" ;;
esac
log "lease $(since "$t") s after QEMU started: $lease"

guest_says "httpd ready\|done" 240 || { show; fail "guest did not finish its fetches"; }
guest_times
for g in get4 get6; do
	got=$(gline $g)
	[ "$got" = "$size $want_host" ] || { show; fail "$g: guest got '$got', expected '$size $want_host'"; }
done
log "guest fetched $FILE_MIB MiB from the host over IPv4 and IPv6 ($(gline addr6)), intact"
[ -n "$(gline ping4)" ] || { show; fail "ping to $GW4"; }
grep -q "^GUEST httpd ready" "$C" || { show; fail "guest httpd"; }

t=$(date +%s.%N)
in_remote curl -sf --max-time 120 -o "$WORK/r4" "http://$H4:$GUEST_PORT/file" ||
	{ show; fail "fetch from the guest over IPv4 (-t $GUEST_PORT)"; }
[ "$(wc -c < "$WORK/r4")" -eq $size ] && [ "$(sum "$WORK/r4")" = "$want_host" ] ||
	fail "file served by the guest differs (IPv4)"
log "R fetched $FILE_MIB MiB from the guest (-t, IPv4) in $(since "$t") s, intact"
if [ "${VHOST_RESTART:-0}" = 1 ]; then
	t=$(date +%s.%N)
	# paced to take about 4 s, so the connection outlives the restart
	bg in_remote curl -sSf --max-time 120 \
		--limit-rate $((FILE_MIB * 256))K -o "$WORK/r4b" \
		"http://$H4:$GUEST_PORT/file"
	FETCH=$BG_PID
	sleep 1
	A=$PASST_PID
	# B appends to the same log (O_APPEND): the greps below see both
	ip netns exec "$H" "$PASST_BIN" -f -d -s "$S" --vhost-user \
		-t $GUEST_PORT -c "$WORK/ctl" --restart-from "$WORK/ctl" \
		>>"$WORK/passt.log" 2>&1 &
	PASST_PID=$!
	track $PASST_PID
	WAIT_S=20 wait_for sh -c "! kill -0 $A" ||
		{ show; fail "passt A is still running: nothing was handed over"; }
	wait $A || { show; fail "passt A exited with $?"; }
	kill -0 $FETCH 2>/dev/null ||
		{ show; fail "the fetch ended before the restart"; }
	wait_for grep -q "vhost-user: device taken over" "$WORK/passt.log" ||
		{ show; fail "passt B didn't take the device over"; }
	grep -q "took over from .*: [1-9][0-9]* flows" "$WORK/passt.log" ||
		{ show; fail "passt B took over no connection"; }
	wait $FETCH || { show; fail "the fetch across the restart failed"; }
	[ "$(wc -c < "$WORK/r4b")" -eq $size ] &&
		[ "$(sum "$WORK/r4b")" = "$want_host" ] ||
		{ show; fail "file fetched across the restart differs"; }
	log "R fetched $FILE_MIB MiB from the guest across a restart of passt in $(since "$t") s, intact: $(grep -o 'queues at .*' "$WORK/passt.log")"
fi
t=$(date +%s.%N)
in_remote curl -sf -g --max-time 120 -o "$WORK/r6" "http://[$H6]:$GUEST_PORT/file" ||
	{ show; fail "fetch from the guest over IPv6 (-t $GUEST_PORT)"; }
[ "$(wc -c < "$WORK/r6")" -eq $size ] && [ "$(sum "$WORK/r6")" = "$want_host" ] ||
	fail "file served by the guest differs (IPv6)"
log "R fetched $FILE_MIB MiB from the guest (-t, IPv6) in $(since "$t") s, intact"
log "first guest done at $(since) s"

# The guest leaves; a second one attaches to the same passt (which refuses
# a second front-end while one is attached: wait for it to notice)
kill "$QEMU_PID"
wait_for sh -c "grep -q 'client disconnected' '$WORK/passt.log'" ||
	{ show; fail "passt did not notice QEMU leaving"; }
kill -0 "$PASST_PID" || fail "passt exited without --one-off"
C=$WORK/console2.log
t=$(date +%s.%N)
qemu "$C" vhost_second
guest_says "lease\|udhcpc failed" 90 || { show; fail "second guest: no DHCP lease"; }
log "second guest: lease $(since "$t") s after QEMU started"
guest_says "second" 60 || { show; fail "second guest: no fetch"; }
[ "$(gline second)" = "262144 $want_small" ] || { show; fail "second guest got '$(gline second)'"; }
guest_times
log "a second guest attached, leased and fetched 256 KiB intact"
kill "$QEMU_PID"
wait_for sh -c "[ \$(grep -c 'client disconnected' '$WORK/passt.log') -ge 2 ]" ||
	{ show; fail "passt did not notice the second QEMU leaving"; }
grep "stats:\|vhost-user" "$WORK/passt.log" | tail -n 5
stop_passt
[ ! -e "$S" ] || fail "socket file left"
pass "QEMU guests over passt --vhost-user, $(since) s"
