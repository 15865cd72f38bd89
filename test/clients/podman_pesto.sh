# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# shellcheck disable=SC2154 # here, LOGDIR, ...: set by run.sh, which sources this
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
# sid's 1.17.2) refuse them ("invalid type: sequence, expected a map").
# Debian experimental has netavark 2.0.0-1 (libc6 >= 2.39, trixie has
# 2.41): fetched once into /opt/netavark-experimental of the chroot (see
# pp_netavark), or NETAVARK_DIR names another chroot directory with a
# netavark 2.  HELPER_DIR (run.sh) = /opt/upstream-passt (upstream.sh's
# build) runs the same cases against upstream's pasta and pesto.
#
# The built podman keeps its own storage and configuration (--root,
# --runroot, CONTAINERS_CONF) apart from trixie's podman 5.4.  A rootless
# container on a dual-stack bridge network publishes -p P:80 (both
# families), -p [::]:P+1:80, -p P+2:5000/udp and the range -p
# P+3-P+5:7000-7002; podman starts our pasta with -c DIR/pasta.sock for its
# rootless network namespace and runs our pesto --add for the ports.
# Traffic from the remote namespace through each: 16 MiB TCP checked with
# sha256, UDP datagrams echoed and checked.  After podman rm the ports must
# be unbound: podman at 860549b47c doesn't run pesto --delete (ENV row,
# see below), so our pesto --delete runs with podman's own arguments.

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
# A netavark 2.x (podman 6 needs it): NETAVARK_DIR, a directory of the
# chroot holding netavark (and possibly aardvark-dns), or else Debian
# experimental's netavark, fetched once into $NV_EXP.  apt of the chroot
# downloads it with a list, lists and cache of its own (its signature
# checked with trixie's keyring; experimental's Release may be past its
# Valid-Until on a stale mirror, hence Check-Valid-Until=false), so
# nothing of trixie's apt state or installed packages changes; dpkg -x
# unpacks it.  It needs libc6 >= 2.39 and libgcc-s1 (trixie: 2.41);
# experimental has no aardvark-dns, trixie's 1.14 (/usr/lib/podman, later
# in helper_binaries_dir) is new enough (netavark 2.0 breaks << 1.12).
NV_EXP=/opt/netavark-experimental
pp_netavark() {
	[ -x "$ROOT$NV_EXP/root/usr/lib/podman/netavark" ] && return 0
	mkdir -p "$ROOT/etc/apt/experimental.d" "$ROOT/var/tmp/netavark-deb" \
		"$ROOT/var/lib/apt/lists-experimental/partial" \
		"$ROOT/var/cache/apt-experimental/archives/partial"
	echo "deb ${DEBIAN_MIRROR:-http://deb.debian.org/debian} experimental main" \
		> "$ROOT/etc/apt/experimental.list"
	rm -f "$ROOT"/var/tmp/netavark-deb/*.deb
	unshare -m --propagation private sh -c '
		r=$1
		mount -t proc proc "$r/proc"
		touch "$r/etc/resolv.conf"
		mount --bind /etc/resolv.conf "$r/etc/resolv.conf"
		O="-o Dir::Etc::SourceList=/etc/apt/experimental.list"
		O="$O -o Dir::Etc::SourceParts=/etc/apt/experimental.d"
		O="$O -o Dir::State::Lists=/var/lib/apt/lists-experimental"
		O="$O -o Dir::Cache=/var/cache/apt-experimental"
		O="$O -o Acquire::Check-Valid-Until=false"
		chroot "$r" apt-get $O -q update &&
		chroot "$r" sh -c "cd /var/tmp/netavark-deb && apt-get $O -q download netavark/experimental"
	' sh "$ROOT" || return 1
	deb=$(ls "$ROOT"/var/tmp/netavark-deb/netavark_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || return 1
	rm -rf "$ROOT$NV_EXP.new"; mkdir -p "$ROOT$NV_EXP.new/root"
	dpkg-deb -x "$deb" "$ROOT$NV_EXP.new/root" || return 1
	basename "$deb" > "$ROOT$NV_EXP.new/deb"
	sha256sum "$deb" | cut -d' ' -f1 >> "$ROOT$NV_EXP.new/deb"
	rm -rf "$ROOT$NV_EXP"; mv "$ROOT$NV_EXP.new" "$ROOT$NV_EXP"
}
if [ -z "${NETAVARK_DIR:-}" ]; then
	if pp_netavark >> "$LOGDIR/podman_pesto.log" 2>&1; then
		NETAVARK_DIR=$NV_EXP/root/usr/lib/podman
		pp_log "netavark from experimental: $(tr '\n' ' ' < "$ROOT$NV_EXP/deb")"
	else
		result podman6 "netavark 2 from Debian experimental" ENV \
			"apt-get download netavark/experimental failed: $(grep -m1 -E '^(E|W):' "$LOGDIR/podman_pesto.log" | cut -c1-70)"
	fi
fi
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
# pp_refused FAM PORT - no connection through the host's PORT
pp_refused() {
	if [ "$1" = 4 ]; then a=$H4; else a="[$H6]"; fi
	if timeout 10 ip netns exec "$R" socat -u "TCP$1:$a:$2" - > /dev/null; then
		pp_log "tcp v$1 port $2: connected, expected a refusal"
		return 1
	fi
	pp_log "tcp v$1 port $2: refused"
}
ppcase() {
	n=$1; shift
	if "$@" >> "$LOGDIR/podman_pesto.log" 2>&1; then result podman6 "$n" PASS
	else result podman6 "$n" FAIL "see $LOGDIR/podman_pesto.log"; fi
}

# A dual-stack bridge network of its own (netavark 2 creates it;
# podman's default "podman" network is IPv4 only, where netavark sets up
# no IPv6 DNAT in the rootless namespace, so "-t [::]/P" can't reach the
# container there, with any pasta; pesto_linux.go: "so dual-stack
# networks work").  Documentation prefixes, apart from run.sh's host ones.
net=pesto6
P6 network exists $net 2>/dev/null ||
	P6 network create --ipv6 --subnet 192.0.2.0/24 --subnet 2001:db8:c0::/64 $net \
		>> "$LOGDIR/podman_pesto.log" 2>&1
P=$((46000 + RANDOM % 1000))
# A container without ports keeps the rootless network namespace (and its
# pasta) up after the other goes: its ports must then go by pesto --delete
keeper=$(P6 run -d --network="$net" "$IMAGE" sleep 600 2>> "$LOGDIR/podman_pesto.log")
# Servers: the listening address first, so that each forked child opens
# the file itself ("socat -u OPEN:F ...-LISTEN,fork" opens F once and its
# children share one offset: the second connection gets 0 bytes)
cid=$(P6 --log-level=debug run -d --network="$net" \
	-p $P:80 -p "[::]:$((P + 1)):80" -p $((P + 2)):5000/udp \
	-p $((P + 3))-$((P + 5)):7000-7002 -v "$OUT:/data" "$IMAGE" sh -c "
		socat -U TCP6-LISTEN:80,ipv6only=0,reuseaddr,fork OPEN:/data/16M &
		socat UDP6-RECVFROM:5000,ipv6only=0,reuseaddr,fork EXEC:cat &
		socat -U TCP6-LISTEN:7002,ipv6only=0,reuseaddr,fork OPEN:/data/16M &
		sleep 600" 2> "$HOUT/pp-run.log")
cp "$HOUT/pp-run.log" "$LOGDIR/podman_pesto-run.log"
# The pasta podman started for its rootless network namespace (with the
# keeper, before the debug log): its command line
pasta_cmd=$(in_chroot sh -c 'for p in /proc/[0-9]*; do
	c=$(tr "\0" " " < $p/cmdline 2>/dev/null)
	case $c in */pasta\ *-c\ *pasta.sock*) echo "${p#/proc/} $(cut -d" " -f4 $p/stat) $c" ;; esac
done' 2>/dev/null | tr -d '\000')
pp_log "podman's pasta (pid ppid cmdline):"
# shellcheck disable=SC2001 # indents every line of a multi-line value
echo "$pasta_cmd" | sed 's/^/    /' >> "$LOGDIR/podman_pesto.log"
case $pasta_cmd in
*"$HELPER_DIR/pasta"*" -c "*pasta.sock*)
	result podman6 "podman runs our pasta with -c DIR/pasta.sock" PASS ;;
*)	result podman6 "podman runs our pasta with -c DIR/pasta.sock" FAIL "${pasta_cmd:-no pasta with -c running}" ;;
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
	result podman6 "dual-stack bridge container with -p ($(in_chroot sh -c "$nv --version"))" PASS
	pp_log "podman's pesto calls:"
	grep -i 'pesto' "$HOUT/pp-run.log" | sed 's/^/    /' >> "$LOGDIR/podman_pesto.log"
	addargs=$(grep -o 'pesto arguments: --add [^"]*' "$HOUT/pp-run.log" | head -1 | sed 's/^pesto arguments: --add //')
	[ -n "$addargs" ] &&
		result podman6 "podman ran our pesto --add" PASS ||
		result podman6 "podman ran our pesto --add" FAIL "no 'pesto arguments' in its debug log"
	wait_for 10 P6 exec "$cid" sh -c "ss -Hltn | grep -q ':7002 '"
	ppcase "-p $P:80 IPv4, 16 MiB" pp_tcp 4 $P "-p P:80"
	ppcase "-p $P:80 IPv6, 16 MiB" pp_tcp 6 $P "-p P:80"
	ppcase "-p [::]:$((P + 1)):80 IPv6, 16 MiB" pp_tcp 6 $((P + 1)) "-p [::]:P+1:80"
	# pesto gets "-t [::]/P+1" alone: an IPv6 socket only (upstream's
	# pasta sets IPV6_V6ONLY but for rules without an address), so
	# IPv4 is refused on that port, with either pasta
	ppcase "-p [::]:$((P + 1)):80 over IPv4: refused" pp_refused 4 $((P + 1))
	ppcase "-p $((P + 2)):5000/udp IPv4, echo" pp_udp 4 $((P + 2)) "-p P+2:5000/udp"
	ppcase "-p $((P + 2)):5000/udp IPv6, echo" pp_udp 6 $((P + 2)) "-p P+2:5000/udp"
	ppcase "-p range $((P + 3))-$((P + 5)), last port IPv4, 16 MiB" pp_tcp 4 $((P + 5)) "range"
	ppcase "-p range $((P + 3))-$((P + 5)), last port IPv6, 16 MiB" pp_tcp 6 $((P + 5)) "range"
	# podman restart: the ports are still there (no --delete, see
	# below), and podman runs the same pesto --add again, which
	# container-libs expects to be a no-op ("adding already-active ports
	# is a no-op"): pasta's table as before, the data through again
	sock=${addargs##* }
	as_user "$HELPER_DIR/pesto" -s "$sock" > "$HOUT/pp-show1" 2>&1
	if P6 --log-level=debug restart -t 1 "$cid" > /dev/null 2> "$HOUT/pp-restart.log"; then
		cp "$HOUT/pp-restart.log" "$LOGDIR/podman_pesto-restart.log"
		grep -i 'pesto' "$HOUT/pp-restart.log" | sed 's/^/    /' >> "$LOGDIR/podman_pesto.log"
		as_user "$HELPER_DIR/pesto" -s "$sock" > "$HOUT/pp-show2" 2>&1
		pp_log "pesto -s before restart:"; sed 's/^/    /' "$HOUT/pp-show1" >> "$LOGDIR/podman_pesto.log"
		pp_log "pesto -s after restart:"; sed 's/^/    /' "$HOUT/pp-show2" >> "$LOGDIR/podman_pesto.log"
		if grep -q 'pesto arguments: --add' "$HOUT/pp-restart.log" &&
		   cmp -s "$HOUT/pp-show1" "$HOUT/pp-show2"; then
			result podman6 "podman restart: the same --add again, table unchanged" PASS
		else
			result podman6 "podman restart: the same --add again, table unchanged" FAIL \
				"see $LOGDIR/podman_pesto.log"
		fi
		wait_for 10 P6 exec "$cid" sh -c "ss -Hltn | grep -q ':80 '"
		ppcase "after restart: -p $P:80 IPv6, 16 MiB" pp_tcp 6 $P "restart"
	else
		cp "$HOUT/pp-restart.log" "$LOGDIR/podman_pesto-restart.log"
		result podman6 "podman restart: the same --add again, table unchanged" FAIL \
			"$(grep -m1 -i 'error' "$HOUT/pp-restart.log" | cut -c1-90)"
	fi
	# Gone with the container: pesto --delete
	pp_bound() {
		in_chroot ss -Hltun > "$HOUT/pp-ss" 2>&1
		for q in $P $((P + 1)) $((P + 2)) $((P + 3)) $((P + 4)) $((P + 5)); do
			grep -q ":$q " "$HOUT/pp-ss" && echo "$q"
		done
	}
	pp_log "bound before podman rm: $(pp_bound | tr '\n' ' ')"
	P6 --log-level=debug rm -f -t 1 "$cid" > /dev/null 2> "$HOUT/pp-rm.log"
	cp "$HOUT/pp-rm.log" "$LOGDIR/podman_pesto-rm.log"
	grep -i 'pesto\|Tearing down' "$HOUT/pp-rm.log" | sed 's/^/    /' >> "$LOGDIR/podman_pesto.log"
	pp_gone() { [ -z "$(pp_bound)" ]; }
	wait_for 5 pp_gone
	left=$(pp_bound | tr '\n' ' ')
	pp_log "bound after podman rm: $left"
	if grep -q "pesto arguments: --delete" "$HOUT/pp-rm.log"; then
		result podman6 "podman ran our pesto --delete" PASS
		[ -z "$left" ] && result podman6 "ports unbound after podman rm (pesto --delete)" PASS ||
			result podman6 "ports unbound after podman rm (pesto --delete)" FAIL "still bound: $left"
	else
		# podman at 860549b47c: teardownNetwork() asks for the pesto
		# socket (RootlessNetnsInfo().PestoSocketPath) before
		# teardownNetworkBackend() has loaded the rootless namespace's
		# info.json in this process: "", and PestoDeletePorts() returns
		# nil without running pesto.  Not ours: our pesto --delete with
		# podman's own arguments is run below instead.
		if grep -q 'Tearing down network namespace' "$HOUT/pp-rm.log"; then
			why="podman tore the network down without calling pesto (no socket path before info.json is read)"
		else
			why="no 'pesto arguments: --delete' in its debug log"
		fi
		result podman6 "podman ran our pesto --delete" ENV "$why; still bound: ${left:-none}"
		if [ -n "$left" ] && [ -n "$addargs" ]; then
			sock=${addargs##* }
			as_user "$HELPER_DIR/pesto" --delete $addargs >> "$LOGDIR/podman_pesto.log" 2>&1
			rc=$?
			wait_for 5 pp_gone
			left=$(pp_bound | tr '\n' ' ')
			pp_log "our pesto --delete (podman's arguments, $sock): exit $rc, still bound: $left"
			[ $rc = 0 ] && [ -z "$left" ] &&
				result podman6 "pesto --delete with podman's arguments: unbound" PASS ||
				result podman6 "pesto --delete with podman's arguments: unbound" FAIL "exit $rc, still bound: $left"
			# The keeper's namespace still works: its pasta is alive
			in_chroot sh -c "kill -0 $(echo "$pasta_cmd" | head -1 | cut -d' ' -f1)" &&
				result podman6 "podman's pasta alive after the delete" PASS ||
				result podman6 "podman's pasta alive after the delete" FAIL "gone"
		fi
	fi
fi
[ -n "$keeper" ] && P6 rm -f -t 1 "$keeper" >> "$LOGDIR/podman_pesto.log" 2>&1
# The last container gone, podman ends the rootless namespace's pasta with
# SIGTERM (rootlessnetns cleanupRootlessNetns()): the daemon and the
# helpers it forked must all be gone
if [ -n "$keeper" ] && [ -n "$pasta_cmd" ]; then
	pp_pasta_gone() {
		for q in $(echo "$pasta_cmd" | cut -d' ' -f1); do
			in_chroot test -d "/proc/$q" && return 1
		done
		return 0
	}
	if wait_for 5 pp_pasta_gone; then
		result podman6 "last container gone: pasta and its helpers exited" PASS
	else
		result podman6 "last container gone: pasta and its helpers exited" FAIL \
			"left: $(for q in $(echo "$pasta_cmd" | cut -d' ' -f1); do in_chroot test -d /proc/$q && echo $q; done | tr '\n' ' ')"
	fi
fi
