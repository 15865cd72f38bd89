# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/clients/podman.sh - rootless podman 5.4 --network=pasta (sourced by run.sh)
#
# Cases: addresses and routes podman's pasta gives the container; published
# ports (-p) over TCP and UDP, IPv4 and IPv6, from the remote namespace (tap
# path) and from the host's loopback (splice), 16 MiB both ways checked with
# sha256; --network=pasta:-t,auto; host.containers.internal (podman's
# --map-guest-addr); DNS through podman's --dns-forward; -4 and -6; pasta's
# exit when the container stops.

# podman_run ARGS... - rootless podman, output in the log
P() { as_user podman "$@"; }

pcase() {	# pcase NAME CMD... - run CMD, PASS if it succeeds
	n=$1; shift
	if "$@" >> "$LOGDIR/podman.log" 2>&1; then result podman "$n" PASS
	else result podman "$n" FAIL "see $LOGDIR/podman.log"; fi
}

ensure_image || { result podman "test image" FAIL "see $LOGDIR/image.log"; return 0; }
: > "$LOGDIR/podman.log"

p_addr() {
	out=$(P run --rm --network=pasta "$IMAGE" sh -c 'ip -j addr show; ip -j route show; ip -j -6 route show') || return 1
	echo "$out"
	echo "$out" | grep -q "\"local\":\"$H4\"" &&
	echo "$out" | grep -q "\"local\":\"$H6\"" &&
	echo "$out" | grep -q "\"dst\":\"default\",\"gateway\":\"$R4\"" &&
	echo "$out" | grep -q "\"dst\":\"default\",\"gateway\":\"$R6\""
}
pcase "default: addresses, routes (v4, v6)" p_addr

# p_tcp_pub FAMILY FROM DIRECTION - published TCP port, 16 MiB
#   FAMILY 4|6, FROM remote|loopback, DIRECTION in (to the container) | out
p_tcp_pub() {
	fam=$1 from=$2 dir=$3 port=$((20000 + RANDOM % 5000))
	rm -f "$HOUT/got"
	if [ "$dir" = in ]; then
		srv="socat -u TCP$fam-LISTEN:$port,reuseaddr - > /data/got"
	else
		# the container stays up after sending: its namespace going
		# away with data still in flight would truncate it (both
		# pastas)
		srv="socat -u OPEN:/data/16M TCP$fam-LISTEN:$port,reuseaddr; sleep 60"
	fi
	cid=$(P run -d --network=pasta -p "$port:$port/tcp" -v "$OUT:/data" "$IMAGE" sh -c "$srv") || return 1
	wait_for 10 P exec "$cid" sh -c "ss -Hltn | grep -q :$port" || { P rm -f "$cid"; return 1; }
	case $fam$from in
	4remote) addr=$H4 ;; 6remote) addr="[$H6]" ;;
	4loopback) addr=127.0.0.1 ;; 6loopback) addr="[::1]" ;;
	esac
	if [ "$from" = remote ]; then run="ip netns exec $R"; else run="nsenter -t $HOLDER -m -n -r -w --"; fi
	if [ "$dir" = in ]; then
		[ "$from" = remote ] && f=$HOUT/16M || f=$OUT/16M
		timeout 60 $run socat -u "OPEN:$f" "TCP$fam:$addr:$port"
		timeout 30 nsenter -t $HOLDER -m -n -r -w -- runuser -u $USERNAME -- env HOME=/home/$USERNAME XDG_RUNTIME_DIR=/run/user/$UID_C podman wait "$cid" >/dev/null
		got=$(sum "$HOUT/got")
	else
		got=$(timeout 60 $run socat -u "TCP$fam:$addr:$port" - | sha256sum | cut -d' ' -f1)
	fi
	P rm -f "$cid" >/dev/null
	echo "tcp $fam $from $dir: got $got want $SUM16"
	[ "$got" = "$SUM16" ]
}
for fam in 4 6; do for from in remote loopback; do for dir in in out; do
	pcase "-p TCP IPv$fam from $from, 16 MiB $dir" p_tcp_pub $fam $from $dir
done; done; done

# p_udp_pub FAMILY FROM - published UDP port: datagrams echoed by the
# container, every one checked
p_udp_pub() {
	fam=$1 from=$2 port=$((25000 + RANDOM % 5000))
	cid=$(P run -d --network=pasta -p "$port:$port/udp" "$IMAGE" \
		socat UDP$fam-RECVFROM:$port,fork EXEC:cat) || return 1
	wait_for 10 P exec "$cid" sh -c "ss -Hlun | grep -q :$port" || { P rm -f "$cid"; return 1; }
	case $fam$from in
	4remote) addr=$H4 ;; 6remote) addr="[$H6]" ;;
	4loopback) addr=127.0.0.1 ;; 6loopback) addr="[::1]" ;;
	esac
	if [ "$from" = remote ]; then run="ip netns exec $R"; else run="nsenter -t $HOLDER -m -n -r -w --"; fi
	ok=0
	for i in 1 2 3 4 5; do
		msg="datagram-$i-$(head -c 600 /dev/urandom | sha256sum | cut -c1-64)"
		back=$(echo "$msg" | timeout 5 $run socat -T 2 - "UDP$fam:$addr:$port")
		[ "$back" = "$msg" ] && ok=$((ok + 1))
	done
	P rm -f "$cid" >/dev/null
	echo "udp $fam $from: $ok/5 echoed"
	[ $ok -ge 4 ]
}
for fam in 4 6; do for from in remote loopback; do
	pcase "-p UDP IPv$fam from $from, echo" p_udp_pub $fam $from
done; done

# --network=pasta:-t,auto: a server started after the container is up
p_auto() {
	port=$((30000 + RANDOM % 5000))
	cid=$(P run -d --network=pasta:-t,auto -v "$OUT:/data" "$IMAGE" \
		sh -c "sleep 2; socat -u OPEN:/data/16M TCP4-LISTEN:$port,reuseaddr; sleep 60") || return 1
	wait_for 10 P exec "$cid" sh -c "ss -Hltn | grep -q :$port" || { P rm -f "$cid"; return 1; }
	sleep 1.5
	got=$(timeout 60 ip netns exec $R socat -u "TCP4:$H4:$port" - | sha256sum | cut -d' ' -f1)
	P rm -f "$cid" >/dev/null
	[ "$got" = "$SUM16" ]
}
pcase "--network=pasta:-t,auto late listener" p_auto

# host.containers.internal: a server on the host, reached by name
p_hci() {
	port=$((35000 + RANDOM % 5000))
	in_chroot socat -u OPEN:$OUT/16M TCP-LISTEN:$port,reuseaddr &
	spid=$!
	sleep 0.5
	got=$(P run --rm --network=pasta "$IMAGE" sh -c \
		"getent hosts host.containers.internal >&2; socat -u TCP:host.containers.internal:$port -" |
		sha256sum | cut -d' ' -f1)
	kill $spid 2>/dev/null
	[ "$got" = "$SUM16" ]
}
pcase "host.containers.internal, 16 MiB" p_hci

# Host loopback through the gateway address (--map-gw): podman passes no
# --no-map-gw here
p_mapgw() {
	port=$((40000 + RANDOM % 5000))
	in_chroot socat -u OPEN:$OUT/16M TCP4-LISTEN:$port,bind=127.0.0.1,reuseaddr &
	spid=$!
	sleep 0.5
	got=$(P run --rm --network=pasta:--map-gw "$IMAGE" socat -u TCP4:$R4:$port - |
		sha256sum | cut -d' ' -f1)
	kill $spid 2>/dev/null
	[ "$got" = "$SUM16" ]
}
pcase "--map-gw: gateway is host loopback" p_mapgw

p_dns() {
	out=$(P run --rm --network=pasta "$IMAGE" sh -c 'cat /etc/resolv.conf; nslookup l.root-servers.net') || return 1
	echo "$out"
	echo "$out" | grep -q 203.0.113.53
}
pcase "DNS via --dns-forward (podman default)" p_dns

# --dns-forward equal to the host's (so the container's) address: podman's
# "Custom DNS forward address, IPv4" gives 198.51.100.1 whatever the host
# has; upstream's pasta starts with it, so must ours
p_dns_own() {
	out=$(P run --rm --network=pasta:--dns-forward,$H4 "$IMAGE" grep nameserver /etc/resolv.conf) || return 1
	echo "$out"
	echo "$out" | head -n 1 | grep -q "^nameserver $H4\$"
}
pcase "--dns-forward = the host's own address" p_dns_own

p_fam() {
	out=$(P run --rm --network=pasta:-$1 "$IMAGE" ip -j addr show) || return 1
	echo "$out"
	if [ "$1" = 4 ]; then
		echo "$out" | grep -q "\"local\":\"$H4\"" && ! echo "$out" | grep -q "\"local\":\"$H6\""
	else
		echo "$out" | grep -q "\"local\":\"$H6\"" && ! echo "$out" | grep -q "\"local\":\"$H4\""
	fi
}
pcase "--network=pasta:-4" p_fam 4
pcase "--network=pasta:-6" p_fam 6

p_exit() {
	pidf=$OUT/pasta.pid
	rm -f "$HOUT/pasta.pid"
	cid=$(P run -d --network=pasta:--pid,$pidf "$IMAGE" sleep 300) || return 1
	wait_for 5 test -s "$HOUT/pasta.pid" || return 1
	pid=$(cat "$HOUT/pasta.pid")
	in_chroot kill -0 "$pid" || return 1
	P stop -t 1 "$cid" >/dev/null
	P rm -f "$cid" >/dev/null
	wait_for 3 sh -c "! kill -0 $pid"
}
pcase "pasta exits after podman stop" p_exit

# A rootless bridge network: podman 5 runs pasta for its rootless network
# namespace (netavark inside, rootlessport for -p)
p_bridge() {
	net=clients-net-$ID
	port=$((21000 + RANDOM % 3000))
	P network create "$net" || return 1
	cid=$(P run -d --network="$net" -p "$port:$port/tcp" -v "$OUT:/data" "$IMAGE" \
		sh -c "socat -u OPEN:/data/16M TCP4-LISTEN:$port,reuseaddr; sleep 60") || { P network rm -f "$net"; return 1; }
	wait_for 10 P exec "$cid" sh -c "ss -Hltn | grep -q :$port"
	got=$(timeout 60 ip netns exec $R socat -u "TCP4:$H4:$port" - | sha256sum | cut -d' ' -f1)
	out=$(P run --rm --network="$net" "$IMAGE" sh -c "getent hosts host.containers.internal")
	echo "bridge: got $got want $SUM16; host.containers.internal: $out"
	P rm -f "$cid" >/dev/null
	P network rm -f "$net" >/dev/null
	[ "$got" = "$SUM16" ] && [ -n "$out" ]
}
pcase "bridge network (pasta rootless netns), -p 16 MiB" p_bridge
