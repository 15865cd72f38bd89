#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pcap_capture.sh - --pcap writes the frames crossing the tap in a file
# tshark reads: the ping's echo requests and replies are in it, and tshark
# finds no malformed packet
. "$(dirname "$0")/lib.sh"

command -v tshark >/dev/null || fail "tshark missing"
setup_topology
start_pasta --pcap "$WORK/cap.pcap"
in_ns ping -c3 -i0.2 -W2 $R4 >/dev/null || fail "ping"
stop_pasta
tshark -r "$WORK/cap.pcap" > "$WORK/dec" 2>/dev/null || { cat "$WORK/dec"; fail "tshark can't read the capture"; }
head -20 "$WORK/dec"
req=$(grep -c "Echo (ping) request" "$WORK/dec")
rep=$(grep -c "Echo (ping) reply" "$WORK/dec")
[ "$req" -ge 3 ] && [ "$rep" -ge 3 ] || fail "expected 3 requests and 3 replies, got $req and $rep"
tshark -r "$WORK/cap.pcap" -Y "_ws.malformed || _ws.expert.severity >= error" > "$WORK/bad" 2>/dev/null
[ ! -s "$WORK/bad" ] || { cat "$WORK/bad"; fail "tshark reports malformed frames"; }
pass "pcap readable by tshark, with the echo frames"
