#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/clients/chroot.sh - Debian 13 (trixie) root for the real-client suite
#
# Usage: chroot.sh create ROOT PKG...   debootstrap ROOT (cached) and install PKG...
#        chroot.sh start ROOT NETNS     holder process: prints its PID
#        chroot.sh stop PID             end the holder
#
# "create" runs debootstrap --variant=minbase trixie from Debian's mirror the
# first time (about 5 minutes, 1.6 GB), then only installs what is missing.
# "start" starts a holder in the scratch network namespace NETNS, in a
# private mount namespace: /proc, /sys, /dev, a 0666 /dev/net/tun, a tmpfs
# /run and /tmp are mounted into ROOT, which then becomes the root with
# pivot_root (rootless podman needs this: the kernel refuses user namespaces
# to a chrooted process).  Enter it with "nsenter -t PID -m -n".  Nothing of
# it is visible outside, and nothing on this machine is changed.
set -eu

MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

cmd=${1:?usage: chroot.sh create|start|stop ...}
shift

case $cmd in
create)
	root=${1:?root}; shift
	mkdir -p "$(dirname "$root")"
	exec 9>"$root.lock"
	flock 9
	if [ ! -x "$root/usr/bin/apt-get" ]; then
		command -v debootstrap >/dev/null ||
			{ echo "clients: debootstrap missing (Debian package debootstrap)"; exit 1; }
		rm -rf "$root.new"
		echo "clients: debootstrap trixie into $root (first run: ~5 minutes)"
		debootstrap --variant=minbase trixie "$root.new" "$MIRROR" >"$root.log" 2>&1 ||
			{ tail -n 20 "$root.log"; exit 1; }
		mv "$root.new" "$root"
	fi
	missing=""
	for p in "$@"; do
		chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && { echo "clients: chroot $root up to date"; exit 0; }
	echo "clients: installing in chroot:$missing"
	# Package scripts want /proc and /dev; a throwaway mount namespace
	# keeps the mounts away from this machine
	unshare -m --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc"
		mount --rbind /dev "$r/dev"
		# apt needs the mirror: the resolver of this machine, for apt only
		# (bound over the file of the chroot, which names the test one)
		touch "$r/etc/resolv.conf"
		mount --bind /etc/resolv.conf "$r/etc/resolv.conf"
		DEBIAN_FRONTEND=noninteractive chroot "$r" apt-get -q update &&
		DEBIAN_FRONTEND=noninteractive chroot "$r" apt-get -y -q \
			--no-install-recommends install "$@"
	' sh "$root" $missing >>"$root.log" 2>&1 ||
		{ tail -n 30 "$root.log"; exit 1; }
	echo "clients: chroot $root ready"
	;;
start)
	root=${1:?root}; ns=${2:?netns}
	ip netns exec "$ns" unshare -m --propagation private sh -c '
		set -e
		r=$1
		mount --bind "$r" "$r"
		mount -t proc proc "$r/proc"
		mount -t sysfs sysfs "$r/sys"
		mount -t cgroup2 cgroup2 "$r/sys/fs/cgroup" 2>/dev/null || true
		mount --rbind /dev "$r/dev"
		mount -t tmpfs -o mode=755 tmpfs "$r/run"
		mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
		mknod -m 666 "$r/run/tun" c 10 200
		mkdir -p "$r/dev/net"
		mount --bind "$r/run/tun" "$r/dev/net/tun"
		mkdir -p "$r/.oldroot"
		cd "$r"
		pivot_root . .oldroot
		cd /
		umount -l /.oldroot
		mount --make-rshared /
		echo $$ > /run/holder.pid
		exec sleep infinity
	' sh "$root" >/dev/null 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 50 ]; do
		if nsenter -t "$pid" -m test -s /run/holder.pid 2>/dev/null; then
			echo "$pid"
			exit 0
		fi
		i=$((i + 1)); sleep 0.1
	done
	kill "$pid" 2>/dev/null
	echo "clients: holder didn't start" >&2
	exit 1
	;;
stop)
	kill "${1:?pid}" 2>/dev/null || true
	;;
*)
	echo "usage: chroot.sh create|start|stop ..."; exit 1 ;;
esac
