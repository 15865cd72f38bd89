#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/check_names.sh - Every export of the daemon carries its file's prefix
#
# Usage: test/check_names.sh [BUILD [obj|obj-test]]   (make check-names)
#
# Reads the global symbols each object of the daemon defines (nm on
# BUILD/obj/*/*.o: functions and data objects that aren't static; with
# obj-test, the objects of the unit tests, where the exports only they use,
# VISIBLE_IF_UNIT, are global too) and prints
# "file: symbol" for each one whose name doesn't start with one of its
# file's prefixes.  A file's prefix is its base name and "_" (tap/arp.c:
# arp_handle()), or the base name itself (tap/csum.c: csum()), unless the
# table below gives others.  Exit 1 if anything is printed.
#
# The table: file, then its prefixes (separated by ","), then the reason.
# A prefix matches the start of a name; "=name" matches that name only.  A
# folder ("conf/") gives prefixes every file of it may use besides its own.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
OBJ=${2:-obj}

PREFIXES='
conf/             conf_          any file of conf/ (the option parser split over files: check.c, options.c)
conf/ctl_ops.c    ctl_           operations on the -c/--conf-path request table (passt/ctl.c, pesto)
conf/ports.c      fwd_           forwarding rules (struct fwd_rule): parser and formatter, shared with pesto
conf/host.c       host_,netlink_host_,=netlink_watch_derive,=netlink_route_skip  the configuration derived from the host through netlink (was conf/netlink.c)
lib/log.c         log_,=die_msg,=assert_fail  back-ends of the die() and ASSERT() macros of log.h
entry/main.c      =main          the entry point
passt/isolation.c isolate_       a verb, as upstream passt: isolate_initial(), isolate_postfork()
passt/restart_run.c restart_     the run-time half of restart.c (which holds the format)
passt/siphash.c   =siphash24     SipHash-2-4, the algorithm and its variant
passt/tcp_buf.c   tcp_           TCP is one module over several files: tcp_
passt/tcp_devmem.c tcp_          TCP is one module over several files: tcp_
passt/tcp_open.c  tcp_           TCP is one module over several files: tcp_
passt/tcp_reader.c tcp_          TCP is one module over several files: tcp_
passt/tcp_mig_flows.c tcp_mig_   TCP migration, with tcp_migrate.c: tcp_mig_
passt/tcp_migrate.c tcp_mig_     TCP migration, with tcp_mig_flows.c: tcp_mig_
passt/udp_frame.c udp_           UDP is one module over several files: udp_
passt/udp_gso.c   udp_           UDP is one module over several files: udp_
splice/tcp_splice.c splice_      splice/ holds only TCP (splice/README.md): splice_
tap/csum_avx2.c   csum_          the AVX2 variant of csum.c
tap/frame_build.c frame_         header builders of the frames of frame.h
tap/frame_trace.c frame_         one line per frame of frame.h (--trace)
tap/guest.c       tap_guest      what tap/ learnt of the guest (struct tap_guest)
tap/svc_stats.c   svc_           counters of the local services (ARP, DHCP, NDP, DHCPv6)
tap/vhost_user.c  vu_            vhost-user, vu_ as upstream passt
tap/virtio.c      vq_,vu_mem_    its two types: the split virtqueue (struct vq) and the guest memory table (struct vu_mem)
'

# Exports that don't fit yet, and why
EXCEPTIONS='
'

# Objects of sources that exist (a renamed file leaves its old object behind)
objs=$(find "$BUILD/$OBJ" -name '*.o' 2>/dev/null | sort |
       while read -r o; do
		c=${o#"$BUILD/$OBJ"/}
		[ -f "${c%.o}.c" ] && echo "$o"
	done)
[ -n "$objs" ] || { echo "names: no objects in $BUILD/$OBJ (make first)"; exit 1; }

# One pass: nm -A prints "object: address type name" for every object
# shellcheck disable=SC2086 # one word per object
nm -A --defined-only -g $objs | awk -v build="$BUILD/$OBJ/" \
	-v n="$(echo "$objs" | wc -l)" -v table="$PREFIXES" -v exc="$EXCEPTIONS" '
BEGIN {
	split(table, t, "\n")
	for (i in t) if (split(t[i], w, " ") >= 2) pfx[w[1]] = w[2]
	split(exc, t, "\n")
	for (i in t) if (split(t[i], w, " ") >= 2) ok[w[1] " " w[2]] = 1
}
$2 !~ /^[BCDGRSTV]$/ { next }
{
	f = $1; sub(/:.*/, "", f); sub("^" build, "", f); sub(/\.o$/, ".c", f)
	s = $3
	p = pfx[f]
	if (p == "") {
		base = f; sub(/.*\//, "", base); sub(/\.c$/, "", base)
		p = base "_,=" base
	}
	dir = f; sub(/[^\/]*$/, "", dir)
	if (dir in pfx)
		p = p "," pfx[dir]
	np = split(p, ps, ",")
	good = 0
	for (i = 1; i <= np; i++)
		if (ps[i] ~ /^=/ ? s == substr(ps[i], 2) : index(s, ps[i]) == 1)
			good = 1
	if (!good && !((f " " s) in ok)) {
		printf "%s: %s (prefix: %s)\n", f, s, p
		bad++
	}
}
END {
	if (bad) {
		printf "names: %s: %d exports of %d objects without their file'"'"'s prefix\n", build, bad, n
		exit 1
	}
	printf "names: %s: every export of %d objects carries its file'"'"'s prefix\n", build, n
}'
