#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/clients/run.sh - our pasta/passt under the real programs that run them
#
# Usage: run.sh [CLIENT...]   (clients: podman bats rootlesskit libvirt
#                              upstream podman_pesto rootlesskit_pesto;
#                              default: all of them)
# Environment: CLIENTS_ROOT  the cached Debian 13 root
#                            (default /var/cache/passt-clients/trixie)
#              CLIENTS_PKGS  Debian packages for it (the Makefile passes them)
#              GUEST_DIR     kernel and initramfs of "make guest" (libvirt)
#              PODMAN_BATS   podman's test/system/ directory at the tag trixie
#                            packages (v5.4.2), for the "bats" client
#              BATS_FILTER   regular expression: only these bats tests
#
# Podman 5.4, rootlesskit 2.0 and libvirt 11 come from Debian 13 in a chroot
# (test/clients/chroot.sh) that runs in a scratch "host" namespace whose
# default routes lead to a scratch "remote" namespace: documentation
# addresses, no route out.  Our binaries are built inside the chroot, against
# its libraries.  Each case prints one line of the summary table; the exit
# status is 1 if any case we own failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
ROOT=${CLIENTS_ROOT:-/var/cache/passt-clients/trixie}
CLIENTS=${*:-podman bats rootlesskit libvirt upstream podman_pesto rootlesskit_pesto}

[ "$(id -u)" = 0 ] || { echo "clients: needs root (namespaces, chroot)"; exit 77; }

ID=$$
H=clh-$ID
R=clr-$ID
# 203.0.113.0/24 and 2001:db8:ff::/64: podman's tests use addresses of
# 198.51.100.0/24, 192.0.2.0/24 and 2001:db8::/64 for their own purposes
# (--dns-forward 198.51.100.1, -a 2001:db8::1), which must not be ours.
H4=203.0.113.1; R4=203.0.113.2; H6=2001:db8:ff::1; R6=2001:db8:ff::2
USERNAME=clients
UID_C=1000
OUT=/var/tmp/clients-$ID        # inside the chroot
HOUT=$ROOT$OUT                  # the same, from here
RESULTS=$(mktemp /tmp/clients-results.XXXXXX)
LOGDIR=${CLIENTS_LOGDIR:-/tmp/clients-logs}
mkdir -p "$LOGDIR"
HOLDER=
DNSPID=

log() { echo "[$(date +%T)] $*"; }

# result CLIENT CASE RESULT [NOTE] - one row of the summary table
result() {
	printf '%-12s %-52s %-5s %s\n' "$1" "$2" "$3" "${4:-}" >> "$RESULTS"
	log "$1: $2: $3 ${4:-}"
}

cleanup() {
	set +e
	exec 2>/dev/null	# no "Killed" notes for what is stopped here
	if [ -n "$HOLDER" ]; then
		# Whatever a client left running in the scratch namespaces
		for p in $(ip netns pids "$H" 2>/dev/null) $(ip netns pids "$R" 2>/dev/null); do
			[ "$p" = "$HOLDER" ] || kill -9 "$p" 2>/dev/null
		done
		sh "$here/chroot.sh" stop "$HOLDER"
	fi
	[ -n "$DNSPID" ] && kill "$DNSPID" 2>/dev/null
	sleep 0.5
	for p in $(ip netns pids "$H" 2>/dev/null) $(ip netns pids "$R" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$HOUT"
	ip netns del "$H" 2>/dev/null
	ip netns del "$R" 2>/dev/null
	rm -rf "/etc/netns/$H"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

in_chroot() { nsenter -t "$HOLDER" -m -n -r -w -- "$@"; }
as_user() {
	in_chroot runuser -u "$USERNAME" -- env -i HOME=/home/$USERNAME \
		USER=$USERNAME XDG_RUNTIME_DIR=/run/user/$UID_C \
		PATH=/opt/passt-bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
		TMPDIR=/tmp LANG=C.UTF-8 "$@"
}
in_remote() { ip netns exec "$R" "$@"; }
sum() { sha256sum "$1" | cut -d' ' -f1; }

# wait_for SECONDS CMD... - until CMD succeeds
wait_for() {
	t=$(( $1 * 10 )); shift
	while [ $t -gt 0 ]; do "$@" >/dev/null 2>&1 && return 0; t=$((t - 1)); sleep 0.1; done
	return 1
}

# --- the chroot, cached -----------------------------------------------------
sh "$here/chroot.sh" create "$ROOT" ${CLIENTS_PKGS:-} || exit 1

# Our sources, built inside (against trixie's libraries)
rm -rf "$ROOT/opt/passt-src"
mkdir -p "$ROOT/opt/passt-src" "$ROOT/opt/passt-build"
(cd "$src" && tar --exclude='./build*' --exclude=./.git -cf - .) |
	tar -C "$ROOT/opt/passt-src" -xf -
VER=$(cd "$src" && git describe --always --dirty 2>/dev/null || echo unknown)
log "building our binaries in the chroot ($VER)"
chroot "$ROOT" make -s -C /opt/passt-src BUILD=/opt/passt-build VERSION="$VER" \
	/opt/passt-build/passt /opt/passt-build/pasta /opt/passt-build/pesto \
	> "$LOGDIR/build.log" 2>&1 || { tail -n 30 "$LOGDIR/build.log"; exit 1; }
# What podman finds through helper_binaries_dir and libvirt through PATH:
# only ours (not trixie's passt package, kept for comparisons)
mkdir -p "$ROOT/opt/passt-bin"
# (replaced, not overwritten: another run may be using them)
for b in passt pesto; do
	cp "$ROOT/opt/passt-build/$b" "$ROOT/opt/passt-bin/$b.new" &&
		mv "$ROOT/opt/passt-bin/$b.new" "$ROOT/opt/passt-bin/$b"
done
ln -sf passt "$ROOT/opt/passt-bin/pasta"

# The unprivileged user, its ID ranges and its podman configuration
if ! chroot "$ROOT" id "$USERNAME" >/dev/null 2>&1; then
	chroot "$ROOT" useradd -m -u $UID_C -s /bin/bash "$USERNAME" || exit 1
fi
grep -q "^$USERNAME:" "$ROOT/etc/subuid" 2>/dev/null ||
	echo "$USERNAME:100000:65536" >> "$ROOT/etc/subuid"
grep -q "^$USERNAME:" "$ROOT/etc/subgid" 2>/dev/null ||
	echo "$USERNAME:100000:65536" >> "$ROOT/etc/subgid"
mkdir -p "$ROOT/home/$USERNAME/.config/containers"
HELPER_DIR=${HELPER_DIR:-/opt/passt-bin}
cat > "$ROOT/home/$USERNAME/.config/containers/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
helper_binaries_dir = ["$HELPER_DIR", "/usr/local/libexec/podman", "/usr/local/lib/podman", "/usr/libexec/podman", "/usr/lib/podman"]
CONF
chroot "$ROOT" chown -R "$USERNAME:" "/home/$USERNAME"
echo "nameserver $R4" > "$ROOT/etc/resolv.conf"
# minbase has no /etc/hosts (netbase); rootlesskit's --copy-up=/etc wants one
[ -s "$ROOT/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$ROOT/etc/hosts"
rm -rf "$HOUT"; mkdir -p "$HOUT"; chmod 1777 "$HOUT"

# --- scratch topology ---------------------------------------------------------
ip netns add "$H" && ip netns add "$R" || exit 1
ip link add h0 netns "$H" type veth peer name r0 netns "$R" || exit 1
ip -n "$H" link set lo up; ip -n "$R" link set lo up
ip -n "$H" addr add $H4/24 dev h0; ip -n "$R" addr add $R4/24 dev r0
ip -n "$H" addr add $H6/64 dev h0 nodad; ip -n "$R" addr add $R6/64 dev r0 nodad
ip -n "$H" link set h0 up; ip -n "$R" link set r0 up
ip -n "$H" route add default via $R4
ip -n "$H" -6 route add default via $R6
mkdir -p "/etc/netns/$H"; echo "nameserver $R4" > "/etc/netns/$H/resolv.conf"
ip netns exec "$H" sysctl -q -w net.ipv4.ping_group_range="0 2147483647"

# The resolver the chroot names, in the remote namespace: it knows one name
# (podman's tests look up l.root-servers.net) and forwards nothing.
# Not through in_remote: a function in the background is a shell of its
# own, which outlives what it runs and reports "Killed" when the clean-up
# stops it; ip netns exec execs dnsmasq, so $! is dnsmasq
ip netns exec "$R" dnsmasq --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
	--listen-address=$R4 --listen-address=$R6 --port=53 --user=root \
	--address=/l.root-servers.net/203.0.113.53 \
	--address=/l.root-servers.net/2001:db8:53::53 \
	--pid-file= --log-facility="$LOGDIR/dnsmasq.log" &
DNSPID=$!
disown

HOLDER=$(sh "$here/chroot.sh" start "$ROOT" "$H") || exit 1
mkdir -p "/proc/$HOLDER/root/run/user/$UID_C"
in_chroot chown "$USERNAME:" "/run/user/$UID_C"
in_chroot chmod 700 "/run/user/$UID_C"
log "chroot holder $HOLDER in $H; remote namespace $R"

# Data for the integrity checks
head -c 16777216 /dev/urandom > "$HOUT/16M"
chmod 644 "$HOUT/16M"

# The test image: busybox, ip, ss, socat, getent with their libraries, and
# "bytecheck" (byte count and sha256 of its input), under the name podman's
# tests expect; imported once (no registry)
IMAGE=quay.io/libpod/testimage:20241011
IMGSTAMP=$(sha256sum "$here/mkimage.sh" | cut -c1-16)
ensure_image() {
	[ "$(as_user podman image inspect -f '{{index .Labels "mkimage"}}' "$IMAGE" 2>/dev/null)" = "$IMGSTAMP" ] &&
		return 0
	log "building test image $IMAGE"
	as_user podman rmi -f "$IMAGE" >/dev/null 2>&1
	in_chroot sh /opt/passt-src/test/clients/mkimage.sh /var/tmp/clients-image &&
	in_chroot sh -c "tar -C /var/tmp/clients-image -cf - . |
		runuser -u $USERNAME -- env HOME=/home/$USERNAME XDG_RUNTIME_DIR=/run/user/$UID_C \
		podman import --change LABEL=mkimage=$IMGSTAMP - $IMAGE" > "$LOGDIR/image.log" 2>&1
}

for c in $CLIENTS; do
	if [ ! -f "$here/$c.sh" ]; then
		echo "clients: no client $c"; exit 1
	fi
	log "=== $c"
	# shellcheck source=/dev/null # one of the client scripts, each checked by itself
	. "$here/$c.sh"
done

echo
printf '%-12s %-52s %-5s %s\n' CLIENT CASE RESULT NOTE
printf '%-12s %-52s %-5s %s\n' ------ ---- ------ ----
cat "$RESULTS"
n_pass=$(grep -c ' PASS ' "$RESULTS")
n_fail=$(grep -c ' FAIL ' "$RESULTS")
n_skip=$(grep -c ' SKIP ' "$RESULTS")
n_env=$(grep -c ' ENV ' "$RESULTS")
echo
echo "clients: $n_pass passed, $n_fail failed, $n_skip skipped, $n_env environmental (logs: $LOGDIR)"
rm -f "$RESULTS"
[ "$n_fail" -eq 0 ]
