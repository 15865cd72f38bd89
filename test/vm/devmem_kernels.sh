#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/vm/devmem_kernels.sh - --devmem fallback on other real kernels, in
# QEMU guests: Debian's 6.1 (no "netdev" genl family, no TCP SO_PEEK_OFF)
# and 6.12 (devmem RX and CONFIG_UDMABUF=y: the udmabuf is really made and
# BIND_RX gets a real dma-buf fd)
#
# Not part of "make check": it downloads two kernel packages with
# "apt-get download" (about 180 MB, cached in $VM_CACHE) and boots each
# under TCG (KVM guests hang on these machines, testing-recipes.md).
# Inside each guest, an initramfs rebuilds lib.sh's topology (H, R, N,
# veth h0/r0, a tap in H) and, for --devmem on h0, the tap and lo, checks
# the one devmem log line and sends 64 MiB from R through pasta's -t port
# to N, comparing md5 sums; where /dev/udmabuf exists, it is then removed
# to see the "no udmabuf" line.
#
# Usage: PASST_BIN=build-x/passt sh test/vm/devmem_kernels.sh
# Exit 0 if every check passed in every guest, 1 otherwise.
set -u
: "${PASST_BIN:?PASST_BIN must point to the passt binary}"
PASST_BIN=$(readlink -f "$PASST_BIN")
VM_CACHE=${VM_CACHE:-/tmp/passt-devmem-vm}
KERNELS=${KERNELS:-"linux-image-6.1.0-57-amd64 linux-image-6.12.117+deb12-amd64"}
mkdir -p "$VM_CACHE"
WORK=$(mktemp -d /tmp/passt-vm.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# copy_bin BIN... - binaries and the libraries ldd lists, into the rootfs
copy_bin() {
	for b in "$@"; do
		cp -L "$b" "$WORK/root/bin/"
		for l in $(ldd "$b" | awk '/=> \//{print $3} /^\t\/lib/{print $1}'); do
			mkdir -p "$WORK/root$(dirname "$l")"
			cp -L "$l" "$WORK/root$l"
		done
	done
}

mkdir -p "$WORK/root/bin" "$WORK/root/lib64" "$WORK/root/mods"
copy_bin /usr/bin/busybox "$(command -v ip)" "$(command -v socat)" "$PASST_BIN"
ln -sf passt "$WORK/root/bin/pasta"
for a in sh mount mkdir insmod md5sum head sleep cat grep kill poweroff \
	 timeout echo rm uname ls sed wc tail; do
	ln -sf busybox "$WORK/root/bin/$a"
done

cat > "$WORK/root/init" <<'EOF'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc 2>/dev/null || { mkdir -p /proc; mount -t proc proc /proc; }
mkdir -p /sys /dev /run /tmp /etc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp
echo "nameserver 127.0.0.1" > /etc/resolv.conf
for m in /mods/*.ko; do insmod "$m"; done
echo "VM: kernel $(uname -r), /dev/udmabuf: $(ls /dev/udmabuf 2>/dev/null || echo none)"

ok=0; bad=0
check() { if "$@"; then ok=$((ok + 1)); else bad=$((bad + 1)); echo "VM: FAILED: $*"; fi; }

ip netns add H; ip netns add R; ip netns add N
ip link add h0 netns H type veth peer name r0 netns R
ip -n H link set lo up; ip -n R link set lo up
ip -n H addr add 198.51.100.1/24 dev h0; ip -n R addr add 198.51.100.2/24 dev r0
ip -n H link set h0 up; ip -n R link set r0 up
ip -n H route add default via 198.51.100.2
ip -n H tuntap add dev dmtap0 mode tap
head -c $((64 << 20)) /dev/urandom > /tmp/src
want=$(md5sum < /tmp/src)

for dev in h0 dmtap0 lo; do
	ip netns exec H pasta -f -d --config-net -t 5001 --devmem "$dev" \
		--netns /run/netns/N > /tmp/pasta.log 2>&1 &
	pp=$!
	i=0
	while [ $i -lt 300 ] && ! ip -n N -o addr show | grep -q 'inet .*global'; do
		sleep 0.1; i=$((i + 1))
	done
	line=$(grep 'devmem:' /tmp/pasta.log)
	echo "VM: $dev: $line"
	echo "VM: $dev: $(grep 'TCP reader' /tmp/pasta.log)"
	check [ "$(grep -c 'devmem:' /tmp/pasta.log)" = 1 ]
	check grep -q 'devmem: .*; using the peek path$' /tmp/pasta.log
	rm -f /tmp/dst
	ip netns exec N timeout 300 socat -u TCP4-LISTEN:5001,reuseaddr OPEN:/tmp/dst,creat,trunc &
	sp=$!
	sleep 1
	ip netns exec R timeout 300 socat -u OPEN:/tmp/src TCP4:198.51.100.1:5001
	wait $sp
	got=$(md5sum < /tmp/dst)
	check [ "$got" = "$want" ]
	echo "VM: $dev: 64 MiB $( [ "$got" = "$want" ] && echo intact || echo CORRUPTED)"
	kill $pp; wait $pp
	for n in N; do ip netns del $n; ip netns add $n; done
done

# Without /dev/udmabuf the memfd goes in its place: on 6.12 the device's
# checks pass it on to dma_buf_get(), which refuses it
if [ -e /dev/udmabuf ]; then
	rm /dev/udmabuf
	ip netns exec H pasta -f -d --config-net --devmem h0 \
		--netns /run/netns/N > /tmp/pasta.log 2>&1 &
	pp=$!
	sleep 3
	echo "VM: h0 without /dev/udmabuf: $(grep 'devmem:' /tmp/pasta.log)"
	check grep -q 'devmem: no /dev/udmabuf' /tmp/pasta.log
	kill $pp; wait $pp
fi
echo "VM: RESULT passed $ok failed $bad"
poweroff -f
EOF
chmod 755 "$WORK/root/init"

rc=0
for k in $KERNELS; do
	deb=$(ls "$VM_CACHE/${k}_"*.deb 2>/dev/null | head -n 1)
	if [ -z "$deb" ]; then
		(cd "$VM_CACHE" && apt-get download "$k") || { echo "can't download $k"; exit 1; }
		deb=$(ls "$VM_CACHE/${k}_"*.deb | head -n 1)
	fi
	rm -rf "$WORK/k" "$WORK/root/mods/"*
	dpkg -x "$deb" "$WORK/k"
	for m in veth tun; do
		f=$(find "$WORK/k/lib/modules" -name "$m.ko*" | head -n 1)
		case $f in
		*.xz) xz -dc "$f" > "$WORK/root/mods/$m.ko" ;;
		*) cp "$f" "$WORK/root/mods/$m.ko" ;;
		esac
	done
	(cd "$WORK/root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$WORK/initrd.gz"
	echo "== $k"
	timeout 1200 qemu-system-x86_64 -m 1024 -smp 1 -nographic -no-reboot \
		-kernel "$WORK/k/boot/vmlinuz-"* -initrd "$WORK/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1" -nic none \
		> "$WORK/console.log" 2>&1
	cp "$WORK/console.log" "$VM_CACHE/console-$k.log"
	tr -d '\r' < "$WORK/console.log" | grep -o 'VM: .*'
	grep -q '^VM: RESULT passed [1-9][0-9]* failed 0' "$WORK/console.log" || rc=1
done
exit $rc
