# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/clients/rootlesskit.sh - rootlesskit 2.0 --net=pasta (sourced by run.sh)
#
# --port-driver=implicit (rootless Docker, nerdctl): rootlesskit leaves port
# forwarding to pasta (it passes --tcp-ports=auto --udp-ports=auto ...), so a
# server started inside after rootlesskit is up must become reachable from the
# remote namespace and from the host's loopback.  --port-driver=builtin:
# rootlessctl add-ports, rootlesskit's own forwarder, over pasta's network.

: > "$LOGDIR/rootlesskit.log"

# rk_implicit FAMILY FROM - late TCP listener, 16 MiB out, sha256
rk_implicit() {
	fam=$1 from=$2 port=$((12000 + RANDOM % 3000))
	st=/tmp/rk-$port
	# rootlesskit passes --ipv4-only to pasta unless --ipv6 is given
	if [ "$fam" = 4 ]; then lsn=TCP4-LISTEN:$port; v6=
	else lsn=TCP6-LISTEN:$port,ipv6only=1; v6=--ipv6; fi
	as_user rootlesskit --state-dir=$st --net=pasta $v6 --port-driver=implicit \
		--copy-up=/etc --disable-host-loopback \
		sh -c "ip -6 addr show scope global > $OUT/rk-addr6-$port; sleep 2; exec socat -u OPEN:$OUT/16M $lsn,reuseaddr,fork" &
	rk=$!
	sleep 5	# listener after 2 s, auto scan once a second
	case $fam$from in
	4remote) a=$H4 ;; 6remote) a="[$H6]" ;;
	4loopback) a=127.0.0.1 ;; 6loopback) a="[::1]" ;;
	esac
	if [ "$from" = remote ]; then run="ip netns exec $R"; else run="nsenter -t $HOLDER -m -n -r -w --"; fi
	got=$(timeout 20 $run socat -u "TCP$fam:$a:$port" - | sha256sum | cut -d' ' -f1)
	kill $rk 2>/dev/null
	for p in $(in_chroot sh -c "cat $st/child_pid 2>/dev/null"); do in_chroot kill $p 2>/dev/null; done
	wait $rk 2>/dev/null
	echo "rootlesskit implicit $fam $from: got $got want $SUM16"
	[ "$got" = "$SUM16" ] && return 0
	# rootlesskit 2.0.2 configures the namespace's interface itself
	# (pasta gets no --config-net) and, with --ipv6, gives it no IPv6
	# address: with trixie's pasta too, nothing reaches a listener there
	if [ "$fam" = 6 ] && ! grep -q inet6 "$HOUT/rk-addr6-$port"; then
		echo "rootlesskit: no global IPv6 address in its namespace"
		return 2
	fi
	return 1
}

rcase() {
	n=$1; shift
	"$@" >> "$LOGDIR/rootlesskit.log" 2>&1
	case $? in
	0) result rootlesskit "$n" PASS ;;
	2) result rootlesskit "$n" ENV "rootlesskit --ipv6: no IPv6 address in its netns" ;;
	*) result rootlesskit "$n" FAIL "see $LOGDIR/rootlesskit.log" ;;
	esac
}

for fam in 4 6; do for from in remote loopback; do
	rcase "implicit: late listener IPv$fam from $from" rk_implicit $fam $from
done; done

# UDP through the implicit driver: an echo server started late (not on an
# ephemeral port: "auto" leaves those out for UDP)
rk_implicit_udp() {
	port=$((15000 + RANDOM % 3000))
	st=/tmp/rk-$port
	as_user rootlesskit --state-dir=$st --net=pasta --port-driver=implicit \
		--copy-up=/etc --disable-host-loopback \
		sh -c "sleep 2; exec socat UDP4-RECVFROM:$port,fork EXEC:cat" &
	rk=$!
	sleep 5
	ok=0
	for i in 1 2 3; do
		msg="rk-$i-$RANDOM$RANDOM"
		back=$(echo "$msg" | timeout 5 ip netns exec $R socat -T 2 - "UDP4:$H4:$port")
		[ "$back" = "$msg" ] && ok=$((ok + 1))
	done
	for p in $(in_chroot sh -c "cat $st/child_pid 2>/dev/null"); do in_chroot kill $p 2>/dev/null; done
	kill $rk 2>/dev/null; wait $rk 2>/dev/null
	echo "rootlesskit implicit udp: $ok/3"
	[ $ok -ge 2 ]
}
rcase "implicit: late UDP listener IPv4 from remote" rk_implicit_udp

# --port-driver=builtin: rootlessctl add-ports
rk_builtin() {
	port=$((18000 + RANDOM % 1000))
	st=/tmp/rk-$port
	as_user rootlesskit --state-dir=$st --net=pasta --port-driver=builtin \
		--copy-up=/etc --disable-host-loopback \
		sh -c "exec socat -u OPEN:$OUT/16M TCP4-LISTEN:$port,reuseaddr,fork" &
	rk=$!
	if ! wait_for 10 in_chroot test -S $st/api.sock; then
		kill $rk 2>/dev/null; wait $rk 2>/dev/null
		return 1
	fi
	as_user rootlessctl --socket=$st/api.sock add-ports "0.0.0.0:$port:$port/tcp" || { kill $rk; return 1; }
	sleep 0.5
	got=$(timeout 60 ip netns exec $R socat -u "TCP4:$H4:$port" - | sha256sum | cut -d' ' -f1)
	for p in $(in_chroot sh -c "cat $st/child_pid 2>/dev/null"); do in_chroot kill $p 2>/dev/null; done
	kill $rk 2>/dev/null; wait $rk 2>/dev/null
	echo "rootlesskit builtin: got $got want $SUM16"
	[ "$got" = "$SUM16" ]
}
# rootlesskit 2.0.2 itself refuses it: 'network "pasta" requires port
# driver "none" or "implicit"' (environmental, not ours)
if rk_builtin >> "$LOGDIR/rootlesskit.log" 2>&1; then
	result rootlesskit "builtin: rootlessctl add-ports, 16 MiB" PASS
elif grep -q 'requires port driver "none" or "implicit"' "$LOGDIR/rootlesskit.log"; then
	result rootlesskit "builtin: rootlessctl add-ports" ENV "rootlesskit refuses builtin with pasta"
else
	result rootlesskit "builtin: rootlessctl add-ports, 16 MiB" FAIL "see $LOGDIR/rootlesskit.log"
fi
