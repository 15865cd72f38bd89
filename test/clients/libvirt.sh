# shellcheck shell=bash
# shellcheck disable=SC2154 # here: set by run.sh, which sources this
# SPDX-License-Identifier: GPL-2.0-or-later
# test/clients/libvirt.sh - libvirt 11 <interface type='user'> with the passt
# backend (sourced by run.sh)
#
# libvirtd runs as root inside the chroot with our passt first in its PATH;
# the domain is a TCG guest booted directly from the kernel and initramfs of
# "make guest" (GUEST_DIR) with a script appended: DHCP lease, a 4 MiB fetch
# from a server in the remote namespace (through passt's tap path), and a
# 4 MiB file served on guest port 80, which the domain's <portForward> maps
# to host port 8022 and the remote namespace fetches.  Integrity: sha256.
# Then the same with <interface type='vhostuser'> (libvirt_vhost.sh).
# LIBVIRT_CASES="user" or "vhost" runs only one of them (default both).

G=${GUEST_DIR:-$src/build/guest}
LIBVIRT_CASES=${LIBVIRT_CASES:-user vhost}
: > "$LOGDIR/libvirt.log"
lv_done=0

lv_skip_all() {
	for c in "domain starts (passt backend)" "DHCP lease" "fetch from remote, 4 MiB" \
		 "portForward 8022->80, 4 MiB"; do
		result libvirt "$c" SKIP "$1"
	done
	result libvirt "vhost-user (passt backend)" SKIP "$1"
}

if [ ! -s "$G/vmlinuz" ] || [ ! -s "$G/base.cpio.gz" ]; then
	lv_skip_all "no guest kernel in $G (make guest)"
	lv_done=1
fi

if [ $lv_done = 0 ]; then
	lw=$HOUT/libvirt
	mkdir -p "$lw/run" "$lw/www"
	chmod 1777 "$lw"
	head -c 4194304 /dev/urandom > "$lw/www/file"
	want_remote=$(sum "$lw/www/file")
	# The remote server: an address of the remote namespace that isn't the
	# gateway (the gateway address means "the host" to passt)
	ip -n "$R" addr add $RSRV4/32 dev lo
	ip -n "$H" route add $RSRV4/32 via $R4 2>/dev/null
	# (-U, the listener first: each child opens the file; with -u and
	# OPEN first, the children share one file offset, and the second
	# guest's fetch got 0 bytes)
	# (not through in_remote: see dnsmasq in run.sh)
	ip netns exec "$R" socat -U TCP4-LISTEN:8080,bind=$RSRV4,reuseaddr,fork "OPEN:$lw/www/file" &
	disown

	cat > "$lw/run/run.sh" <<GUEST
#!/bin/sh
ip link set eth0 up
udhcpc -i eth0 -f -q -n -t 10 -T 2 -s /etc/udhcpc/script || echo "GUEST udhcpc failed"
echo "GUEST irqs \$(grep -o '[^ ]* *virtio[0-9]*-[a-z]*' /proc/interrupts | tr -s ' ' | tr '\n' ',')"
if timeout 120 nc $RSRV4 8080 > /tmp/f; then
	echo "GUEST fetched \$(wc -c < /tmp/f) \$(sha256sum /tmp/f | cut -d' ' -f1)"
else
	echo "GUEST fetch failed"
fi
rm -f /tmp/f
head -c 4194304 /dev/urandom > /www/file
echo "GUEST served \$(wc -c < /www/file) \$(sha256sum /www/file | cut -d' ' -f1)"
httpd -p 80 -h /www && echo "GUEST httpd ready"
sleep 600
GUEST
	chmod 755 "$lw/run/run.sh"
	(cd "$lw/run" && find . | cpio -o -H newc --quiet) | gzip -1 > "$lw/run.cpio.gz"
	cat "$G/base.cpio.gz" "$lw/run.cpio.gz" > "$lw/initrd"
	cp "$G/vmlinuz" "$lw/vmlinuz"
	chmod 644 "$lw/initrd" "$lw/vmlinuz"

	# qemu.conf: no cgroups, no security driver, console to a file; passt
	# and QEMU run as the unprivileged user
	cat > "$ROOT/etc/libvirt/qemu.conf" <<CONF
user = "$USERNAME"
group = "$USERNAME"
security_driver = "none"
cgroup_controllers = [ ]
stdio_handler = "file"
namespaces = [ ]
remember_owner = 0
CONF
	in_chroot env -i PATH=/opt/passt-bin:/usr/sbin:/usr/bin:/sbin:/bin \
		libvirtd --timeout=0 > "$LOGDIR/libvirtd.log" 2>&1 &
	LVPID=$!
	disown
	wait_for 20 in_chroot virsh -c qemu:///system version >/dev/null ||
		{ lv_skip_all "libvirtd didn't start (see $LOGDIR/libvirtd.log)"; lv_done=1; }
fi

if [ $lv_done = 0 ]; then
	dom=clients-$ID
fi
if [ $lv_done = 0 ] && [ "${LIBVIRT_CASES#*user}" != "$LIBVIRT_CASES" ]; then
	# <ip>, <source dev>, a <portForward> with an address and a UDP one:
	# libvirt turns them into --address/--netmask, --interface, -t ADDR/...
	# and -u
	LV4=203.0.113.50
	rm -f "$lw/console.log" "$lw/passt.log"
	cat > "$lw/domain.xml" <<XML
<domain type='qemu'>
  <name>$dom</name>
  <memory unit='MiB'>384</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$OUT/libvirt/vmlinuz</kernel>
    <initrd>$OUT/libvirt/initrd</initrd>
    <cmdline>console=ttyS0 quiet panic=-1</cmdline>
  </os>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <serial type='file'>
      <source path='$OUT/libvirt/console.log'/>
      <target port='0'/>
    </serial>
    <interface type='user'>
      <backend type='passt' logFile='$OUT/libvirt/passt.log'/>
      <model type='virtio'/>
      <source dev='h0'/>
      <ip family='ipv4' address='$LV4' prefix='24'/>
      <portForward proto='tcp'>
        <range start='8022' to='80'/>
      </portForward>
      <portForward proto='tcp' address='$H4'>
        <range start='8023' to='80'/>
      </portForward>
      <portForward proto='udp'>
        <range start='8053' to='53'/>
      </portForward>
    </interface>
    <memballoon model='none'/>
  </devices>
</domain>
XML
	guest_says() { wait_for "${2:-120}" grep -q "^GUEST $1" "$lw/console.log"; }
	gline() { sed -n "s/^GUEST $1 //p" "$lw/console.log" | tr -d '\r' | head -n 1; }
	if in_chroot virsh -c qemu:///system create "$OUT/libvirt/domain.xml" >> "$LOGDIR/libvirt.log" 2>&1; then
		result libvirt "domain starts (passt backend)" PASS
		in_chroot virsh -c qemu:///system dumpxml "$dom" >> "$LOGDIR/libvirt.log" 2>&1
		in_chroot ps -eo pid,user,args | grep '[p]asst' >> "$LOGDIR/libvirt.log"
		if guest_says lease 180 && gline lease | grep -q "^ip=$LV4 mask=24 "; then
			result libvirt "DHCP lease (<ip address=$LV4>)" PASS
		else
			result libvirt "DHCP lease (<ip address=$LV4>)" FAIL "$(gline lease | cut -c1-40)"
		fi
		guest_says 'fetch' 180
		got=$(gline fetched | cut -d' ' -f2)
		if [ "$got" = "$want_remote" ]; then result libvirt "fetch from remote, 4 MiB" PASS
		else result libvirt "fetch from remote, 4 MiB" FAIL "got '$(gline fetch)'"; fi
		if guest_says "httpd ready" 120; then
			want=$(gline served | cut -d' ' -f2)
			got=$(timeout 120 ip netns exec $R curl -s --max-time 100 "http://$H4:8022/file" | sha256sum | cut -d' ' -f1)
			if [ "$got" = "$want" ]; then result libvirt "portForward 8022->80, 4 MiB" PASS
			else result libvirt "portForward 8022->80, 4 MiB" FAIL "got $got want $want"; fi
			got=$(timeout 120 ip netns exec $R curl -s --max-time 100 "http://$H4:8023/file" | sha256sum | cut -d' ' -f1)
			if [ "$got" = "$want" ]; then result libvirt "portForward address=$H4 8023->80" PASS
			else result libvirt "portForward address=$H4 8023->80" FAIL "got $got want $want"; fi
		else
			result libvirt "portForward 8022->80, 4 MiB" FAIL "guest httpd not ready"
		fi
		in_chroot virsh -c qemu:///system destroy "$dom" >> "$LOGDIR/libvirt.log" 2>&1
		cp "$lw/console.log" "$LOGDIR/libvirt-console.log" 2>/dev/null
		cp "$lw/passt.log" "$LOGDIR/libvirt-passt.log" 2>/dev/null
	else
		result libvirt "domain starts (passt backend)" FAIL "see $LOGDIR/libvirt.log"
		result libvirt "DHCP lease" SKIP "no domain"
		result libvirt "fetch from remote, 4 MiB" SKIP "no domain"
		result libvirt "portForward 8022->80, 4 MiB" SKIP "no domain"
		result libvirt "portForward address=$H4 8023->80" SKIP "no domain"
	fi
fi

if [ $lv_done = 0 ] && [ "${LIBVIRT_CASES#*vhost}" != "$LIBVIRT_CASES" ]; then
	# vhost-user: <interface type='vhostuser'> with <backend type='passt'/>
	# (test/clients/libvirt_vhost.sh), once our passt knows --vhost-user
	if in_chroot /opt/passt-bin/passt --help 2>&1 | grep -q -- '--vhost-user'; then
		if [ -f "$here/libvirt_vhost.sh" ]; then
			. "$here/libvirt_vhost.sh"
		else
			result libvirt "vhost-user (passt backend)" SKIP "test/clients/libvirt_vhost.sh not written yet"
		fi
	else
		result libvirt "vhost-user (passt backend)" SKIP "our passt has no --vhost-user"
	fi
fi
[ -n "${LVPID:-}" ] && kill "$LVPID" 2>/dev/null
