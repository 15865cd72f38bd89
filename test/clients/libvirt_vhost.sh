# shellcheck shell=bash
# shellcheck disable=SC2154 # dom, lw, want_remote: set by libvirt.sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/clients/libvirt_vhost.sh - libvirt 11 <interface type='vhostuser'>
# with <backend type='passt'/> (sourced by libvirt.sh, with its libvirtd,
# guest kernel, initramfs and remote server)
#
# libvirt starts our passt with --vhost-user on a socket of its own and
# gives QEMU "-chardev socket,path=... -netdev vhost-user"; vhost-user needs
# the guest's RAM in shared memory, hence <memoryBacking> with a memfd
# source and shared access (libvirt refuses the domain without it).  The
# guest is the one of libvirt.sh (the same /run.sh): DHCP lease, a 4 MiB
# fetch from the remote namespace (through passt, out of the virtio rings),
# then a 4 MiB file served on guest port 80, which <portForward> maps to
# host port 8032 and the remote namespace fetches.  Integrity: sha256.
# The passt command line libvirt used goes to $LOGDIR/libvirt.log.
#
# LV_VU_VECTORS0=1 gives the virtio-net device vectors=0 (INTx, no MSI-X)
# through <qemu:override>: QEMU 7.2 under TCG crashed on vhost-user with
# MSI-X; trixie's QEMU 10.0 doesn't, so it is off by default.

vu_dom=$dom-vu
LV4VU=203.0.113.51
vu_cases="domain starts|DHCP lease (<ip address=$LV4VU>)|fetch from remote, 4 MiB|portForward 8032->80, 4 MiB"
rm -f "$lw/console-vu.log" "$lw/passt-vu.log"

vu_ns=
vu_override=
if [ "${LV_VU_VECTORS0:-0}" = 1 ]; then
	vu_ns=" xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'"
	vu_override="<qemu:override><qemu:device alias='net0'><qemu:frontend>
    <qemu:property name='vectors' type='unsigned' value='0'/>
  </qemu:frontend></qemu:device></qemu:override>"
fi
cat > "$lw/domain-vu.xml" <<XML
<domain type='qemu'$vu_ns>
  <name>$vu_dom</name>
  <memory unit='MiB'>384</memory>
  <memoryBacking>
    <source type='memfd'/>
    <access mode='shared'/>
  </memoryBacking>
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
      <source path='$OUT/libvirt/console-vu.log'/>
      <target port='0'/>
    </serial>
    <interface type='vhostuser'>
      <backend type='passt' logFile='$OUT/libvirt/passt-vu.log'/>
      <model type='virtio'/>
      <source dev='h0'/>
      <ip family='ipv4' address='$LV4VU' prefix='24'/>
      <portForward proto='tcp'>
        <range start='8032' to='80'/>
      </portForward>
    </interface>
    <memballoon model='none'/>
  </devices>
  $vu_override
</domain>
XML

vu_says() { wait_for "${2:-120}" grep -q "^GUEST $1" "$lw/console-vu.log"; }
vu_line() { sed -n "s/^GUEST $1 //p" "$lw/console-vu.log" | tr -d '\r' | head -n 1; }
vu_result() { result libvirt "vhost-user: $1" "$2" "${3:-}"; }

echo "=== vhost-user domain" >> "$LOGDIR/libvirt.log"
if in_chroot virsh -c qemu:///system create "$OUT/libvirt/domain-vu.xml" >> "$LOGDIR/libvirt.log" 2>&1; then
	vu_result "domain starts" PASS
	in_chroot virsh -c qemu:///system dumpxml "$vu_dom" >> "$LOGDIR/libvirt.log" 2>&1
	# The command lines of passt and QEMU, as libvirt built them.  passt
	# by the PID file libvirt gave it (--pid): there is no PID namespace
	# here, and other passt processes of this machine show in ps
	vu_pid=$(in_chroot sh -c "cat /run/libvirt/qemu/passt/*-$vu_dom-net0-passt.pid" 2>/dev/null)
	vu_passt=$(tr '\0' ' ' < "/proc/${vu_pid:-0}/cmdline" 2>/dev/null | sed 's/ $//')
	echo "vhost-user passt command line: $vu_passt" >> "$LOGDIR/libvirt.log"
	in_chroot ps -eo args | grep '[q]emu-system' >> "$LOGDIR/libvirt.log"
	log "libvirt vhost-user: passt command line: $vu_passt"
	case " $vu_passt " in
	*" --vhost-user "*) ;;
	*) vu_result "passt started with --vhost-user" FAIL "got '$vu_passt'" ;;
	esac

	if vu_says "lease\|udhcpc failed" 180 && vu_line lease | grep -q "^ip=$LV4VU mask=24 "; then
		vu_result "DHCP lease (<ip address=$LV4VU>)" PASS
	else
		vu_result "DHCP lease (<ip address=$LV4VU>)" FAIL "$(vu_line lease | cut -c1-40)"
	fi
	# MSI-X (PCI-MSIX-... virtioN-input.0) or INTx (IO-APIC ... virtioN)
	vu_says irqs 30 && log "libvirt vhost-user: guest interrupts: $(vu_line irqs)"
	vu_says 'fetch' 180
	got=$(vu_line fetched | cut -d' ' -f2)
	if [ "$got" = "$want_remote" ]; then vu_result "fetch from remote, 4 MiB" PASS
	else vu_result "fetch from remote, 4 MiB" FAIL "got '$(vu_line fetch)'"; fi
	if vu_says "httpd ready" 120; then
		want=$(vu_line served | cut -d' ' -f2)
		got=$(timeout 120 ip netns exec $R curl -s --max-time 100 "http://$H4:8032/file" | sha256sum | cut -d' ' -f1)
		if [ "$got" = "$want" ]; then vu_result "portForward 8032->80, 4 MiB" PASS
		else vu_result "portForward 8032->80, 4 MiB" FAIL "got $got want $want"; fi
	else
		vu_result "portForward 8032->80, 4 MiB" FAIL "guest httpd not ready"
	fi
	# QEMU still there (QEMU 7.2 under TCG crashed here with MSI-X)
	in_chroot virsh -c qemu:///system domstate "$vu_dom" >> "$LOGDIR/libvirt.log" 2>&1
	in_chroot virsh -c qemu:///system destroy "$vu_dom" >> "$LOGDIR/libvirt.log" 2>&1
	# --one-off: passt leaves with QEMU (libvirt also stops it)
	if [ -z "$vu_pid" ]; then
		vu_result "passt gone with the domain" FAIL "no PID file of passt"
	elif wait_for 10 sh -c "! grep -qa -- --vhost-user /proc/$vu_pid/cmdline"; then
		vu_result "passt gone with the domain" PASS
	else
		vu_result "passt gone with the domain" FAIL "PID $vu_pid still running"
	fi
else
	vu_result "domain starts" FAIL "see $LOGDIR/libvirt.log"
	echo "$vu_cases" | tr '|' '\n' | tail -n +2 | while read -r c; do
		vu_result "$c" SKIP "no domain"
	done
fi
cp "$lw/console-vu.log" "$LOGDIR/libvirt-vu-console.log" 2>/dev/null
cp "$lw/passt-vu.log" "$LOGDIR/libvirt-vu-passt.log" 2>/dev/null
in_chroot sh -c "cat /var/log/libvirt/qemu/$vu_dom.log" > "$LOGDIR/libvirt-vu-qemu.log" 2>/dev/null
