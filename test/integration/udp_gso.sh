#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_gso.sh - Super-datagrams (UDP_SEGMENT, UDP_GRO: udp(7)) through pasta
# keep every datagram boundary: each sender writes runs of datagrams of one
# size and a shorter last one in one sendmsg() with a UDP_SEGMENT cmsg
# (udptool.py gso), to an echo server that reads with UDP_GRO and answers
# each run the same way (udptool.py gsoecho); the sender reads with a plain
# socket and checks the size and sha256 of every datagram, in order.
#  1. remote (R) -> H's -u port -> echo in the namespace, IPv4 and IPv6:
#     pasta's forwarded-port socket has UDP_GRO, so what it reads holds
#     several datagrams (veth passes the sender's GSO packet whole);
#  2. the namespace -> the gateway -> echo on H's loopback, IPv4 and IPv6,
#     segments up to 16,000 bytes (the tap's MTU is 65,520): the echoes
#     reach pasta's flow socket (UDP_GRO) as super-datagrams;
#  3. H's loopback -> the -u port -> spliced to the namespace's echo, and
#     the namespace's loopback -> the -U port -> spliced to H's echo:
#     both of pasta's sockets of the flow have UDP_GRO, and each
#     super-datagram must go on whole, in one send with UDP_SEGMENT, both
#     ways (--stats: spliced super-datagrams whole; fails on a pasta that
#     cuts them into one send per datagram);
#  4. with --pcap (no UDP super-frames to the namespace: super-datagrams
#     cut into one frame per datagram here), 1 and 2 again;
#  5. with --no-udp-offload (no UDP_GRO, no UDP_SEGMENT, no USO on the
#     tap: what a kernel without them gets), 1, 2 and 3 again: no
#     super-frame either way (the namespace's kernel cuts its own), no
#     spliced super-datagram;
#  6. with --no-map-gw, the namespace -> R itself, segments of 8,000
#     bytes: R's veth has MTU 1500, the kernel refuses UDP_SEGMENT for the
#     flow (EINVAL), which falls back to one datagram per message (IP
#     fragments on the veth).
# In run 1, pasta's --stats must count datagrams read in super-datagrams
# (fails on a pasta without UDP_GRO) and, on a kernel whose tap takes USO,
# super-frames from the namespace; in run 5 no super-datagram and no
# super-frame; in run 6 super-frames cut here.
# In runs 1 and 5 a burst (burst()): pasta stopped (SIGSTOP) while R sends
# four super-datagrams of 32 x 1400 bytes back to back, so that one read
# of the -u port holds all 128 datagrams, then let go.  Each comes back
# whole and in order (sha256); in run 1, on a kernel whose tap takes USO,
# they reach the namespace in super-frames of at most 65,507 payload bytes
# (46 datagrams of 1,400: 3 frames at least; a pasta that joined all 64
# datagrams a frame may carry, 89,600 bytes, sent one frame each instead,
# the G2 row of make bench), in run 5 (IPv4 only) in 128 frames of their
# own.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"
# Over R's veth (MTU 1500) a segment must fit a packet: 1452 bytes at most
# for IPv6 (UDP_SEGMENT refuses more, EINVAL); the last of each run shorter
REMOTE=1000:5500,1400:44800,1452:65000,300:19200,100:150,1200:1200
NS=8000:63000,16000:65000,1000:5500,1400:44800,300:19200,100:150

warm() {
	UDPTOOL_TIMEOUT=1 wait_for $1 $UDPTOOL send $2 $3 --expect-echo ||
		fail "no echo from $2 port $3"
}

# rounds N - runs 1 and 2 with N rounds each
rounds() {
	warm in_remote $H4 6301
	warm in_remote $H6 6301
	warm in_ns $R4 5302
	warm in_ns $R6 5302
	in_remote $UDPTOOL gso $H4 6301 $1 $REMOTE || fail "IPv4, remote -> namespace ($2)"
	in_remote $UDPTOOL gso $H6 6301 $1 $REMOTE || fail "IPv6, remote -> namespace ($2)"
	in_ns $UDPTOOL gso $R4 5302 $1 $NS || fail "IPv4, namespace -> host ($2)"
	in_ns $UDPTOOL gso $R6 5302 $1 $NS || fail "IPv6, namespace -> host ($2)"
}

# stat_line - a new "stats: UDP" line of pasta's log (SIGUSR1), waited for
stat_line() {
	_n=$(grep -c "stats: UDP flows" "$WORK/pasta.log")
	kill -USR1 "$PASTA_PID"
	wait_for sh -c "[ \$(grep -c 'stats: UDP flows' '$WORK/pasta.log') -gt $_n ]" ||
		fail "no new UDP stats"
	grep "stats: UDP flows" "$WORK/pasta.log" | tail -1
}

# field LINE NAME - the counter NAME of a "stats: UDP" line
field() { echo "$1" | sed -n "s/.*$2 \([0-9]*\).*/\1/p"; }

# recvq - bytes queued on H's -u port 6301 sockets (ss Recv-Q)
recvq() {
	in_host ss -Huln 'sport = :6301' | awk '{ q += $2 } END { print q + 0 }'
}

# burst ADDR MIN MAX - four super-datagrams of 32 x 1400 bytes from R to
# ADDR's -u port while pasta is stopped, echoed back whole and in order;
# super-frames to the namespace for them between MIN and MAX; after
# rounds(), which opened the flow and resolved the neighbours
burst() {
	l0=$(stat_line)
	kill -STOP "$PASTA_PID"
	bg in_remote $UDPTOOL gso $1 6301 1 1400:44800,1400:44800,1400:44800,1400:44800
	bpid=$BG_PID
	# all four queued (Recv-Q counts more than their payload), or 3 s
	i=0
	while [ "$(recvq)" -lt 179200 ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
	kill -CONT "$PASTA_PID"
	wait $bpid || fail "burst to $1: datagrams changed, lost or out of order"
	l1=$(stat_line)
	f0=$(field "$l0" "super-frames to guest")
	f1=$(field "$l1" "super-frames to guest")
	d0=$(field "$l0" "datagrams to guest")
	d1=$(field "$l1" "datagrams to guest")
	log "burst to $1: $((d1 - d0)) datagrams to the namespace in $((f1 - f0)) super-frames"
	[ $((d1 - d0)) -ge 128 ] || fail "burst to $1: $((d1 - d0)) datagrams to the namespace, not 128"
	[ $((f1 - f0)) -ge $2 ] && [ $((f1 - f0)) -le $3 ] ||
		fail "burst to $1: $((f1 - f0)) super-frames to the namespace, not $2 to $3"
}

# stat NAME - a counter of a new "stats: UDP" line of pasta's log
stat() { field "$(stat_line)" "$1"; }

setup_topology
make_target_ns
in_ns sysctl -q -w net.ipv6.conf.default.autoconf=0
bg in_ns $UDPTOOL gsoecho :: 5301 150
bg in_host $UDPTOOL gsoecho :: 5302 150
wait_for in_ns sh -c "ss -Huln 'sport = :5301' | grep -q 5301" || fail "echo in ns"
wait_for in_host sh -c "ss -Huln 'sport = :5302' | grep -q 5302" || fail "echo in H"

# spliced N - run 3 with N rounds each way
spliced() {
	warm in_host 127.0.0.1 6301
	warm in_host ::1 6301
	warm in_ns 127.0.0.1 6302
	warm in_ns ::1 6302
	in_host $UDPTOOL gso 127.0.0.1 6301 $1 $NS || fail "IPv4, spliced in ($2)"
	in_host $UDPTOOL gso ::1 6301 $1 $NS || fail "IPv6, spliced in ($2)"
	in_ns $UDPTOOL gso 127.0.0.1 6302 $1 $NS || fail "IPv4, spliced out ($2)"
	in_ns $UDPTOOL gso ::1 6302 $1 $NS || fail "IPv6, spliced out ($2)"
}

start_pasta -u 6301:5301 -U 6302:5302 --stats
grep "UDP offload on host sockets" "$WORK/pasta.log"
grep -q "UDP_GRO no" "$WORK/pasta.log" && skip "this kernel has no UDP_GRO"
grep -q "UDP_SEGMENT no" "$WORK/pasta.log" && skip "this kernel has no UDP_SEGMENT"
rounds 4 default
spliced 4 default
pasta_alive
# 4 rounds of 6 runs of several datagrams, IPv4 and IPv6, in and out,
# each echoed: 192 super-datagrams, each sent on whole (the loopback
# passes a UDP_SEGMENT sender's packet whole to a UDP_GRO reader)
whole=$(stat "spliced super-datagrams whole")
split=$(stat "split")
log "spliced super-datagrams: $whole sent whole, $split split"
[ "${whole:-0}" -ge 192 ] || fail "${whole:-no} spliced super-datagrams sent whole with UDP_SEGMENT"
[ "${split:-1}" -eq 0 ] || fail "$split spliced super-datagrams split, UDP_SEGMENT on loopback"
gro=$(stat "datagrams in host super-datagrams")
log "$(grep 'stats: UDP flows' "$WORK/pasta.log" | tail -1)"
[ "${gro:-0}" -gt 0 ] || fail "no super-datagram read from a UDP_GRO socket"
uso=0
grep -q "UDP segmentation offload to the namespace: yes" "$WORK/pasta.log" && uso=1
gin=$(stat "super-frames from guest")
cut=$(stat "cut here")
[ $uso = 0 ] || [ "${gin:-0}" -gt 0 ] || fail "no super-frame from the namespace"
[ "${cut:-1}" -eq 0 ] || fail "$cut super-frames cut here with UDP_SEGMENT"
if [ $uso = 1 ]; then
	burst $H4 3 4
	burst $H6 3 4
else
	burst $H4 0 0
fi
pasta_alive
stop_pasta

start_pasta -u 6301:5301 --pcap /dev/null
rounds 2 pcap
pasta_alive
stop_pasta

start_pasta -u 6301:5301 -U 6302:5302 --no-udp-offload --stats
grep -q "UDP offload on host sockets: off" "$WORK/pasta.log" ||
	fail "--no-udp-offload not logged"
rounds 1 no-udp-offload
spliced 1 no-udp-offload
whole=$(stat "spliced super-datagrams whole")
[ "${whole:-1}" -eq 0 ] || fail "$whole spliced super-datagrams sent whole with --no-udp-offload"
gro=$(stat "datagrams in host super-datagrams")
[ "${gro:-1}" -eq 0 ] || fail "$gro datagrams read in super-datagrams with --no-udp-offload"
grep -q "UDP segmentation offload to the namespace: off" "$WORK/pasta.log" ||
	fail "tap USO not turned off by --no-udp-offload"
l=$(stat_line)
gin=$(field "$l" "super-frames from guest")
[ "${gin:-1}" -eq 0 ] || fail "$gin super-frames from the namespace with --no-udp-offload"
uout=$(field "$l" "super-frames to guest")
[ "${uout:-1}" -eq 0 ] || fail "$uout super-frames to the namespace with --no-udp-offload"
burst $H4 0 0
pasta_alive
stop_pasta

bg in_remote $UDPTOOL gsoecho :: 5303 60
wait_for in_remote sh -c "ss -Huln 'sport = :5303' | grep -q 5303" || fail "echo in R"
start_pasta --no-map-gw --stats
warm in_ns $R4 5303
in_ns $UDPTOOL gso $R4 5303 2 8000:63000,1000:5500 || fail "IPv4, namespace -> R, refused UDP_SEGMENT"
cut=$(stat "cut here")
[ $uso = 0 ] || [ "${cut:-0}" -gt 0 ] || fail "UDP_SEGMENT refused, but no super-frame cut here"
log "$(grep 'stats: UDP flows' "$WORK/pasta.log" | tail -1)"
pasta_alive
stop_pasta
pass "super-datagrams both ways, remote, namespace and spliced, with and without offloads: every datagram whole, in order"
