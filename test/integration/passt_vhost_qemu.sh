#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_vhost_qemu.sh - A real guest on passt --vhost-user: QEMU (TCG) with
# vhost-user-net, guest RAM in a shared memfd.  The guest takes its DHCP
# lease and its IPv6 address (SLAAC) from us, fetches a file over IPv4 and
# IPv6 from an HTTP server on H's loopback through the gateway address
# (host -> guest), then serves a file that a client in R fetches through
# passt -t over IPv4 and IPv6 (guest -> host); sizes and sha256 compared.
# Then QEMU is killed: passt must notice, keep running, and take a second
# guest that leases and fetches again.
#
# FILE_MIB (default 8) sets the size each way; VHOST_LONG=1 makes it 64.
# opt-in: make check-vhost (two TCG boots, ~90 s: too long for make check)
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=$(cd "$(dirname "$PASST_BIN")" && pwd)
G=$BUILD_DIR/guest
QEMU=${QEMU:-qemu-system-x86_64}
if [ "${VHOST_LONG:-0}" = 1 ]; then FILE_MIB=${FILE_MIB:-64}; fi
FILE_MIB=${FILE_MIB:-8}
MEM_MIB=512
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

setup_topology

mkdir -p "$WORK/www" "$WORK/run"
make_file "$WORK/www/file" "$FILE_MIB"
want_host=$(sum "$WORK/www/file")
size=$(( FILE_MIB * 1024 * 1024 ))

( cd "$WORK/www" && exec ip netns exec "$H" python3 -m http.server 8080 --bind :: ) \
	>/dev/null 2>&1 &
track $!
wait_for in_host sh -c "ss -ltn | grep -q ':8080 '" || fail "http server"

# The guest's script: the second guest (vhost_second on the kernel command
# line) only leases and fetches
cat > "$WORK/run/run.sh" <<EOF
#!/bin/sh
up() { cut -d' ' -f1 /proc/uptime; }
fetch() { # NAME URL
	t=\$(up)
	if timeout 120 wget -q -O /tmp/\$1 "\$2"; then
		echo "GUEST \$1 \$(wc -c < /tmp/\$1) \$(sha256sum /tmp/\$1 | cut -d' ' -f1)"
		echo "GUEST time \$1 \$t \$(up)"
	else
		echo "GUEST \$1 failed"
	fi
	rm -f /tmp/\$1
}
ip link set eth0 up
udhcpc -i eth0 -f -q -n -t 10 -T 2 -O mtu -s /etc/udhcpc/script ||
	echo "GUEST udhcpc failed"
if grep -q vhost_second /proc/cmdline; then
	fetch second http://$GW4:8080/file
	sleep 600
fi
i=0
while [ \$i -lt 150 ] && ! ip -6 addr show dev eth0 scope global | grep -v tentative | grep -q inet6; do
	sleep 0.1; i=\$((i + 1))
done
echo "GUEST addr6 \$(ip -6 addr show dev eth0 scope global | sed -n 's/.*inet6 \([^ ]*\).*/\1/p' | head -n 1)"
fetch get4 http://$GW4:8080/file
fetch get6 "http://[$GW6]:8080/file"
ping -c 1 -W 5 $GW4 >/dev/null 2>&1 && echo "GUEST ping4 ok"
head -c $size /dev/urandom > /www/file
echo "GUEST served \$(wc -c < /www/file) \$(sha256sum /www/file | cut -d' ' -f1)"
httpd -p $GUEST_PORT -h /www && echo "GUEST httpd ready"
sleep 600
EOF
chmod 755 "$WORK/run/run.sh"
(cd "$WORK/run" && find . | cpio -o -H newc --quiet) > "$WORK/run.cpio"
cat "$G/base.cpio.gz" > "$WORK/initrd"
gzip -1 -c "$WORK/run.cpio" >> "$WORK/initrd"

mkdir -m 1777 "$WORK/s"
S=$WORK/s/passt.sock
start_passt "$S" --vhost-user -t $GUEST_PORT

# qemu CONSOLE EXTRA_CMDLINE - a guest on the vhost-user socket; QEMU_PID
# vectors=0 (INTx, no MSI-X): QEMU 7.2 under TCG dereferences its absent
# KVM irqfd table when vhost-user unmasks MSI-X vectors (SIGSEGV in
# msix_set_vector_notifiers() at the guest's DRIVER_OK)
qemu() {
	bg "$QEMU" -accel tcg -m $MEM_MIB -nodefaults -display none -no-reboot \
		-object "memory-backend-memfd,id=m,share=on,size=${MEM_MIB}M" \
		-numa node,memdev=m \
		-serial "file:$1" -kernel "$G/vmlinuz" \
		-initrd "$WORK/initrd" -append "console=ttyS0 quiet panic=-1 $2" \
		-chardev "socket,id=c,path=$S" \
		-netdev vhost-user,id=n0,chardev=c \
		-device virtio-net-pci,netdev=n0,vectors=0
	QEMU_PID=$BG_PID
}
C=$WORK/console.log
guest_says() { WAIT_S=${2:-60} wait_for grep -q "^GUEST $1" "$C"; }
gline() { sed -n "s/^GUEST $1 //p" "$C" | tr -d '\r' | head -n 1; }
show() { echo "--- console"; tr -d '\r' < "$C"; echo "--- passt"; tail -n 40 "$WORK/passt.log"; }

t0=$(date +%s.%N)
qemu "$C" ""
guest_says "lease\|udhcpc failed" 90 || { show; fail "no DHCP lease"; }
lease=$(gline lease)
case "$lease" in
*"ip=$H4 mask=24 "*"router=$GW4 "*"mtu=65520 "*) ;;
*) show; fail "lease differs from the host's values: $lease" ;;
esac
log "lease after $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s: $lease"

guest_says "httpd ready\|done" 240 || { show; fail "guest did not finish its fetches"; }
for g in get4 get6; do
	got=$(gline $g)
	[ "$got" = "$size $want_host" ] || { show; fail "$g: guest got '$got', expected '$size $want_host'"; }
done
sed -n 's/^GUEST time //p' "$C" | tr -d '\r' |
	while read -r what a b; do log "guest uptime: $what $a to $b s"; done
log "guest fetched $FILE_MIB MiB from the host over IPv4 and IPv6, intact"
[ -n "$(gline ping4)" ] || { show; fail "ping to $GW4"; }

grep -q "^GUEST httpd ready" "$C" || { show; fail "guest httpd"; }
served=$(gline served)
want_guest=${served#* }
[ "${served%% *}" = "$size" ] || { show; fail "guest file: '$served'"; }
t=$(date +%s.%N)
in_remote curl -sf --max-time 120 -o "$WORK/r4" "http://$H4:$GUEST_PORT/file" ||
	{ show; fail "fetch from the guest over IPv4 (-t $GUEST_PORT)"; }
[ "$(wc -c < "$WORK/r4")" -eq $size ] && [ "$(sum "$WORK/r4")" = "$want_guest" ] ||
	fail "file served by the guest differs (IPv4)"
log "R fetched $FILE_MIB MiB from the guest (-t, IPv4) in $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t }") s, intact"
in_remote curl -sf -g --max-time 120 -o "$WORK/r6" "http://[$H6]:$GUEST_PORT/file" ||
	{ show; fail "fetch from the guest over IPv6 (-t $GUEST_PORT)"; }
[ "$(wc -c < "$WORK/r6")" -eq $size ] && [ "$(sum "$WORK/r6")" = "$want_guest" ] ||
	fail "file served by the guest differs (IPv6)"
log "R fetched the guest's file through passt -t over IPv6, intact"

# The guest leaves; a second one attaches to the same passt
kill "$QEMU_PID"
wait_for sh -c "grep -q 'client disconnected' '$WORK/passt.log'" ||
	{ show; fail "passt did not notice QEMU leaving"; }
kill -0 "$PASST_PID" || fail "passt exited without --one-off"
C=$WORK/console2.log
qemu "$C" vhost_second
guest_says "lease\|udhcpc failed" 90 || { show; fail "second guest: no DHCP lease"; }
guest_says "second" 120 || { show; fail "second guest: no fetch"; }
[ "$(gline second)" = "$size $want_host" ] || { show; fail "second guest got '$(gline second)'"; }
log "a second guest attached, leased and fetched $FILE_MIB MiB intact"
kill "$QEMU_PID"
wait_for sh -c "[ \$(grep -c 'client disconnected' '$WORK/passt.log') -ge 2 ]" ||
	{ show; fail "passt did not notice the second QEMU leaving"; }
grep "stats:\|vhost-user" "$WORK/passt.log" | tail -n 5
stop_passt
[ ! -e "$S" ] || fail "socket file left"
pass "QEMU guests over passt --vhost-user, $(awk "BEGIN { printf \"%.0f\", $(date +%s.%N) - $t0 }") s"
