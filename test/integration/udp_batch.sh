#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_batch.sh - Batches of datagrams of many flows through pasta's tap,
# both ways, every datagram checked: 8 flows (8 sockets, 8 source ports)
# send rounds of 4 x 8 datagrams each, interleaved 8 by 8, so that one
# recvmmsg() batch of pasta holds runs of several flows, sizes from 16
# bytes to 65,000 (the eighth of each run shorter, every other round one
# longer in the middle), to an echo server (udptool.py flows).  After each
# round every echo must be back whole, byte-identical (a payload seeded by
# flow and sequence number), in order per flow, none lost or duplicated.
#  1. remote (R) -> H's address, -u 6201:5201 -> echo server in the
#     namespace, IPv4 and IPv6: the forwarded-port socket's batches go to
#     the guest (one UDP super-frame per run of a flow where the tap takes
#     them: Linux 6.2), the echoes back through the same socket;
#  2. the namespace -> the gateway address -> an echo server on H's
#     loopback, IPv4 and IPv6: runs of one flow leave with one sendmmsg(),
#     replies come back through recvmmsg() into the tap's frames;
#  3. with --pcap (frames one by one, full checksums) the same as 1;
#  4. passt: a guest that speaks the stream itself (passt_client.py
#     udp-batch) sends each round, 8 flows, in one write of frames to the
#     echo server on H's loopback through the gateway address: the
#     echoes must come back as frames, checksums right, whole, in order.
# Then pasta's --stats counters: every datagram counted both ways, and if
# pasta logged that the tap takes UDP super-frames, some were sent.
# asan: yes
. "$(dirname "$0")/lib.sh"
UDPTOOL="python3 $(dirname "$0")/udptool.py"
SIZES=1400,8000,16,1472,65000,512,3000,100

# warm NS DST PORT - one echo through, retried: neighbours resolved before
# the rounds (the first burst of a round, up to 65,000-byte datagrams in
# IPv4 fragments or IPv6 ones, overflows a neighbour queue that waits for
# ARP or NDP, net.ipv4.neigh.default.unres_qlen_bytes: 3 runs of 10 lost
# a few datagrams of their first round that way)
warm() {
	UDPTOOL_TIMEOUT=1 wait_for $1 $UDPTOOL send $2 $3 --expect-echo ||
		fail "no echo from $2 port $3"
}

setup_topology
make_target_ns
in_ns sysctl -q -w net.ipv6.conf.default.autoconf=0
start_pasta -u 6201:5201 --stats
# dual-stack echo servers (IPv4 peers as mapped addresses)
bg in_ns $UDPTOOL echo :: 5201 120
bg in_host $UDPTOOL echo :: 5202 120
wait_for in_ns sh -c "ss -Huln 'sport = :5201' | grep -q 5201" || fail "echo in ns"
wait_for in_host sh -c "ss -Huln 'sport = :5202' | grep -q 5202" || fail "echo in H"

warm in_remote $H4 6201
warm in_remote $H6 6201
warm in_ns $R4 5202
warm in_ns $R6 5202
in_remote $UDPTOOL flows $H4 6201 8 12 $SIZES || fail "IPv4, remote -> namespace"
in_remote $UDPTOOL flows $H6 6201 8 12 $SIZES || fail "IPv6, remote -> namespace"
log "remote -> namespace: 2 x 8 flows x 384 datagrams echoed whole, in order"
in_ns $UDPTOOL flows $R4 5202 8 12 $SIZES || fail "IPv4, namespace -> host"
in_ns $UDPTOOL flows $R6 5202 8 12 $SIZES || fail "IPv6, namespace -> host"
log "namespace -> host: 2 x 8 flows x 384 datagrams echoed whole, in order"
pasta_alive

kill -USR1 "$PASTA_PID"
wait_for grep -q "stats: UDP flows" "$WORK/pasta.log" || fail "no UDP stats"
st=$(grep "stats: UDP flows" "$WORK/pasta.log" | tail -1)
log "$st"
# 4 x 8 x 384 datagrams each way, and the echo servers' own handful
to=$(echo "$st" | sed -n 's/.*datagrams to guest \([0-9]*\),.*/\1/p')
from=$(echo "$st" | sed -n 's/.*from guest \([0-9]*\),.*/\1/p')
sf=$(echo "$st" | sed -n 's/.*super-frames to guest \([0-9]*\),.*/\1/p')
[ "${to:-0}" -ge 12288 ] && [ "${from:-0}" -ge 12288 ] ||
	fail "datagrams counted: to guest ${to:-?}, from guest ${from:-?} (want 12288 each at least)"
if grep -q "UDP segmentation offload to the namespace: yes" "$WORK/pasta.log"; then
	[ "${sf:-0}" -gt 0 ] || fail "the tap takes UDP super-frames, but none was sent"
	log "USO: $sf super-frames to the namespace"
else
	log "this kernel's tap takes no UDP super-frames: one frame per datagram"
fi
stop_pasta

start_pasta -u 6201:5201 --pcap /dev/null
warm in_remote $H4 6201
warm in_remote $H6 6201
in_remote $UDPTOOL flows $H4 6201 8 4 $SIZES || fail "IPv4 with --pcap"
in_remote $UDPTOOL flows $H6 6201 8 4 $SIZES || fail "IPv6 with --pcap"
pasta_alive
stop_pasta
# passt: a guest speaking the stream itself (passt_client.py), each
# round of 8 flows in one write of frames, to the echo server on H's
# loopback through the gateway address
S=$WORK/passt.sock
start_passt "$S"
in_host python3 "$(dirname "$0")/passt_client.py" udp-batch "$S" $R4 5202 8 8 $SIZES \
	>"$WORK/client.out" 2>&1 || { cat "$WORK/client.out"; fail "passt: UDP batch"; }
grep "^udp flows" "$WORK/client.out"
passt_alive
stop_passt
pass "batches of 8 interleaved UDP flows both ways through pasta and passt, IPv4 and IPv6: every datagram whole, in order"
