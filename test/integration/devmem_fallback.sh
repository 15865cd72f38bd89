#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# devmem_fallback.sh - --devmem on devices without devmem support falls back
# to the peek path, with one log line naming the reason, and data still
# flows intact
#
# veth (h0), a tap device and lo have no queue management API, so 6.18
# refuses NETDEV_CMD_BIND_RX with EOPNOTSUPP (net/core/netdev-genl.c
# netdev_nl_bind_rx_doit() checks the driver before the dma-buf), and that
# is required there; other kernels give other reasons (see
# expected_reason()).  For each, a 64 MiB file goes from R through the
# daemon (-t, the tap path and the host-socket reader) to N, and its md5
# must match.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
make_file "$WORK/src" 64
want=$(md5sum < "$WORK/src")
ip -n "$H" tuntap add dev dmtap0 mode tap || fail "can't create a tap device in H"

# expected_reason DEV - the reasons a kernel may give for DEV: EOPNOTSUPP
# where the driver is checked first (6.18 here); EINVAL "Failed to bind
# dmabuf to device" where the dma-buf is attached to the device's parent
# first (6.12, seen in test/vm/devmem_kernels.sh), or no udmabuf there;
# older kernels have no family or no BIND_RX operation
expected_reason() {
	echo "BIND_RX on $1: EOPNOTSUPP"
	echo "BIND_RX on $1: EINVAL: Failed to bind dmabuf to device"
	echo "no /dev/udmabuf"
	echo "no 'netdev' generic netlink family"
	echo "no BIND_RX operation"
}

fam=6
for dev in h0 dmtap0 lo; do
	start_pasta -t 5001 --devmem "$dev:0"
	n=$(grep -c 'devmem:' "$WORK/pasta.log")
	line=$(grep 'devmem:' "$WORK/pasta.log")
	[ "$n" = 1 ] || { cat "$WORK/pasta.log"; fail "$dev: $n devmem lines, want one"; }
	expected_reason "$dev" > "$WORK/reasons"
	echo "$line" | grep -q -F -f "$WORK/reasons" ||
		{ cat "$WORK/pasta.log"; fail "$dev: unexpected reason"; }
	if [ "$(uname -r | cut -d. -f1-2)" = 6.18 ]; then
		echo "$line" | grep -q "BIND_RX on $dev: EOPNOTSUPP" ||
			fail "$dev: 6.18 answers EOPNOTSUPP, got '$line'"
	fi
	echo "$line" | grep -q 'using the peek path$' || fail "$dev: no fallback in '$line'"
	grep -q 'TCP reader: SO_PEEK_OFF\|TCP reader: peek with discard' "$WORK/pasta.log" ||
		{ cat "$WORK/pasta.log"; fail "$dev: not on the peek path"; }
	log "$dev: $line"

	# Alternate families: IPv4, IPv6, IPv4
	if [ $fam = 4 ]; then fam=6; hs="[$H6]"; else fam=4; hs=$H4; fi
	rm -f "$WORK/dst"
	in_ns timeout 60 socat -u TCP$fam-LISTEN:5001,reuseaddr \
		OPEN:"$WORK/dst",creat,trunc &
	srv=$!; track $srv
	sleep 0.3
	in_remote timeout 60 socat -u OPEN:"$WORK/src" TCP$fam:$hs:5001 ||
		fail "$dev: socat client (IPv$fam)"
	wait $srv
	[ "$(md5sum < "$WORK/dst")" = "$want" ] ||
		fail "$dev: 64 MiB over IPv$fam arrived corrupted"
	log "$dev: 64 MiB intact over IPv$fam on the peek path"
	pasta_alive
	stop_pasta
done

# A name that doesn't exist in the daemon's namespace: one line too
start_pasta --devmem nosuch0
grep -q 'devmem: no interface nosuch0 in our network namespace; using the peek path' \
	"$WORK/pasta.log" || { cat "$WORK/pasta.log"; fail "no line for a missing interface"; }
stop_pasta

pass "--devmem on veth, tap and lo: EOPNOTSUPP line, peek path, 64 MiB intact"
