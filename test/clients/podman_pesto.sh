# SPDX-License-Identifier: GPL-2.0-or-later
# test/clients/podman_pesto.sh - podman's pasta port forwarder
# (rootless_port_forwarder = "pasta", podman PR #28478, container-libs
# common/libnetwork/pasta/pesto_linux.go), built from a podman tree
# (sourced by run.sh)
#
# PODMAN_GIT: a git directory of podman (default the mirror this project
# reads), PODMAN_REV the revision (default 860549b47c, the head of PR
# #28478, 2026-05-19; the mirror's master of that day doesn't have it yet).
# Debian 13's podman (5.4) has no such forwarder, so the tree goes into
# /opt/podman-src of the chroot (a scratch directory, never part of this
# tree) and is built there with trixie-backports' Go 1.25 (podman's go.mod
# asks for 1.25.6; trixie's golang-go is 1.24), its vendored modules, no
# network:
#   GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local go build -trimpath
#   -tags "grpcnotrace seccomp libsqlite3 containers_image_openpgp
#          exclude_graphdriver_btrfs" -o bin/podman ./cmd/podman
# (libsqlite3: the mirror lacks go-sqlite3's bundled sqlite3-binding.c,
# its largest file; trixie's libsqlite3-dev is linked instead; build
# dependencies libgpgme-dev libseccomp-dev libsqlite3-dev, then
# golang-1.25-go from trixie-backports, installed here if missing).
#
# podman at that revision speaks netavark 2's network options ("networks"
# a list since netavark 49ee09b2, v2.0.0): trixie's netavark 1.14 (and
# sid's 1.17.2) refuse them ("invalid type: sequence, expected a map"),
# and netavark 2 is Rust, not vendored, its crates unreachable here.  Set
# NETAVARK_DIR to a chroot directory with a netavark 2 to run the cases;
# without, the container row is ENV with that reason.
#
# The built podman keeps its own storage and configuration (--root,
# --runroot, CONTAINERS_CONF) apart from trixie's podman 5.4.  A rootless
# bridge network container publishes -p P:80 (both families), -p
# [::]:P+1:80, -p P+2:5000/udp and the range -p P+3-P+5:7000-7002; podman
# starts our pasta with -c DIR/pasta.sock for its rootless network
# namespace and runs our pesto --add for the ports (--delete when the
# container goes).  Traffic from the remote namespace through each: 16 MiB
# TCP checked with sha256, UDP datagrams echoed and checked.

PODMAN_GIT=${PODMAN_GIT:-/work/.mirror/containers+podman/repo}
PODMAN_REV=${PODMAN_REV:-860549b47ce566fb9519b915a1499f9feac4108b}
PSRC=/opt/podman-src
GO125=/usr/lib/go-1.25/bin
PP_CONF=/home/$USERNAME/.config/containers/pesto.conf
PP_ROOT=/home/$USERNAME/.local/share/containers-pesto
PP_RUN=/run/user/$UID_C/containers-pesto
: > "$LOGDIR/podman_pesto.log"

pp_log() { echo "$*" >> "$LOGDIR/podman_pesto.log"; }

# The tree, then the build; cached by revision
pp_build() {
	rev=$(git --git-dir="$PODMAN_GIT" rev-parse "$PODMAN_REV" 2>/dev/null) || return 2
	if [ "$(cat "$ROOT$PSRC/.rev" 2>/dev/null)" != "$rev" ]; then
		rm -rf "$ROOT$PSRC"; mkdir -p "$ROOT$PSRC"
		# The mirror lacks one blob (vendored sqlite3-binding.c, not
		# built with libsqlite3): archive everything else
		git --git-dir="$PODMAN_GIT" archive "$rev" -- . \
			':!vendor/github.com/mattn/go-sqlite3/sqlite3-binding.c' |
			tar -C "$ROOT$PSRC" -xf - || return 1
		[ -f "$ROOT$PSRC/vendor/go.podman.io/common/libnetwork/pasta/pesto_linux.go" ] ||
			{ pp_log "no pesto_linux.go at $rev"; return 3; }
		echo "$rev" > "$ROOT$PSRC/.rev"
	fi
	[ -x "$ROOT$PSRC/bin/podman" ] &&
		[ "$(cat "$ROOT$PSRC/bin/.rev" 2>/dev/null)" = "$rev" ] && return 0
	if [ ! -x "$ROOT$GO125/go" ] || [ ! -f "$ROOT/usr/include/gpgme.h" ]; then
		sh "$here/chroot.sh" create "$ROOT" libgpgme-dev libseccomp-dev \
			libsqlite3-dev pkg-config gcc >> "$LOGDIR/podman_pesto.log" 2>&1 || return 1
		# Go 1.25 only in trixie-backports
		grep -qs trixie-backports "$ROOT/etc/apt/sources.list" ||
			echo "deb ${DEBIAN_MIRROR:-http://deb.debian.org/debian} trixie-backports main" >> "$ROOT/etc/apt/sources.list"
		unshare -m --propagation private sh -c '
			r=$1
			mount -t proc proc "$r/proc"
			touch "$r/etc/resolv.conf"
			mount --bind /etc/resolv.conf "$r/etc/resolv.conf"
			DEBIAN_FRONTEND=noninteractive chroot "$r" apt-get -q update &&
			DEBIAN_FRONTEND=noninteractive chroot "$r" apt-get -y -q \
				--no-install-recommends -t trixie-backports install golang-1.25-go
		' sh "$ROOT" >> "$LOGDIR/podman_pesto.log" 2>&1 || return 1
	fi
	s=$(date +%s)
	in_chroot sh -c "cd $PSRC && env PATH=$GO125:/usr/bin:/bin HOME=/root \
		GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 \
		timeout 1800 go build -trimpath -tags 'grpcnotrace seccomp libsqlite3 containers_image_openpgp exclude_graphdriver_btrfs' \
		-o bin/podman ./cmd/podman" >> "$LOGDIR/podman_pesto.log" 2>&1 || return 1
	pp_log "podman built in $(( $(date +%s) - s )) s"
	echo "$rev" > "$ROOT$PSRC/bin/.rev"
}

# P6 ARGS... - the built podman, its own storage and configuration
P6() {
	as_user env CONTAINERS_CONF=$PP_CONF $PSRC/bin/podman \
		--root $PP_ROOT --runroot $PP_RUN "$@"
}

pp_build >> "$LOGDIR/podman_pesto.log" 2>&1
rc=$?
if [ $rc = 2 ]; then
	result podman6 "build podman with the pesto forwarder" SKIP "no git directory at $PODMAN_GIT or no $PODMAN_REV"
	return 0
elif [ $rc != 0 ]; then
	result podman6 "build podman $(echo $PODMAN_REV | cut -c1-10) (Go 1.25, vendored)" FAIL \
		"$(grep -m1 -E 'error|cannot|undefined' "$LOGDIR/podman_pesto.log" | cut -c1-80)"
	return 0
fi
result podman6 "build podman $(as_user $PSRC/bin/podman --version | awk '{ print $3 }') at $(echo $PODMAN_REV | cut -c1-10)" PASS

# Its configuration: run.sh's, and the pasta forwarder
cp "$ROOT/home/$USERNAME/.config/containers/containers.conf" "$ROOT$PP_CONF"
printf '[network]\nrootless_port_forwarder = "pasta"\n' >> "$ROOT$PP_CONF"
# A netavark 2.x (podman 6 needs it; Debian has none) from NETAVARK_DIR, a
# directory of the chroot holding netavark (and aardvark-dns), first
nv=/usr/lib/podman/netavark
if [ -n "${NETAVARK_DIR:-}" ]; then
	sed -i "s#^helper_binaries_dir = \[#helper_binaries_dir = [\"$NETAVARK_DIR\", #" "$ROOT$PP_CONF"
	nv=$NETAVARK_DIR/netavark
fi
chroot "$ROOT" chown "$USERNAME:" "$PP_CONF"

# The test image of podman.sh (mkimage.sh), imported into this storage
pp_image() {
	[ "$(P6 image inspect -f '{{index .Labels "mkimage"}}' "$IMAGE" 2>/dev/null)" = "$IMGSTAMP" ] &&
		return 0
	[ -d "$ROOT/var/tmp/clients-image" ] ||
		in_chroot sh /opt/passt-src/test/clients/mkimage.sh /var/tmp/clients-image || return 1
	in_chroot sh -c "tar -C /var/tmp/clients-image -cf - . |
		runuser -u $USERNAME -- env HOME=/home/$USERNAME XDG_RUNTIME_DIR=/run/user/$UID_C \
		CONTAINERS_CONF=$PP_CONF $PSRC/bin/podman --root $PP_ROOT --runroot $PP_RUN \
		import --change LABEL=mkimage=$IMGSTAMP - $IMAGE"
}
pp_image >> "$LOGDIR/podman_pesto.log" 2>&1 ||
	{ result podman6 "test image" FAIL "see $LOGDIR/podman_pesto.log"; return 0; }

# pp_tcp FAM PORT WHAT - 16 MiB from the container through the host's PORT,
# fetched from the remote namespace; sha256
pp_tcp() {
	if [ "$1" = 4 ]; then a=$H4; else a="[$H6]"; fi
	got=$(timeout 60 ip netns exec "$R" socat -u "TCP$1:$a:$2" - | sha256sum | cut -d' ' -f1)
	pp_log "$3: tcp v$1 port $2: got $got want $SUM16"
	[ "$got" = "$SUM16" ]
}
# pp_udp FAM PORT WHAT - 5 datagrams echoed by the container
pp_udp() {
	if [ "$1" = 4 ]; then a=$H4; else a="[$H6]"; fi
	ok=0
	for i in 1 2 3 4 5; do
		msg="dgram-$i-$(head -c 300 /dev/urandom | sha256sum | cut -c1-64)"
		back=$(echo "$msg" | timeout 5 ip netns exec "$R" socat -T 2 - "UDP$1:$a:$2")
		[ "$back" = "$msg" ] && ok=$((ok + 1))
	done
	pp_log "$3: udp v$1 port $2: $ok/5 echoed"
	[ $ok -eq 5 ]
}
ppcase() {
	n=$1; shift
	if "$@" >> "$LOGDIR/podman_pesto.log" 2>&1; then result podman6 "$n" PASS
	else result podman6 "$n" FAIL "see $LOGDIR/podman_pesto.log"; fi
}

# podman's default bridge network "podman": "podman network create" would
# run "netavark create", which trixie's netavark (1.14) doesn't have
net=bridge
P=$((46000 + RANDOM % 1000))
# A container without ports keeps the rootless network namespace (and its
# pasta) up after the other goes: its ports must then go by pesto --delete
keeper=$(P6 run -d --network="$net" "$IMAGE" sleep 600 2>> "$LOGDIR/podman_pesto.log")
cid=$(P6 --log-level=debug run -d --network="$net" \
	-p $P:80 -p "[::]:$((P + 1)):80" -p $((P + 2)):5000/udp \
	-p $((P + 3))-$((P + 5)):7000-7002 -v "$OUT:/data" "$IMAGE" sh -c "
		socat -u OPEN:/data/16M TCP6-LISTEN:80,ipv6only=0,reuseaddr,fork &
		socat UDP4-RECVFROM:5000,reuseaddr,fork EXEC:cat &
		socat -u OPEN:/data/16M TCP4-LISTEN:7002,reuseaddr,fork &
		sleep 600" 2> "$HOUT/pp-run.log")
cat "$HOUT/pp-run.log" >> "$LOGDIR/podman_pesto.log"
# What podman gave our pasta for its rootless network namespace
args=$(grep -o 'pasta arguments: [^"]*' "$HOUT/pp-run.log" | head -1)
case $args in
*" -c "*pasta.sock*)
	result podman6 "podman runs our pasta with -c DIR/pasta.sock" PASS ;;
*)	result podman6 "podman runs our pasta with -c DIR/pasta.sock" FAIL "${args:-no pasta arguments in its debug log}" ;;
esac
if [ -z "$cid" ] && grep -q 'invalid type: sequence, expected a map' "$HOUT/pp-run.log"; then
	# podman 6 sends netavark 2's network options ("networks" a list,
	# netavark 49ee09b2, v2.0.0); trixie has netavark 1.14, sid 1.17.2
	result podman6 "bridge network container with -p (pesto forwarder)" ENV \
		"needs netavark >= 2.0 (NETAVARK_DIR): $(in_chroot sh -c "$nv --version" 2>/dev/null) refuses podman 6's options"
elif [ -z "$cid" ]; then
	result podman6 "bridge network container with -p (pesto forwarder)" FAIL \
		"$(grep -m1 -i 'error' "$HOUT/pp-run.log" | cut -c1-90)"
else
	result podman6 "bridge network container with -p (pesto forwarder)" PASS
	pp_log "podman's pesto calls:"
	grep -i 'pesto' "$HOUT/pp-run.log" | sed 's/^/    /' >> "$LOGDIR/podman_pesto.log"
	# podman's pasta: its command line
	in_chroot sh -c 'for p in /proc/[0-9]*; do
		c=$(tr "\0" " " < $p/cmdline 2>/dev/null)
		case $c in *pasta.sock*) echo "podman'"'"'s pasta: $c" ;; esac
	done' >> "$LOGDIR/podman_pesto.log" 2>&1
	grep -q "pesto arguments: --add" "$HOUT/pp-run.log" &&
		result podman6 "podman ran our pesto --add" PASS ||
		result podman6 "podman ran our pesto --add" FAIL "no 'pesto arguments' in its debug log"
	wait_for 10 P6 exec "$cid" sh -c "ss -Hltn | grep -q ':7002 '"
	ppcase "-p $P:80 IPv4, 16 MiB" pp_tcp 4 $P "-p P:80"
	ppcase "-p $P:80 IPv6, 16 MiB" pp_tcp 6 $P "-p P:80"
	ppcase "-p [::]:$((P + 1)):80 IPv6, 16 MiB" pp_tcp 6 $((P + 1)) "-p [::]:P+1:80"
	ppcase "-p $((P + 2)):5000/udp IPv4, echo" pp_udp 4 $((P + 2)) "-p P+2:5000/udp"
	ppcase "-p $((P + 2)):5000/udp IPv6, echo" pp_udp 6 $((P + 2)) "-p P+2:5000/udp"
	ppcase "-p range $((P + 3))-$((P + 5)), last port, 16 MiB" pp_tcp 4 $((P + 5)) "range"
	# Gone with the container: pesto --delete
	P6 --log-level=debug rm -f -t 1 "$cid" > /dev/null 2> "$HOUT/pp-rm.log"
	grep -i 'pesto' "$HOUT/pp-rm.log" | sed 's/^/    /' >> "$LOGDIR/podman_pesto.log"
	pp_gone() {
		for q in $P $((P + 1)) $((P + 5)); do
			in_chroot sh -c "ss -Hltn | grep -q ':$q '" && { echo "$q still bound"; return 1; }
		done
		in_chroot sh -c "ss -Hlun | grep -q ':$((P + 2)) '" && { echo "$((P + 2))/udp still bound"; return 1; }
		return 0
	}
	ppcase "ports closed after podman rm (pesto --delete)" pp_gone
	grep -q "pesto arguments: --delete" "$HOUT/pp-rm.log" &&
		result podman6 "podman ran our pesto --delete" PASS ||
		result podman6 "podman ran our pesto --delete" FAIL "no 'pesto arguments: --delete' in its debug log"
fi
[ -n "$keeper" ] && P6 rm -f -t 1 "$keeper" >> "$LOGDIR/podman_pesto.log" 2>&1
