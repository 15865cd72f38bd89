#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# trace_frames.sh - --trace prints one line per frame from and to the
# guest: a TCP connection from the namespace to a socat server in R shows
# the guest's SYN (flags S, ack 0) and our SYN-ACK (flags S., ack = the
# guest's sequence + 1, RFC 9293 3.5); a UDP datagram shows its ports and
# frame length (14 + 20 + 8 + 5 = 47 bytes for 5 bytes of IPv4 payload); a
# frame with a bad IPv4 header checksum, sent on the tap with a packet
# socket, is dropped with that reason.  Without --trace (only -d), none of
# these lines appear.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
ip -n "$R" addr add 198.51.100.3/24 dev r0
bg in_remote socat TCP4-LISTEN:7100,bind=198.51.100.3,reuseaddr,fork PIPE
wait_for in_remote sh -c "ss -tln | grep -q ':7100 '" || fail "socat"

traffic() {
	in_ns python3 - <<'PY' || fail "traffic from the namespace"
import socket, struct
t = socket.create_connection(("198.51.100.3", 7100), timeout=5)
t.sendall(b"hello")
assert t.recv(5) == b"hello"
t.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(b"12345", ("198.51.100.3", 7101))
# IPv4 header with a wrong checksum (0x0000 here), to the tap's own MAC
ifname = [n for _, n in socket.if_nameindex() if n != "lo"][0]
p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
p.bind((ifname, 0))
mac = p.getsockname()[4]
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 0, 0, 64, 17, 0,
                 socket.inet_aton("198.51.100.1"),
                 socket.inet_aton("198.51.100.3")) + b"\0" * 8
p.send(b"\x02\x00\x00\x00\x00\x01" + mac + b"\x08\x00" + ip)
PY
}

PASTA_DEBUG=--trace start_pasta
traffic
L=$WORK/pasta.log
syn=$(grep -m1 'from tap: TCP .* > 198.51.100.3:7100 .* flags S seq' "$L")
[ -n "$syn" ] || { cat "$L"; fail "no trace line for the guest's SYN"; }
echo "$syn"
seq=$(echo "$syn" | sed -n 's/.* seq \([0-9]*\) ack 0 .*/\1/p')
[ -n "$seq" ] || fail "SYN line without seq/ack 0: $syn"
wait_for grep -q "to tap: TCP 198.51.100.3:7100 > .* flags S\. seq [0-9]* ack $((seq + 1)) " "$L" ||
	{ grep "to tap: TCP" "$L" | head; fail "no SYN-ACK acking $((seq + 1))"; }
wait_for grep -q 'from tap: UDP .* > 198.51.100.3:7101 len 47$' "$L" ||
	{ grep "from tap: UDP" "$L" | head; fail "no trace line for the datagram"; }
wait_for grep -q 'from tap: dropped [0-9]*-byte frame: bad IPv4 header checksum' "$L" ||
	{ grep "from tap" "$L" | tail; fail "no trace line for the dropped frame"; }
grep -q 'to tap: ARP\|from tap: ARP' "$L" || fail "no ARP trace line"
pasta_alive
stop_pasta

start_pasta
traffic
sleep 0.5
grep -q 'from tap:\|to tap:' "$WORK/pasta.log" &&
	fail "per-frame lines without --trace"
stop_pasta
pass "--trace: frames from and to the guest, and drops with the reason"
