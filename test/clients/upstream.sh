# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# shellcheck disable=SC2154 # here, LOGDIR, ...: set by run.sh, which sources this
# test/clients/upstream.sh - pesto interoperability with upstream passt
# (sourced by run.sh)
#
# Upstream passt is built in the chroot from the upstream repository
# (UPSTREAM_GIT, a git directory, default the mirror this project reads;
# its HEAD), into /opt/upstream-passt: a scratch directory of the chroot,
# rebuilt when HEAD changes, never part of this tree.
#
# For each pairing, client -> server (upstream's pesto -> our pasta, ours ->
# upstream's, and upstream -> upstream as the reference): pasta runs as
# root in the chroot with -c SOCKET and a namespace of its own; the client
# adds, shows and deletes podman's forms (container-libs pesto_linux.go:
# --add -t 0.0.0.0/P -t [::]/P, -u the same, a range, --delete with the same
# arguments), and traffic goes from the remote namespace through each port
# to servers in pasta's namespace: 16 MiB TCP over IPv4 and IPv6, checked
# with sha256; UDP datagrams echoed, each checked.  Then the replacement
# (a spec without --add): the whole host side goes, -u included.

UPSTREAM_GIT=${UPSTREAM_GIT:-/work/.mirror/qemus+passt/repo}
UP=/opt/upstream-passt
OURS=/opt/passt-bin
: > "$LOGDIR/upstream.log"

ucase() {	# ucase NAME CMD... - PASS if CMD succeeds
	n=$1; shift
	if "$@" >> "$LOGDIR/upstream.log" 2>&1; then result upstream "$n" PASS
	else result upstream "$n" FAIL "see $LOGDIR/upstream.log"; fi
}

# Upstream's build, cached by the commit it came from
up_build() {
	rev=$(git --git-dir="$UPSTREAM_GIT" rev-parse HEAD 2>/dev/null) || return 2
	[ "$(cat "$ROOT$UP/.rev" 2>/dev/null)" = "$rev" ] && [ -x "$ROOT$UP/pesto" ] && return 0
	rm -rf "$ROOT$UP"; mkdir -p "$ROOT$UP"
	git --git-dir="$UPSTREAM_GIT" archive "$rev" | tar -C "$ROOT$UP" -xf - || return 1
	chroot "$ROOT" make -s -C "$UP" passt pasta pesto || return 1
	echo "$rev" > "$ROOT$UP/.rev"
}

up_build >> "$LOGDIR/upstream.log" 2>&1
case $? in
0)	result upstream "build upstream passt $(cut -c1-10 "$ROOT$UP/.rev") in the chroot" PASS ;;
2)	result upstream "build upstream passt" SKIP "no git directory at $UPSTREAM_GIT (UPSTREAM_GIT)" ;;
*)	result upstream "build upstream passt" FAIL "see $LOGDIR/upstream.log" ;;
esac

# u_start SERVER_DIR OPTS... - pasta from SERVER_DIR as the unprivileged
# user, as podman and rootlesskit run it: a user and network namespace of
# its own (a "sleep" holds them), -c $SOCK; sets UPID (pasta) and CPID
# (the sleep, whose network namespace the servers enter)
SOCK=/run/user/$UID_C/up.sock
u_start() {
	dir=$1; shift
	in_chroot rm -f $SOCK /tmp/up.pid /tmp/up.child
	# not through as_user: a function in the background is a shell of
	# its own; pasta is found by its PID file instead
	nsenter -t "$HOLDER" -m -n -r -w -- runuser -u "$USERNAME" -- \
		env -i HOME=/home/$USERNAME XDG_RUNTIME_DIR=/run/user/$UID_C \
		PATH=/usr/bin:/bin "$dir/pasta" -f --config-net -c $SOCK \
		--pid /tmp/up.pid "$@" -- \
		sleep 600 >> "$LOGDIR/upstream-pasta.log" 2>&1 &
	wait_for 10 in_chroot test -s /tmp/up.pid || return 1
	wait_for 10 in_chroot test -S $SOCK || return 1
	UPID=$(in_chroot cat /tmp/up.pid)
	# The command's PID as seen from here (upstream's pasta starts it
	# in a PID namespace of its own): pasta's child
	wait_for 5 in_chroot sh -c "grep -q . /proc/$UPID/task/*/children" || return 1
	CPID=$(in_chroot sh -c "cat /proc/$UPID/task/*/children" | awk '{ print $1; exit }')
	echo "pasta $UPID, its command $CPID"
	sleep 0.2
}
u_stop() {
	in_chroot kill "$CPID" 2>/dev/null
	wait_for 5 sh -c "! nsenter -t $HOLDER -m -- kill -0 $UPID" ||
		in_chroot kill "$UPID" 2>/dev/null
	return 0
}
# up_bg CMD... - CMD in pasta's network namespace, in the background, $!
# its PID (nsenter execs it)
up_bg() {
	nsenter -t "$HOLDER" -m -- nsenter -t "$CPID" -n -- "$@" &
}
in_up() { nsenter -t "$HOLDER" -m -- nsenter -t "$CPID" -n -- "$@"; }
upesto() { as_user "$@"; }

# u_tcp FAM PORT - 16 MiB from a server in upns on PORT, fetched from the
# remote namespace through the host's PORT; sha256
u_tcp() {
	up_bg timeout 60 socat -u OPEN:$OUT/16M TCP6-LISTEN:$2,ipv6only=0,reuseaddr
	srv=$!
	wait_for 5 in_up sh -c "ss -Hltn | grep -q ':$2 '"
	if [ "$1" = 4 ]; then a=$H4; else a="[$H6]"; fi
	got=$(timeout 60 ip netns exec "$R" socat -u "TCP$1:$a:$2" - | sha256sum | cut -d' ' -f1)
	kill $srv 2>/dev/null; wait $srv 2>/dev/null
	echo "tcp v$1 port $2: got $got want $SUM16"
	[ "$got" = "$SUM16" ]
}

# u_udp FAM PORT - 5 datagrams echoed by upns through the host's PORT
u_udp() {
	up_bg timeout 60 socat UDP6-RECVFROM:$2,ipv6only=0,reuseaddr,fork EXEC:cat
	srv=$!
	wait_for 5 in_up sh -c "ss -Hlun | grep -q ':$2 '"
	if [ "$1" = 4 ]; then a=$H4; else a="[$H6]"; fi
	ok=0
	for i in 1 2 3 4 5; do
		msg="dgram-$i-$(head -c 300 /dev/urandom | sha256sum | cut -c1-64)"
		back=$(echo "$msg" | timeout 5 ip netns exec "$R" socat -T 2 - "UDP$1:$a:$2")
		[ "$back" = "$msg" ] && ok=$((ok + 1))
	done
	kill $srv 2>/dev/null; wait $srv 2>/dev/null
	echo "udp v$1 port $2: $ok/5 echoed"
	[ $ok -eq 5 ]
}

# u_refused PORT - nothing on the host takes PORT any more
u_refused() {
	! in_chroot sh -c "ss -Hltn | grep -q ':$1 '" &&
	! timeout 5 ip netns exec "$R" socat -u /dev/null "TCP4:$H4:$1" 2>/dev/null
}

# u_pair CLIENT_DIR SERVER_DIR - podman's sequence, CLIENT's pesto driving
# SERVER's pasta
u_pair() {
	cl=$1 sv=$2 p=$((43000 + RANDOM % 2000))
	u_start "$sv" -t none -u none || { echo "pasta from $sv didn't start"; cat "$LOGDIR/upstream-pasta.log"; return 1; }
	rc=0
	upesto "$cl/pesto" --add -t 0.0.0.0/$p -t "[::]/$p" -u 0.0.0.0/$((p + 1)) \
		-u "[::]/$((p + 1))" -t 0.0.0.0/$((p + 2))-$((p + 4)) $SOCK || rc=1
	sleep 0.3	# the protocol has no reply: let the server apply it
	upesto "$cl/pesto" -s $SOCK > "$HOUT/show" 2>&1 || true
	cat "$HOUT/show"
	grep -q "$p" "$HOUT/show" || { echo "show: no $p"; rc=1; }
	u_tcp 4 $p || rc=1
	u_tcp 6 $p || rc=1
	u_udp 4 $((p + 1)) || rc=1
	u_udp 6 $((p + 1)) || rc=1
	u_tcp 4 $((p + 4)) || rc=1
	upesto "$cl/pesto" --delete -t 0.0.0.0/$p -t "[::]/$p" $SOCK || rc=1
	u_refused $p || { echo "$p still forwarded after --delete"; rc=1; }
	u_tcp 4 $((p + 3)) || rc=1	# the range stays
	# Replacement: no --add, the host side is emptied, UDP included
	upesto "$cl/pesto" -t 0.0.0.0/$((p + 5)) $SOCK || rc=1
	if in_chroot sh -c "ss -Hlun | grep -q ':$((p + 1)) '"; then
		echo "UDP $((p + 1)) still bound after a replacement without --add"; rc=1
	fi
	u_refused $((p + 3)) || { echo "range still forwarded after the replacement"; rc=1; }
	u_tcp 4 $((p + 5)) || rc=1
	u_stop
	return $rc
}

# u_limit CLIENT_DIR SERVER_DIR - 255 rules on the host side are taken, a
# 256th is refused by the client or the server (upstream: "Too many rules
# (maximum 255)", its rule index has 8 bits) and nothing changes
u_limit() {
	cl=$1 sv=$2 p=$((30000 + RANDOM % 1000))
	u_start "$sv" -t none -u none || return 1
	rc=0
	upesto "$cl/pesto" --add -t "0.0.0.0/$(seq -s, $p 2 $((p + 198)))" \
		-t "0.0.0.0/$(seq -s, $((p + 200)) 2 $((p + 398)))" \
		-t "0.0.0.0/$(seq -s, $((p + 400)) 2 $((p + 508)))" $SOCK ||
		{ echo "255 rules refused"; rc=1; }
	sleep 0.3
	nl=$(in_chroot ss -Hltn | grep -c "0.0.0.0:$p\|0.0.0.0:[34][0-9][0-9][0-9][0-9] ")
	echo "listening after 255 rules: $nl sockets"
	if upesto "$cl/pesto" --add -u 0.0.0.0/$((p + 600)) $SOCK > "$HOUT/lim" 2>&1; then
		echo "a 256th rule: pesto succeeded"; rc=1
	fi
	cat "$HOUT/lim"
	grep -q "at most 255\|maximum 255" "$HOUT/lim" || { echo "no message naming 255"; rc=1; }
	sleep 0.3
	in_chroot sh -c "ss -Hlun | grep -q ':$((p + 600)) '" && { echo "256th rule bound"; rc=1; }
	u_tcp 4 $((p + 508)) || rc=1
	u_stop
	return $rc
}

if [ -x "$ROOT$UP/pesto" ] && [ -x "$ROOT$OURS/pesto" ]; then
	ucase "255 rules, a 256th refused: upstream -> upstream" u_limit $UP $UP
	ucase "255 rules, a 256th refused: upstream -> ours" u_limit $UP $OURS
	ucase "255 rules, a 256th refused: ours -> upstream" u_limit $OURS $UP
	ucase "255 rules, a 256th refused: ours -> ours" u_limit $OURS $OURS
	ucase "upstream pesto -> upstream pasta (reference)" u_pair $UP $UP
	ucase "upstream pesto -> our pasta" u_pair $UP $OURS
	ucase "our pesto -> upstream pasta" u_pair $OURS $UP
	ucase "our pesto -> our pasta" u_pair $OURS $OURS
fi
