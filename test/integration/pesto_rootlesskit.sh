#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pesto_rootlesskit.sh - rootlesskit's pesto port driver (--net=pasta
# --port-driver=pesto; pkg/network/pasta/pasta.go, pkg/port/pasta/pesto.go):
# pasta started as rootlesskit does, ports off, with the control socket;
# then for each port rootlessctl adds
#	pesto -A --tcp-ports=PARENTIP/PARENTPORT:CHILDPORT SOCKET
# (PARENTIP 0.0.0.0 for tcp/tcp4, :: as Go prints it, no brackets, for
# tcp6; --udp-ports= for UDP) and removes it with -D and the same option.
# Checked, 2 MiB and sha256 through each port: IPv4 from the host's
# address and its loopback (--host-lo-to-ns-lo), IPv6, a parent IP, UDP;
# -D closes the host's listener.
# asan: yes
. "$(dirname "$0")/lib.sh"
PESTO="$(dirname "$PASST_BIN")/pesto"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
make_file "$WORK/data" 2
want=$(sum "$WORK/data")
mkdir -p "$WORK/state"
SOCK="$WORK/state/pasta.sock"

listening() {
	_f=-Hltn; [ "$2" = udp ] && _f=-Hlun
	$1 ss $_f | awk '{ print $4 }' | grep -q "$3\$"
}

# rootlesskit's pasta options (--disable-host-loopback, IPv6 enabled, the
# host-lo-to-ns-lo feature probed), and -c for the pesto driver
CONFIG_NET=0 TAP_NAME=tap0 start_pasta --stderr --ns-ifname=tap0 \
	--mtu=65520 --config-net --address=10.0.2.100 --netmask=24 \
	--gateway=10.0.2.2 --dns-forward=10.0.2.3 --no-map-gw \
	--tcp-ports=none --udp-ports=none --host-lo-to-ns-lo -c "$SOCK"
wait_for sh -c "ip -n $N -o addr show tap0 | grep -q 'inet 10.0.2.100/24'" ||
	{ cat "$WORK/pasta.log"; fail "tap0 has no 10.0.2.100/24"; }

# pesto ARGS... - the driver's call: failure fatal
pesto() {
	"$PESTO" "$@" "$SOCK" > "$WORK/pesto.out" 2>&1 ||
		{ cat "$WORK/pesto.out"; fail "pesto $*"; }
}

# xfer ADDR PORT SRVPORT WHAT - 2 MiB from H to ADDR:PORT, received in N
# on SRVPORT
xfer() {
	rm -f "$WORK/got"
	bg in_ns timeout 30 socat -u TCP6-LISTEN:$3,reuseaddr,ipv6only=0 OPEN:"$WORK/got",creat,trunc
	_srv=$BG_PID
	wait_for listening in_ns tcp ":$3" || fail "$4: server"
	in_host timeout 30 socat -u OPEN:"$WORK/data" "TCP:$1:$2" ||
		{ kill $_srv 2>/dev/null; fail "$4: client"; }
	wait $_srv
	[ "$(sum "$WORK/got")" = "$want" ] || fail "$4: sha256"
	log "$4: 2 MiB intact"
}

pesto -A --tcp-ports=0.0.0.0/8080:80
pesto -A --tcp-ports=::/8080:80
pesto -A --tcp-ports=127.0.0.1/8081:81
pesto -A --udp-ports=0.0.0.0/5353:53
xfer $H4 8080 80 "tcp 0.0.0.0/8080:80 from $H4"
xfer 127.0.0.1 8080 80 "tcp 0.0.0.0/8080:80 from 127.0.0.1"
xfer "[$H6]" 8080 80 "tcp6 ::/8080:80"
xfer 127.0.0.1 8081 81 "tcp 127.0.0.1/8081:81"
in_host timeout 5 socat -u /dev/null TCP:$H4:8081 2>/dev/null &&
	fail "127.0.0.1/8081 reachable from $H4"
bg in_ns $UDPTOOL echo 0.0.0.0 53 30
wait_for listening in_ns udp ":53" || fail "UDP echo in N"
in_host $UDPTOOL pingpong $H4 5353 20 1400 || fail "udp 0.0.0.0/5353:53"

pesto -D --tcp-ports=0.0.0.0/8080:80
pesto -D --tcp-ports=::/8080:80
pesto -D --tcp-ports=127.0.0.1/8081:81
pesto -D --udp-ports=0.0.0.0/5353:53
listening in_host tcp ":8080" && fail "8080 listens after -D"
listening in_host udp ":5353" && fail "5353 listens after -D"
in_host timeout 5 socat -u /dev/null TCP:127.0.0.1:8080 2>/dev/null &&
	fail "8080 reachable after -D"
"$PESTO" "$SOCK" | grep -q -- '^-t none$' || fail "-t not empty after -D"

pasta_alive
stop_pasta
pass "rootlesskit's pesto port driver: -A and -D of tcp, tcp6, a parent IP, udp"
