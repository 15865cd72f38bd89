#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ports_pesto_forms.sh - every port spec form of passt(1) PORT SPECIFICATIONS
# given at run time through pasta -c and pesto(1): release builds run with
# the seccomp filter enforcing, so a system call that a run-time path makes
# and set-up didn't (a file opened, an ioctl(), a libc helper's own call)
# kills the daemon with SIGSYS.  After each request pasta must be alive and
# answer; for some, data must go through:
#  - single port, range, remapped port and range: 1 MiB over the remapped
#    port (sha256);
#  - ADDR/PORT for 127.0.0.1 and ::1 (1 MiB each), %IF/PORT, ADDR%IF/PORT;
#  - 200 exclusions given last port first, with a range: the kept ports
#    listen, the excluded ones don't;
#  - exclusions only (~22) and "all" (ip_local_port_range): port 22 stays
#    free, 1 MiB through a port of "all";
#  - UDP: a port (echoes byte-identical), groups with and without an
#    interface, IPv4 and IPv6: the kernel shows pasta's membership on
#    that interface (ip maddr); an interface that doesn't exist is
#    refused with a reason;
#  - GROUP%IF/auto, then a program in the namespace binds a UDP port:
#    pasta follows it (joins the group on the interface), and stays alive;
#  - -t auto with an exclusion: a new server is forwarded (1 MiB);
#  - -T, -U, deletions (-D), -C host and -C ns.
# asan: yes
. "$(dirname "$0")/lib.sh"
PESTO="$(dirname "$PASST_BIN")/pesto"
# The system's interpreter if there is one: a version manager's shim takes
# seconds to start on a loaded machine
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
UDPTOOL="$PY $(dirname "$0")/udptool.py"
CTL="$WORK/ctl"

setup_topology
# Low ports of the exclusion test, without CAP_NET_BIND_SERVICE (pasta
# drops it when no port below this is forwarded at start)
in_host sysctl -q -w net.ipv4.ip_unprivileged_port_start=0
make_file "$WORK/data" 1
want=$(sum "$WORK/data")

# listening SIDE PROTO PORT [ADDR] - is PORT listening (TCP) or bound (UDP)
# there, on ADDR if given ("[::1]" for IPv6)?
listening() {
	_f=-Hltn; [ "$2" = udp ] && _f=-Hlun
	$1 ss $_f | awk '{ print $4 }' | grep -q "^${4:-.*}[:%]*[a-z0-9]*:$3\$"
}

# form WHAT PESTO_ARGS... - pesto must apply the request, pasta must then
# be alive and answer a "show"
form() {
	_what=$1; shift
	if ! "$PESTO" "$@" "$CTL" > "$WORK/out" 2>&1; then
		sleep 0.5	# a daemon the filter killed: say that
		pasta_alive
		fail "$_what: refused: $(head -c 300 "$WORK/out")"
	fi
	pasta_alive
	"$PESTO" "$CTL" > "$WORK/show" 2>&1 ||
		{ pasta_alive; cat "$WORK/show"; fail "$_what: no answer to show"; }
	log "$_what: applied, pasta alive"
}

# tcp_data PORT TARGET DST WHAT - 1 MiB from H to DST:PORT, received by a
# server in the namespace on TARGET
tcp_data() {
	rm -f "$WORK/got"
	bg in_ns timeout 20 socat -u TCP6-LISTEN:$2,reuseaddr OPEN:"$WORK/got",creat,trunc
	_srv=$BG_PID
	wait_for listening in_ns tcp $2 || fail "$4: server"
	in_host timeout 20 socat -u OPEN:"$WORK/data" TCP:$3:$1 ||
		fail "$4: client"
	wait $_srv
	[ "$(sum "$WORK/got")" = "$want" ] || fail "$4: sha256"
	log "$4: 1 MiB intact"
}

# joined IF GROUP - has a socket of H joined GROUP on IF (the kernel's view)?
joined() {
	ip -n "$H" maddr show dev "$1" | grep -q -e " $2\$" -e " $2 "
}

# "all" binds ports until descriptors run out: 4096 of them keep that short
# (the flow table's need, 6 per flow, stays below: pasta doesn't raise it)
# shellcheck disable=SC3045 # dash and bash both have ulimit -n and -H
ulimit -n 4096
start_pasta -c "$CTL" -t none -u none -T none -U none --flow-max 128

# TCP: single port, range, remapping, addresses and interfaces
form "single port" -t 5701
form "range" -A -t 5702-5704
form "remapped port" -A -t 5710:5711
form "remapped range" -A -t 5720-5721:5730-5731
for p in 5701 5703 5710 5721; do
	listening in_host tcp $p || fail "port $p not listening"
done
tcp_data 5710 5711 127.0.0.1 "remapped port 5710 -> 5711"
form "IPv4 address" -A -t 127.0.0.1/5740
form "IPv6 address" -A -t ::1/5741
form "interface" -A -t %lo/5742
form "address and interface" -A -t 127.0.0.1%lo/5743
listening in_host tcp 5742 || fail "%lo/5742 not listening"
listening in_host tcp 5743 127.0.0.1 || fail "127.0.0.1%lo/5743 not listening"
tcp_data 5740 5740 127.0.0.1 "127.0.0.1/5740"
tcp_data 5741 5741 '[::1]' "::1/5741"

# 200 exclusions, last one first: more than glibc's qsort() sorts on its
# stack (it then asks sysinfo() about memory)
spec=100-600
p=499
while [ $p -ge 101 ]; do spec="$spec,~$p"; p=$((p - 2)); done
form "200 exclusions" -t "$spec"
listening in_host tcp 100 && listening in_host tcp 498 &&
	listening in_host tcp 550 || fail "200 exclusions: kept ports not listening"
listening in_host tcp 101 || listening in_host tcp 499 &&
	fail "200 exclusions: an excluded port is listening"

# Exclusions only, and "all": the ephemeral range (ip_local_port_range)
bg in_host timeout 30 socat -u TCP4-LISTEN:22,bind=127.0.0.1,reuseaddr -
wait_for listening in_host tcp 22 || fail "holder of port 22"
form "exclusions only" -t "~22"
listening in_host tcp 1500 || fail "~22: port 1500 not listening"
tcp_data 1500 1500 127.0.0.1 "~22, port 1500"
form "all" -t all
listening in_host tcp 1501 || fail "all: port 1501 not listening"
form "none" -t none
listening in_host tcp 1501 && fail "none: port 1501 still listening"

# UDP: a port, groups with and without an interface
bg in_ns $UDPTOOL echo :: 5760 30
wait_for listening in_ns udp 5760 || fail "UDP echo server"
form "UDP port" -u 5760
in_host $UDPTOOL pingpong 127.0.0.1 5760 20 65507 || fail "UDP 5760: echoes"
log "UDP 5760: echoes intact"
form "IPv4 group on lo" -A -u 224.0.0.251%lo/5353
joined lo 224.0.0.251 || fail "224.0.0.251 not joined on lo"
form "IPv4 group on h0" -A -u 224.0.0.252%h0/5355
joined h0 224.0.0.252 || fail "224.0.0.252 not joined on h0"
form "IPv4 group" -A -u 224.0.0.253/5357
form "IPv6 group on h0" -A -u ff02::fb%h0/5356
joined h0 ff02::fb || fail "ff02::fb not joined on h0"
form "IPv6 group" -A -u ff05::fb/5358
listening in_host udp 5357 224.0.0.253 && listening in_host udp 5358 '\[ff05::fb\]' ||
	fail "groups without an interface: not bound"
"$PESTO" -A -u 224.0.0.251%nosuch0/5359 "$CTL" > "$WORK/out" 2>&1 &&
	fail "group on an interface that doesn't exist: accepted"
pasta_alive
grep -q "5359 can't be forwarded" "$WORK/out" ||
	{ cat "$WORK/out"; fail "unknown interface: no reason given"; }
log "group on an unknown interface: refused, $(head -c 100 "$WORK/out")"
form "delete groups" -D -u 224.0.0.252%h0/5355 -u ff02::fb%h0/5356
joined h0 224.0.0.252 && fail "224.0.0.252 still joined on h0 after -D"

# GROUP%IF/auto: each port a program of the namespace binds is followed
form "group, interface and auto" -u 224.0.0.254%h0/auto
bg in_ns $UDPTOOL echo 0.0.0.0 5390 30
wait_for listening in_ns udp 5390 || fail "auto: UDP server on 5390"
WAIT_S=3 wait_for listening in_host udp 5390 224.0.0.254 ||
	{ pasta_alive; cat "$WORK/pasta.log"; fail "auto: UDP 5390 not followed"; }
pasta_alive
joined h0 224.0.0.254 ||
	{ ip -n "$H" maddr show dev h0; in_host ss -Hlun; cat "$WORK/pasta.log"; fail "auto: 224.0.0.254 not joined on h0"; }
log "group%h0/auto: UDP 5390 bound in the namespace is followed"

# -t auto with an exclusion (-A: without it, -t would replace the whole
# host side, -u included, as upstream's pesto)
form "auto with an exclusion" -A -t auto,~5391
bg in_ns timeout 20 socat -u TCP6-LISTEN:5392,reuseaddr OPEN:"$WORK/got",creat,trunc
_srv=$BG_PID
WAIT_S=3 wait_for listening in_host tcp 5392 || fail "auto: 5392 not forwarded"
in_host timeout 20 socat -u OPEN:"$WORK/data" TCP:127.0.0.1:5392 || fail "auto 5392: client"
wait $_srv
[ "$(sum "$WORK/got")" = "$want" ] || fail "auto 5392: sha256"
log "auto 5392: 1 MiB intact"

# Namespace side, deletions, clearing
form "namespace TCP" -T 5780
form "namespace UDP with address" -A -U ::1/5781
listening in_ns tcp 5780 && listening in_ns udp 5781 '\[::1\]' ||
	fail "-T 5780 or -U ::1/5781 not bound in the namespace"
form "delete auto" -D -t auto
form "delete group auto" -D -u 224.0.0.254%h0/auto
form "clear host" -C host
form "clear ns" -C ns
listening in_host udp 5760 && fail "-C host: 5760 still bound"

pasta_alive
stop_pasta
pass "every port spec form through pesto: pasta alive after each, data through"
