#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ports_auto.sh - "auto" forwarding, pasta's default with no port option:
#  - a TCP server that starts listening in the namespace after pasta is up
#    (0.0.0.0 or ::) is reachable from H within 2 s, IPv4 and IPv6 (16 MiB,
#    sha256), and refused within 2 s after it closed;
#  - the same for a UDP echo server (datagrams up to 65,507 bytes, each
#    echoed byte-identical);
#  - -T auto: a TCP server on H's loopback becomes reachable from the
#    namespace's loopback (16 MiB, sha256), and our own -t auto listener
#    on H is never forwarded back into the namespace;
#  - a server bound to the namespace's loopback only is not forwarded;
#  - "-t 5310-5315,~5311,5320:5321,auto" (upstream's meaning, passt(1):
#    "only forward ports in the specified set if the target ports are bound
#    in the namespace"): 5312 is forwarded while it listens there, the
#    excluded 5311 and 5330, outside the set, never are; host port 5320
#    listens only while 5321 does in the namespace (16 MiB, sha256);
#    pesto(1) shows what "auto" forwards.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
make_file "$WORK/data" 16
want=$(sum "$WORK/data")

# listening SIDE PROTO PORT - is PORT listening (TCP) or bound (UDP) there?
listening() {
	_f=-Hltn; [ "$2" = udp ] && _f=-Hlun
	$1 ss $_f | awk '{ print $4 }' | grep -q ":$3\$"
}

# appears SIDE PROTO PORT WHAT - wait up to 2 s for PORT to listen on SIDE
appears() {
	_t0=$(date +%s.%N)
	WAIT_S=2 wait_for listening "$1" "$2" "$3" ||
		{ cat "$WORK/pasta.log"; fail "$4: port $3 not forwarded within 2 s"; }
	log "$4: port $3 forwarded after $(echo "$_t0 $(date +%s.%N)" |
		awk '{ printf "%.2f s", $2 - $1 }')"
}

# shellcheck disable=SC2317 # called through wait_for
not_listening() { ! listening "$@"; }

# gone SIDE PROTO PORT WHAT - wait up to 2 s for PORT to stop listening
gone() {
	WAIT_S=2 wait_for not_listening "$1" "$2" "$3" ||
		fail "$4: port $3 still forwarded 2 s after the server closed"
}

# tcp_check FAM SRV_IN SRV_ADDR PORT CLI_IN DST WHAT - 16 MiB from a client
# (CLI_IN) to DST:PORT, received by a socat server (SRV_IN) started now on
# SRV_ADDR:PORT: forwarded within 2 s, sha256 equal; refused after it closes
tcp_check() {
	fam=$1; srv_in=$2; saddr=$3; port=$4; cli_in=$5; dst=$6; what=$7
	other=in_host; [ "$srv_in" = in_host ] && other=in_ns
	rm -f "$WORK/got"
	bg $srv_in timeout 30 socat -u TCP$fam-LISTEN:$port,bind=$saddr,reuseaddr \
		OPEN:"$WORK/got",creat,trunc
	srv=$BG_PID
	wait_for listening $srv_in tcp $port || fail "$what: server"
	appears $other tcp $port "$what"
	$cli_in timeout 30 socat -u OPEN:"$WORK/data" TCP$fam:$dst:$port ||
		fail "$what: client"
	wait $srv
	got=$(sum "$WORK/got")
	[ "$got" = "$want" ] || fail "$what: sha256 $got, sent $want"
	gone $other tcp $port "$what"
	$cli_in timeout 5 socat -u /dev/null TCP$fam:$dst:$port 2>/dev/null &&
		fail "$what: port $port still reachable after the server closed"
	log "$what: 16 MiB intact, refused after close"
}

# udp_check ADDR PORT DST - UDP echo server in the namespace on ADDR:PORT:
# forwarded within 2 s, echoes from H byte-identical, refused after close
udp_check() {
	addr=$1; port=$2; dst=$3
	bg in_ns $UDPTOOL echo "$addr" $port 30
	srv=$BG_PID
	wait_for listening in_ns udp $port || fail "UDP [$addr]: server"
	appears in_host udp $port "UDP [$addr] ns->host"
	in_host $UDPTOOL pingpong "$dst" $port 300 65507 ||
		fail "UDP [$addr]: echo through $dst"
	kill $srv; wait $srv 2>/dev/null
	gone in_host udp $port "UDP [$addr]"
	in_host $UDPTOOL refused "$dst" $port ||
		fail "UDP [$addr]: port $port not refused after the server closed"
	log "UDP [$addr]: echoes intact, refused after close"
}

start_pasta
grep -q 'forward TCP in: auto' "$WORK/pasta.log" ||
	{ cat "$WORK/pasta.log"; fail "no -t auto by default"; }

# -t auto: the client on H's loopback (spliced) and from R (tap path)
tcp_check 4 in_ns 0.0.0.0 5301 in_host 127.0.0.1 "TCP IPv4 ns server, H loopback"
tcp_check 6 in_ns '[::]' 5302 in_host '[::1]' "TCP IPv6 ns server, H loopback"
tcp_check 4 in_ns 0.0.0.0 5303 in_remote $H4 "TCP IPv4 ns server, from R"
tcp_check 6 in_ns '[::]' 5304 in_remote "[$H6]" "TCP IPv6 ns server, from R"

# -u auto
udp_check 0.0.0.0 5401 127.0.0.1
udp_check :: 5402 ::1

# -T auto: H's loopback server, client on the namespace's loopback
tcp_check 4 in_host 127.0.0.1 5501 in_ns 127.0.0.1 "TCP IPv4 H server, ns loopback"

# No loop: our -t auto listeners on H never came back into the namespace
grep -E -q -- '-T auto: forwarding port 530[1-4]' "$WORK/pasta.log" &&
	fail "-T auto forwarded a port of our own -t auto listeners"

# A namespace service on its loopback only stays private
bg in_ns timeout 10 socat -u TCP4-LISTEN:5305,bind=127.0.0.1,reuseaddr -
wait_for listening in_ns tcp 5305 || fail "loopback server"
sleep 2
listening in_host tcp 5305 && fail "a server on the namespace's loopback was forwarded"
pasta_alive
stop_pasta

# Ports and exclusions with auto: only those ports, only while bound
start_pasta -t 5310-5315,~5311,5320:5321,auto -u none -T none -U none \
	-c "$WORK/ctl"
bg in_ns timeout 10 socat -u TCP4-LISTEN:5311,reuseaddr -
wait_for listening in_ns tcp 5311 || fail "server on 5311"
bg in_ns timeout 10 socat -u TCP4-LISTEN:5330,reuseaddr -
wait_for listening in_ns tcp 5330 || fail "server on 5330"
tcp_check 4 in_ns 0.0.0.0 5312 in_host 127.0.0.1 "TCP in the given range"
listening in_host tcp 5311 && fail "excluded port 5311 was forwarded"
listening in_host tcp 5330 && fail "port 5330, outside the spec, was forwarded"
listening in_host tcp 5320 && fail "5320 listens while nothing listens on 5321"
bg in_ns timeout 20 socat -u TCP4-LISTEN:5321,reuseaddr OPEN:"$WORK/got2",creat,trunc
srv=$BG_PID
wait_for listening in_ns tcp 5321 || fail "server on 5321"
appears in_host tcp 5320 "5320:5321,auto"
# pesto(1) shows the ports "auto" forwards as of the request
"$(dirname "$PASST_BIN")/pesto" "$WORK/ctl" > "$WORK/show" || fail "pesto"
grep -q -- '^-t auto, only 5310,5312-5315,5320:5321, except 5311, forwarding now: 5320$' "$WORK/show" ||
	{ cat "$WORK/show"; fail "pesto: auto not shown as expected"; }
in_host timeout 20 socat -u OPEN:"$WORK/data" TCP4:127.0.0.1:5320 ||
	fail "5320 to 5321: client"
wait $srv
[ "$(sum "$WORK/got2")" = "$want" ] || fail "5320 to 5321: sha256"
log "5320 to 5321 while 5321 listens: 16 MiB intact"
gone in_host tcp 5320 "5320:5321,auto"
pasta_alive
stop_pasta
pass "auto: ports follow the servers within 2 s, both families, TCP and UDP"
