#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/guest/mkguest.sh - Kernel and initramfs of a small QEMU guest (passt mode)
#
# Usage: mkguest.sh DIR KERNEL_PKG BUSYBOX_PKG [iperf]
#   (the Makefile's "guest" target passes DEB_GUEST_PKGS: the only place
#   where their names live)
#
# Debian's own kernel and a static busybox, downloaded from Debian's mirror
# with "apt-get download" and unpacked with "dpkg -x": nothing is installed
# on this machine.  Produces, cached in DIR:
#   DIR/vmlinuz          the kernel of KERNEL_PKG (a meta package such as
#                        linux-image-amd64 is resolved to its versioned one)
#   DIR/vmlinux          the same kernel uncompressed (ELF), when it has a
#                        PVH entry point (Xen ELF note 18, PHYS32_ENTRY):
#                        QEMU boots it with -kernel directly, without the
#                        bzImage decompressor, which takes ~5 s under TCG
#   DIR/base.cpio.gz     busybox with every applet linked, the virtio-net
#                        modules and their dependencies, /init, a udhcpc
#                        script, and the host's dhclient (isc-dhcp-client,
#                        for DHCPv6: busybox has no udhcpc6 in Debian)
#                        with a script that reports the lease
#   DIR/iperf.cpio.gz    with "iperf": the host's /usr/bin/iperf3
#   (binaries taken from the host come with the libraries and loader that
#   ldd names)
# A test appends its own small cpio (run.sh, data) to base.cpio.gz: the
# kernel unpacks concatenated archives in order.  /init runs /run.sh if
# there is one, then powers off.  Everything the guest wants to tell the host
# goes to the serial console on lines starting with "GUEST ".
#
# Rebuilt when this script changes (its sha256 is kept in DIR/stamp).
set -eu

dir=${1:?usage: mkguest.sh DIR KERNEL_PKG BUSYBOX_PKG [iperf]}
kpkg=${2:?kernel package}
bbpkg=${3:?busybox package}
want_iperf=${4:-}
self=$(readlink -f "$0")
stamp=$(sha256sum "$self" | cut -d' ' -f1)

# Order matters: each module needs the ones before it (modinfo depends:)
MODS="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev \
virtio_pci failover net_failover virtio_net"

mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9

up_to_date() {
	[ -s "$dir/vmlinuz" ] && [ -s "$dir/base.cpio.gz" ] &&
	[ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ] &&
	{ [ "$want_iperf" != iperf ] || [ -s "$dir/iperf.cpio.gz" ]; }
}
if up_to_date; then
	exit 0
fi

debs=$dir/debs
mkdir -p "$debs"

# apt_download PKG - fetch PKG's .deb into $debs unless it's there
apt_download() {
	ls "$debs/$1"_*.deb >/dev/null 2>&1 && return 0
	# _apt can't write here: download as root, without the warning
	(cd "$debs" && apt-get -q download "$1" 2>/dev/null) >&2
}

# real_kpkg META - the versioned kernel package of a meta package
# (linux-image-amd64 depends on linux-image-6.1.0-NN-amd64)
real_kpkg() {
	k=$(apt-cache depends "$1" 2>/dev/null |
	    sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
	echo "${k:-$1}"
}

# fetch_kernel META - download the kernel; on failure (no package lists
# yet, or lists naming a version the mirror no longer has), update the
# lists and resolve the name again
fetch_kernel() {
	k=$(real_kpkg "$1")
	apt_download "$k" && echo "$k" && return 0
	echo "mkguest: apt-get download $k failed, updating package lists" >&2
	apt-get -q update >/dev/null 2>&1 || true
	k=$(real_kpkg "$1")
	apt_download "$k" && echo "$k"
}

# bundle ROOT BIN... - copy host binaries into ROOT/bin, with their libraries
bundle() {
	br=$1; shift
	mkdir -p "$br/bin"
	for b in "$@"; do
		p=$(command -v "$b") || { echo "mkguest: no $b on the host"; exit 1; }
		cp "$p" "$br/bin/$(basename "$p")"
		for l in $(ldd "$p" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
			mkdir -p "$br$(dirname "$l")"
			cp -L "$l" "$br$l"
		done
	done
}

tmp=$(mktemp -d "$dir/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Kernel: reuse any versioned image already downloaded
kdeb=$(ls "$debs"/linux-image-[0-9]*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$kdeb" ]; then
	k=$(fetch_kernel "$kpkg") || { echo "mkguest: can't download $kpkg"; exit 1; }
	kdeb=$(ls "$debs/$k"_*.deb | head -n 1)
fi
if ! apt_download "$bbpkg"; then
	apt-get -q update >/dev/null 2>&1 || true
	apt_download "$bbpkg" || { echo "mkguest: can't download $bbpkg"; exit 1; }
fi
bbdeb=$(ls "$debs/$bbpkg"_*.deb | head -n 1)

dpkg -x "$kdeb" "$tmp/k"
dpkg -x "$bbdeb" "$tmp/bb"
cp "$tmp"/k/boot/vmlinuz-* "$dir/vmlinuz.new"

# The ELF image inside the bzImage: the payload is an xz (or gzip, zstd)
# stream somewhere after the setup code and decompressor; the first offset
# at which one decompresses to an ELF with a PVH note wins.
# unpack_vmlinux BZIMAGE OUT - 0 if OUT was written
unpack_vmlinux() {
	python3 - "$1" "$2" <<'PY'
import lzma, subprocess, sys, zlib
data = open(sys.argv[1], 'rb').read()
def pvh(elf):
    # ELF64 little endian: walk the program headers' PT_NOTE segments
    import struct
    if elf[:4] != b'\x7fELF' or elf[4] != 2:
        return False
    phoff, = struct.unpack_from('<Q', elf, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', elf, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from('<IIQQQQ', elf, phoff + i * phentsize)
        if p_type != 4:
            continue
        off, end = p_offset, p_offset + p_filesz
        while off + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from('<III', elf, off)
            name = elf[off + 12:off + 12 + namesz].rstrip(b'\0')
            if name == b'Xen' and ntype == 18:
                return True
            off += 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
    return False
def unxz(b):
    return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(b)
def ungz(b):
    return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(b)
def unzstd(b):
    return subprocess.run(['zstd', '-qdc'], input=b, capture_output=True).stdout
for magic, fn in ((b'\xfd7zXZ\x00', unxz), (b'\x1f\x8b\x08', ungz), (b'\x28\xb5\x2f\xfd', unzstd)):
    at, tries = data.find(magic), 0
    while at >= 0 and tries < 8:
        tries += 1
        try:
            elf = fn(data[at:])
            ok = pvh(elf)
        except Exception:
            ok = False
        if ok:
            open(sys.argv[2], 'wb').write(elf)
            sys.exit(0)
        at = data.find(magic, at + 1)
sys.exit(1)
PY
}
rm -f "$dir/vmlinux"
unpack_vmlinux "$dir/vmlinuz.new" "$dir/vmlinux.new" ||
	echo "mkguest: no PVH ELF inside the kernel image: tests boot the bzImage"

# Base initramfs
r=$tmp/root
mkdir -p "$r/bin" "$r/sbin" "$r/etc" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" \
	"$r/lib/modules" "$r/www" "$r/run"
cp "$tmp/bb/bin/busybox" "$r/bin/busybox"
for a in $("$r/bin/busybox" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$r/bin/$a"
done
for m in $MODS; do
	f=$(find "$tmp"/k/lib/modules -name "$m.ko*" | head -n 1)
	[ -n "$f" ] || { echo "mkguest: no module $m"; exit 1; }
	case $f in
	*.xz) xz -dc "$f" > "$r/lib/modules/$m.ko" ;;
	*.zst) zstd -qdc "$f" > "$r/lib/modules/$m.ko" ;;
	*) cp "$f" "$r/lib/modules/$m.ko" ;;
	esac
done

cat > "$r/init" <<EOF
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
for m in $MODS; do
	insmod /lib/modules/\$m.ko || echo "GUEST insmod \$m failed"
done
ip link set lo up
echo "GUEST init \$(cut -d' ' -f1 /proc/uptime)"
[ -x /run.sh ] && /run.sh
echo "GUEST done"
poweroff -f
EOF
chmod 755 "$r/init"

# udhcpc calls this with the lease in its environment (busybox's
# networking/udhcp/dhcpc.c: ip, mask as a prefix length, subnet, router,
# dns, mtu, domain, search)
mkdir -p "$r/etc/udhcpc"
cat > "$r/etc/udhcpc/script" <<'EOF'
#!/bin/sh
case "$1" in
deconfig)
	# IPv4 only: a plain flush would also take the IPv6 link-local
	# address the kernel may already have added, and with it router
	# solicitations and DHCPv6, for good (seen as a rare CI failure)
	ip -4 addr flush dev "$interface"
	ip link set "$interface" up
	;;
bound|renew)
	ip addr add "$ip/$mask" dev "$interface"
	[ -n "${mtu:-}" ] && ip link set "$interface" mtu "$mtu"
	for r in $router; do
		ip route add default via "$r" dev "$interface"
		break
	done
	: > /etc/resolv.conf
	for d in $dns; do echo "nameserver $d" >> /etc/resolv.conf; done
	echo "GUEST lease ip=$ip mask=$mask subnet=$subnet router=$router dns=$dns mtu=${mtu:-} search=${search:-} t=$(cut -d' ' -f1 /proc/uptime)"
	;;
esac
EOF
chmod 755 "$r/etc/udhcpc/script"

# dhclient -6 -sf calls this (dhclient-script(8) variables)
PATH=$PATH:/sbin:/usr/sbin bundle "$r" dhclient
cat > "$r/etc/dhclient6.script" <<'EOF'
#!/bin/sh
case "$reason" in
BOUND6|REBIND6|RENEW6)
	# dhclient's own output may go nowhere once it detaches
	echo "GUEST dhcpv6 addr=$new_ip6_address/$new_ip6_prefixlen dns=$new_dhcp6_name_servers search=$new_dhcp6_domain_search t=$(cut -d' ' -f1 /proc/uptime)" > /dev/console
	;;
esac
EOF
chmod 755 "$r/etc/dhclient6.script"
mkdir -p "$r/var/lib/dhcp"

(cd "$r" && find . | cpio -o -H newc --quiet) | gzip -6 > "$dir/base.cpio.gz.new"

# iperf3 with its libraries, as an extra archive
if [ "$want_iperf" = iperf ]; then
	ir=$tmp/iperf
	bundle "$ir" iperf3
	(cd "$ir" && find . | cpio -o -H newc --quiet) | gzip -6 > "$dir/iperf.cpio.gz"
fi

mv "$dir/vmlinuz.new" "$dir/vmlinuz"
[ ! -s "$dir/vmlinux.new" ] || mv "$dir/vmlinux.new" "$dir/vmlinux"
mv "$dir/base.cpio.gz.new" "$dir/base.cpio.gz"
echo "$stamp" > "$dir/stamp"
echo "mkguest: $(basename "$kdeb") $(basename "$bbdeb") ready in $dir"
