#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pesto_podman.sh - podman's rootless bridge forwarder (containers.conf
# rootless_port_forwarder = "pasta"), as container-libs drives it
# (common/libnetwork/pasta/pesto_linux.go, internal/rootlessnetns): one
# pasta for the rootless network namespace, started with -c DIR/pasta.sock
# and --pid, then for each published port of a container
#	pesto --add -t 0.0.0.0/PORT -t [::]/PORT DIR/pasta.sock
# (first form: the namespace itself DNATs to the container) or, with the
# container's addresses as target (later form),
#	pesto --add -t 0.0.0.0/HPORT:CIP4/CPORT -t [::]/HPORT:CIP6/CPORT ...
# (-u for UDP, HP1-HP2:CIP/CP1-CP2 for ranges, [HOSTIP6]/PORT for a host
# IP), and --delete with the same arguments when the container stops.
#
# The "container" is a namespace C behind a veth in the rootless namespace
# N, as netavark's bridge (10.88.0.0/16, fd00::/64 here).  Checked, with
# 2 MiB and sha256 through every port, both families and the host's
# loopback: each form is accepted and serves; the same --add twice is a
# no-op; --delete closes the host's listeners (connections refused); the
# host IP form listens on that address only; after traffic to the
# container, ports without a target still go to N itself.
# asan: yes
. "$(dirname "$0")/lib.sh"
PESTO="$(dirname "$PASST_BIN")/pesto"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
make_file "$WORK/data" 2
want=$(sum "$WORK/data")
SOCK="$WORK/rootless-netns/pasta.sock"
mkdir -p "$WORK/rootless-netns"

listening() {
	_f=-Hltn; [ "$2" = udp ] && _f=-Hlun
	$1 ss $_f | awk '{ print $4 }' | grep -q "$3\$"
}

# podman's pasta for the rootless netns: its default options, no ports
# at start, the control socket
start_pasta -c "$SOCK" -t none -u none -T none -U none \
	--dns-forward 169.254.1.1 --no-map-gw --map-guest-addr 169.254.1.2

# The container: namespace C on a veth from N, default routes through N
C=c-$TEST_ID
ip netns add "$C" || fail "ip netns add $C"
NAMESPACES="$NAMESPACES $C"
ip link add podman0 netns "$N" type veth peer name eth0 netns "$C" ||
	fail "veth to the container"
ip -n "$N" addr add 10.88.0.1/16 dev podman0
ip -n "$N" addr add fd00::1/64 dev podman0 nodad
ip -n "$C" addr add 10.88.0.2/16 dev eth0
ip -n "$C" addr add fd00::2/64 dev eth0 nodad
ip -n "$N" link set podman0 up
ip -n "$C" link set eth0 up
ip -n "$C" link set lo up
ip -n "$C" route add default via 10.88.0.1
ip -n "$C" -6 route add default via fd00::1
in_ns sysctl -q -w net.ipv4.ip_forward=1
in_ns sysctl -q -w net.ipv6.conf.all.forwarding=1
# shellcheck disable=SC2317 # called through wait_for and run_in
in_c() { ip netns exec "$C" "$@"; }
wait_for in_c ping -c1 -W1 10.88.0.1 || fail "container can't reach N"
wait_for in_c ping -6 -c1 -W1 fd00::1 || fail "container can't reach N (IPv6)"

# pesto ARGS... - podman's call: output kept, failure fatal
pesto() {
	"$PESTO" "$@" "$SOCK" > "$WORK/pesto.out" 2>&1 ||
		{ cat "$WORK/pesto.out"; fail "pesto $*"; }
}

# xfer WHERE ADDR PORT SRVNS SRVPORT WHAT - 2 MiB from H to ADDR:PORT,
# received by a server in SRVNS (in_ns or in_c) on SRVPORT
xfer() {
	rm -f "$WORK/got"
	bg $4 timeout 30 socat -u TCP6-LISTEN:$5,reuseaddr,ipv6only=0 OPEN:"$WORK/got",creat,trunc
	_srv=$BG_PID
	wait_for listening $4 tcp ":$5" || fail "$6: server"
	in_host timeout 30 socat -u OPEN:"$WORK/data" "TCP:$2:$3" ||
		{ kill $_srv 2>/dev/null; fail "$6: client"; }
	wait $_srv
	[ "$(sum "$WORK/got")" = "$want" ] || fail "$6: sha256"
	log "$6: 2 MiB intact"
}

# refused ADDR PORT WHAT - a connection from H must fail
refused() {
	in_host timeout 5 socat -u /dev/null "TCP:$1:$2" 2>/dev/null &&
		fail "$3: still reachable"
	return 0
}

# First form: host ports only, N serves them (netavark's DNAT there)
pesto --add -t 0.0.0.0/8080 -t '[::]/8080' -u 0.0.0.0/8053 -u '[::]/8053'
listening in_host tcp "0.0.0.0:8080" || fail "no IPv4 listener for 8080"
listening in_host tcp "\[::\]:8080" || fail "no IPv6 listener for 8080"
xfer in_host $H4 8080 in_ns 8080 "0.0.0.0/8080, from $H4"
xfer in_host "[$H6]" 8080 in_ns 8080 "[::]/8080, from $H6"
xfer in_host 127.0.0.1 8080 in_ns 8080 "0.0.0.0/8080, from 127.0.0.1"
bg in_ns $UDPTOOL echo :: 8053 30
wait_for listening in_ns udp ":8053" || fail "UDP echo in N"
in_host $UDPTOOL pingpong $H4 8053 20 1400 || fail "-u 0.0.0.0/8053"
in_host $UDPTOOL pingpong $H6 8053 20 1400 || fail "-u [::]/8053"
log "UDP 0.0.0.0/8053 and [::]/8053: echoes intact"

# The same --add again: nothing changes, no error (podman: idempotent)
pesto --add -t 0.0.0.0/8080 -t '[::]/8080'
pesto --delete -t 0.0.0.0/8080 -t '[::]/8080' -u 0.0.0.0/8053 -u '[::]/8053'
refused $H4 8080 "deleted 0.0.0.0/8080"
refused "[$H6]" 8080 "deleted [::]/8080"
listening in_host tcp ":8080" && fail "8080 listens after --delete"
listening in_host udp ":8053" && fail "8053 listens after --delete"
log "--delete: 8080 and 8053 closed"

# Later form: the container's addresses as targets, a range, UDP
pesto --add -t 0.0.0.0/9090:10.88.0.2/80 -t '[::]/9090:fd00::2/80' \
	-t 0.0.0.0/8000-8004:10.88.0.2/90-94 -t '[::]/8000-8004:fd00::2/90-94' \
	-u 0.0.0.0/9053:10.88.0.2/53 -u '[::]/9053:fd00::2/53'
xfer in_host $H4 9090 in_c 80 "0.0.0.0/9090:10.88.0.2/80"
xfer in_host "[$H6]" 9090 in_c 80 "[::]/9090:fd00::2/80"
xfer in_host 127.0.0.1 9090 in_c 80 "0.0.0.0/9090:10.88.0.2/80 from 127.0.0.1"
xfer in_host "[$H6]" 8004 in_c 94 "range [::]/8000-8004:fd00::2/90-94, port 8004"
bg in_c $UDPTOOL echo :: 53 30
wait_for listening in_c udp ":53" || fail "UDP echo in the container"
in_host $UDPTOOL pingpong $H4 9053 20 1400 || fail "-u 0.0.0.0/9053:10.88.0.2/53"
in_host $UDPTOOL pingpong $H6 9053 20 1400 || fail "-u [::]/9053:fd00::2/53"
log "UDP to the container's addresses: echoes intact"
"$PESTO" "$SOCK" > "$WORK/rules" || fail "pesto show"
grep -q -- '\[0.0.0.0\]:9090 => \[10.88.0.2\]:80' "$WORK/rules" ||
	{ cat "$WORK/rules"; fail "show: no 9090 to 10.88.0.2"; }
pesto --add -t 0.0.0.0/9090:10.88.0.2/80 -t '[::]/9090:fd00::2/80'
pesto --delete -t 0.0.0.0/9090:10.88.0.2/80 -t '[::]/9090:fd00::2/80' \
	-t 0.0.0.0/8000-8004:10.88.0.2/90-94 -t '[::]/8000-8004:fd00::2/90-94' \
	-u 0.0.0.0/9053:10.88.0.2/53 -u '[::]/9053:fd00::2/53'
refused $H4 9090 "deleted 0.0.0.0/9090"
# Replies from the container's address didn't make it the namespace's own:
# a port without a target still reaches N, over the tap and the splice path
pesto --add -t 0.0.0.0/8080
xfer in_host $H4 8080 in_ns 8080 "0.0.0.0/8080 after target traffic"
xfer in_host 127.0.0.1 8080 in_ns 8080 "0.0.0.0/8080 from 127.0.0.1 after target traffic"
pesto --delete -t 0.0.0.0/8080
refused "[$H6]" 8002 "deleted [::]/8000-8004"
listening in_host tcp ":9090" && fail "9090 listens after --delete"

# A host IP: [::1]/PORT and 127.0.0.1/PORT, that address only
pesto --add -t '[::1]/7070:fd00::2/80' -t 127.0.0.1/7070:10.88.0.2/80
xfer in_host "[::1]" 7070 in_c 80 "[::1]/7070:fd00::2/80"
xfer in_host 127.0.0.1 7070 in_c 80 "127.0.0.1/7070:10.88.0.2/80"
refused $H4 7070 "127.0.0.1/7070 from $H4"
pesto --delete -t '[::1]/7070:fd00::2/80' -t 127.0.0.1/7070:10.88.0.2/80
refused 127.0.0.1 7070 "deleted 127.0.0.1/7070"

pasta_alive
stop_pasta
pass "podman's pesto forwarder: --add/--delete of 0.0.0.0 and [::] ports, targets, ranges, UDP, host IPs"
