#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# splice_no_splice.sh - a connection from the host's loopback to a -t port
# leaves no frame on the tap (--pcap) when spliced; with --no-splice the
# same transfer goes through the tap (its frames are in the capture) and
# is just as intact, while -T connections, which have no tap path, are
# still spliced.  A connection from a non-loopback source always takes the
# tap.
# asan: yes
. "$(dirname "$0")/lib.sh"

SIZE=$((8 * 1024 * 1024))
setup_topology
head -c $SIZE /dev/urandom > "$WORK/src"
want=$(sha256sum < "$WORK/src")

# frames PCAP PORT - TCP frames to or from PORT in a capture (tshark)
frames() { tshark -r "$1" -Y "tcp.port == $2" 2>/dev/null | wc -l; }

# transfer FAMILY SOURCE_NS ADDRESS - SIZE bytes from SOURCE_NS to the
# server in N on port 5501, through pasta's -t 5501
transfer() {
	rm -f "$WORK/dst"
	bg in_ns timeout 30 socat -u TCP$1-LISTEN:5501,reuseaddr OPEN:"$WORK/dst",creat,trunc
	srv=$BG_PID
	wait_for in_ns sh -c "ss -Hltn | grep -q ':5501 '" || fail "server in N"
	$2 timeout 30 socat -u OPEN:"$WORK/src" TCP$1:$3:5501 || fail "socat client ($*)"
	wait $srv
	[ "$(sha256sum < "$WORK/dst")" = "$want" ] || fail "data differs ($*)"
}

for mode in splice no-splice; do
	opt=""; [ $mode = no-splice ] && opt=--no-splice
	start_pasta -t 5501 -T 5502:7502 --pcap "$WORK/$mode.pcap" --stats $opt
	transfer 4 in_host 127.0.0.1
	transfer 6 in_host "[::1]"
	# -T: namespace -> host, spliced either way
	rm -f "$WORK/dst"
	bg in_host timeout 30 socat -u TCP4-LISTEN:7502,bind=127.0.0.1,reuseaddr OPEN:"$WORK/dst",creat,trunc
	srv=$BG_PID
	wait_for in_host sh -c "ss -Hltn | grep -q ':7502 '" || fail "server in H"
	in_ns timeout 30 socat -u OPEN:"$WORK/src" TCP4:127.0.0.1:5502 || fail "-T client ($mode)"
	wait $srv
	[ "$(sha256sum < "$WORK/dst")" = "$want" ] || fail "-T data differs ($mode)"
	pasta_alive
	stop_pasta
	n=$(frames "$WORK/$mode.pcap" 5501)
	log "$mode: $n frames of port 5501 in the capture"
	if [ $mode = splice ]; then
		[ "$n" -eq 0 ] || fail "spliced transfer left $n frames on the tap"
		grep -q "spliced flows 3 closed 3, bytes $((SIZE * 3))," "$WORK/pasta.log" ||
			fail "transfers not counted as spliced"
	else
		# At least the data: SIZE bytes in frames of at most 65 KiB
		[ "$n" -gt $((SIZE * 2 / 65536)) ] ||
			fail "--no-splice: only $n frames on the tap"
		grep -q "spliced flows 1 closed 1, bytes $SIZE," "$WORK/pasta.log" ||
			fail "--no-splice: only the -T transfer should be spliced"
	fi
done

# A non-loopback source (R, through H's address) is never spliced
start_pasta -t 5501 --pcap "$WORK/remote.pcap" --stats
transfer 4 in_remote $H4
stop_pasta
n=$(frames "$WORK/remote.pcap" 5501)
[ "$n" -gt 0 ] || fail "connection from R was not carried by the tap"
grep -q "spliced flows 0 " "$WORK/pasta.log" || fail "connection from R was spliced"
pass "loopback spliced without tap frames; --no-splice and remote sources use the tap, -T always spliced"
