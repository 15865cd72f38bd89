#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/unit/captures/capture_tap.sh - Capture real clients talking to tap/
#
# Usage: capture_tap.sh BUILD OUTDIR (as root, from the top directory, after
# make BUILD=BUILD).  Builds tap_responder against BUILD/libcore.a, runs it
# on tap0 in a scratch namespace x-tap-PID, records tap0 with tcpdump while
# ISC dhclient (-4, -6, release) and rdisc6 talk to it.  The namespace is
# deleted on exit.
set -u
build=${1:?build dir}; out=${2:?outdir}
mkdir -p "$out"
tmp=$(mktemp -d)
N=x-tap-$$
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	# Anything else started in our namespaces (dhclient daemons)
	for p in $(ip netns pids "$N" 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
	sleep 0.3
	ip netns del "$N" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -o "$tmp/responder" \
	test/unit/captures/tap_responder.c test/unit/fake_conf.c \
	"$build/libcore.a" || exit 1
ip netns add "$N"
ip netns exec "$N" "$tmp/responder" 30 &
rpid=$!; pids="$pids $rpid"
sleep 0.5
ip -n "$N" link set tap0 address 52:54:00:12:34:56
ip -n "$N" link set lo up
ip -n "$N" link set tap0 up
ip netns exec "$N" tcpdump -i tap0 -U -n -s 0 -w "$out/tap.pcap" 2>/dev/null &
pids="$pids $!"
sleep 3
ip netns exec "$N" dhclient -4 -1 -v -sf /bin/true -lf "$tmp/4.leases" \
	-pf "$tmp/4.pid" tap0
ip netns exec "$N" dhclient -4 -r -v -sf /bin/true -lf "$tmp/4.leases" \
	-pf "$tmp/4.pid" tap0
ip netns exec "$N" dhclient -6 -1 -v -sf /bin/true -lf "$tmp/6.leases" \
	-pf "$tmp/6.pid" tap0
ip netns exec "$N" dhclient -6 -r -v -sf /bin/true -lf "$tmp/6.leases" \
	-pf "$tmp/6.pid" tap0
ip netns exec "$N" rdisc6 -1 tap0
sleep 1
