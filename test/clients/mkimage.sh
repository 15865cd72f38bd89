#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/clients/mkimage.sh - root of the test image (run inside the chroot)
#
# Usage: mkimage.sh DIR
#
# What podman's pasta tests run in their container: sh (dash) and the usual
# tools (busybox), ip and ss (iproute2: the tests parse "ip -j" output), socat,
# getent, and /home/podman/bytecheck, which prints the byte count and the
# sha256 of its standard input (the tests compare that line for the sender's
# and the receiver's copy).  Binaries come with the libraries ldd names.
set -eu
d=${1:?usage: mkimage.sh DIR}
rm -rf "$d"
mkdir -p "$d/bin" "$d/usr/bin" "$d/sbin" "$d/etc" "$d/tmp" "$d/home/podman" \
	"$d/proc" "$d/sys" "$d/dev" "$d/run" "$d/var/tmp"
chmod 1777 "$d/tmp" "$d/var/tmp"
cp /bin/busybox "$d/bin/busybox"
for a in $(/bin/busybox --list); do
	[ -e "$d/bin/$a" ] || ln -s busybox "$d/bin/$a"
done
for b in /usr/bin/dash /usr/bin/socat /usr/bin/getent /usr/sbin/ip /usr/bin/ss; do
	[ -x "$b" ] || b=$(command -v "$(basename "$b")")
	rm -f "$d/bin/$(basename "$b")"
	cp "$b" "$d/bin/$(basename "$b")"
	for l in $(ldd "$b" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
		mkdir -p "$d$(dirname "$l")"
		cp -L "$l" "$d$l"
	done
done
# Debian's static busybox runs its own applets before PATH (ip, ss) from
# its sh: dash is the shell
ln -sf dash "$d/bin/sh"
# getent hosts goes through NSS: files and dns
for l in /usr/lib/x86_64-linux-gnu/libnss_files.so.2 /usr/lib/x86_64-linux-gnu/libnss_dns.so.2; do
	[ -e "$l" ] && { mkdir -p "$d$(dirname "$l")"; cp -L "$l" "$d$l"; }
done
printf 'hosts: files dns\n' > "$d/etc/nsswitch.conf"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$d/etc/passwd"
printf 'root:x:0:\n' > "$d/etc/group"
cat > "$d/home/podman/bytecheck" <<'EOS'
#!/bin/sh
# byte count and sha256 of standard input
f=$(mktemp)
cat > "$f"
echo "$(wc -c < "$f") $(sha256sum < "$f" | cut -d' ' -f1)"
rm -f "$f"
EOS
chmod 755 "$d/home/podman/bytecheck"
