#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_qemu.sh - A real guest: QEMU (TCG) with Debian's kernel and busybox,
# connected to passt by -netdev stream.  The guest takes its lease from our
# DHCP with udhcpc, its IPv6 address from our router advertisement (SLAAC),
# and the host's IPv6 address from our DHCPv6 with dhclient -6; it fetches
# a file over IPv4 and IPv6 from an HTTP server on H's
# loopback through the gateway address, pings the gateway (both families),
# then serves a file that a client in R fetches through passt -t, over
# IPv4 and IPv6.  Sizes and sha256 are compared on the host.
#
# Kernel and initramfs come from "make guest" (test/guest/mkguest.sh),
# cached in the build directory next to PASST_BIN.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=$(cd "$(dirname "$PASST_BIN")" && pwd)
G=$BUILD_DIR/guest
QEMU=${QEMU:-qemu-system-x86_64}
FILE_MIB=${FILE_MIB:-16}
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
# decompressor (~5 s under TCG); no crypto self-tests (~0.7 s), no
# speculation mitigations (TCG runs the retpolines too)
KERNEL=$G/vmlinuz
[ -s "$G/vmlinux" ] && KERNEL=$G/vmlinux

setup_topology

# A file on the host for the guest to fetch; the guest makes its own (the
# initramfs stays small: QEMU loads it slowly under TCG) and reports its
# sha256 as busybox computes it
mkdir -p "$WORK/www" "$WORK/run"
make_file "$WORK/www/file" "$FILE_MIB"
want_host=$(sum "$WORK/www/file")
size=$(( FILE_MIB * 1024 * 1024 ))

( cd "$WORK/www" && exec ip netns exec "$H" python3 -m http.server 8080 --bind :: ) \
	>/dev/null 2>&1 &
track $!
wait_for in_host sh -c "ss -ltn | grep -q ':8080 '" || fail "http server"

# What the guest runs, appended to the cached initramfs
cat > "$WORK/run/run.sh" <<EOF
#!/bin/sh
up() { cut -d' ' -f1 /proc/uptime; }
fetch() { # NAME URL
	t=\$(up)
	if timeout 60 wget -q -O /tmp/\$1 "\$2"; then
		echo "GUEST \$1 \$(wc -c < /tmp/\$1) \$(sha256sum /tmp/\$1 | cut -d' ' -f1)"
		echo "GUEST time \$1 \$t \$(up)"
	else
		echo "GUEST \$1 failed"
	fi
	rm -f /tmp/\$1
}
ip link set eth0 up
udhcpc -i eth0 -f -q -n -t 10 -T 2 -O mtu -O search -s /etc/udhcpc/script ||
	echo "GUEST udhcpc failed"
i=0
while [ \$i -lt 150 ] && ! ip -6 addr show dev eth0 scope global | grep -v tentative | grep -q inet6; do
	sleep 0.1; i=\$((i + 1))
done
echo "GUEST time addr6 \$(up)"
echo "GUEST addr6 \$(ip -6 addr show dev eth0 scope global | sed -n 's/.*inet6 \([^ ]*\).*/\1/p' | head -n 1)"
echo "GUEST mtu \$(cat /sys/class/net/eth0/mtu)"
# dhclient binds to the link-local address: none may be tentative still
i=0
while [ \$i -lt 50 ] && ip -6 addr show dev eth0 | grep -q tentative; do
	sleep 0.1; i=\$((i + 1))
done
# one more try if the first ends at once (a local error, its words shown)
dh6() {
	timeout 20 dhclient -6 -1 -sf /etc/dhclient6.script -lf /tmp/dh6.leases \
		-pf /tmp/dh6.pid eth0 >/tmp/dh6.err 2>&1
}
dh6 || { echo "GUEST dh6retry \$(tail -n 2 /tmp/dh6.err | tr '\n' ' ')"
	sleep 1; dh6; } || echo "GUEST dhcpv6 failed: \$(tail -n 2 /tmp/dh6.err | tr '\n' ' ')"
fetch get4 http://$GW4:8080/file
fetch get6 "http://[$GW6]:8080/file"
ping -c 1 -W 5 $GW4 >/dev/null 2>&1 && echo "GUEST ping4 ok"
ping -c 1 -W 5 $GW6 >/dev/null 2>&1 && echo "GUEST ping6 ok"
head -c $size /dev/urandom > /www/file
echo "GUEST served \$(wc -c < /www/file) \$(sha256sum /www/file | cut -d' ' -f1)"
httpd -p $GUEST_PORT -h /www && echo "GUEST httpd ready"
sleep 600
EOF
chmod 755 "$WORK/run/run.sh"
(cd "$WORK/run" && find . | cpio -o -H newc --quiet) > "$WORK/run.cpio"
cat "$G/base.cpio.gz" > "$WORK/initrd"
gzip -1 -c "$WORK/run.cpio" >> "$WORK/initrd"

# passt started as root runs as nobody: like /tmp, the socket's directory
# must let it remove its own socket at exit
mkdir -m 1777 "$WORK/s"
S=$WORK/s/passt.sock
start_passt "$S" -t $GUEST_PORT

t0=$(date +%s.%N)
bg "$QEMU" -accel tcg -m 512 -nodefaults -display none -no-reboot \
	-serial "file:$WORK/console.log" -kernel "$KERNEL" \
	-initrd "$WORK/initrd" \
	-append "console=ttyS0 quiet panic=-1 cryptomgr.notests mitigations=off" \
	-netdev "stream,id=n0,server=off,addr.type=unix,addr.path=$S" \
	-device virtio-net-pci,netdev=n0
QEMU_PID=$BG_PID

# guest_says PATTERN [SECONDS] - wait for a console line
guest_says() {
	WAIT_S=${2:-60} wait_for grep -q "^GUEST $1" "$WORK/console.log"
}
gline() { sed -n "s/^GUEST $1 //p" "$WORK/console.log" | tr -d '\r' | head -n 1; }
show() { echo "--- console"; tr -d '\r' < "$WORK/console.log"; echo "--- passt"; tail -n 30 "$WORK/passt.log"; }

guest_says "lease\|udhcpc failed" 60 || { show; fail "no DHCP lease"; }
t1=$(date +%s.%N)
lease=$(gline lease)
log "lease: $lease"
case "$lease" in
*"ip=$H4 mask=24 "*"router=$GW4 "*"mtu=65520 "*) ;;
*) show; fail "lease differs from the host's values" ;;
esac
log "boot to lease: $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s wall clock, guest uptime ${lease##*t=} s"

guest_says "httpd ready\|done" 60 || { show; fail "guest did not finish its fetches"; }
kill -0 "$QEMU_PID" 2>/dev/null || { show; fail "QEMU exited"; }
log "guest IPv6: $(gline addr6), MTU $(gline mtu)"
sed -n 's/^GUEST time //p' "$WORK/console.log" | tr -d '\r' |
	while read -r what a b; do log "guest uptime: $what $a${b:+ to $b} s"; done

[ -z "$(gline dh6retry)" ] ||
	log "DHCPv6: the guest's first dhclient ended at once: $(gline dh6retry)"
case "$(gline dhcpv6)" in
"addr=$H6/"*) log "DHCPv6 (dhclient in the guest): $(gline dhcpv6)" ;;
*) show; fail "DHCPv6: '$(gline dhcpv6)', expected address $H6" ;;
esac

for g in get4 get6; do
	got=$(gline $g)
	[ "$got" = "$size $want_host" ] || { show; fail "$g: guest got '$got', expected '$size $want_host'"; }
done
log "guest fetched $FILE_MIB MiB from the host over IPv4 and IPv6, intact"
[ -n "$(gline 'ping4')" ] || { show; fail "ping to $GW4"; }
[ -n "$(gline 'ping6')" ] || { show; fail "ping to $GW6"; }
log "guest pinged the gateway (IPv4, IPv6)"

grep -q "^GUEST httpd ready" "$WORK/console.log" || { show; fail "guest httpd"; }
served=$(gline served)
want_guest=${served#* }
[ "${served%% *}" = "$size" ] || { show; fail "guest file: '$served'"; }
in_remote curl -sf --max-time 60 -o "$WORK/r4" "http://$H4:$GUEST_PORT/file" ||
	{ show; fail "fetch from the guest over IPv4 (-t $GUEST_PORT)"; }
[ "$(wc -c < "$WORK/r4")" -eq $size ] && [ "$(sum "$WORK/r4")" = "$want_guest" ] ||
	fail "file served by the guest differs (IPv4)"
in_remote curl -sf -g --max-time 60 -o "$WORK/r6" "http://[$H6]:$GUEST_PORT/file" ||
	{ show; fail "fetch from the guest over IPv6 (-t $GUEST_PORT)"; }
[ "$(wc -c < "$WORK/r6")" -eq $size ] && [ "$(sum "$WORK/r6")" = "$want_guest" ] ||
	fail "file served by the guest differs (IPv6)"
log "R fetched the guest's file through passt -t over IPv4 and IPv6, intact"

kill "$QEMU_PID"
wait_for sh -c "grep -q 'client disconnected' '$WORK/passt.log'" ||
	{ show; fail "passt did not notice QEMU leaving"; }
kill -0 "$PASST_PID" || fail "passt exited without --one-off"
stop_passt
[ ! -e "$S" ] || fail "socket file left"
pass "QEMU guest over passt"
