#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# splice_bulk.sh - 1 GiB through spliced connections, host -> namespace (-t,
# from the host's loopback) and namespace -> host (-T), IPv4 and IPv6
#
# The stream is AES-128-CTR output (openssl), so both ends can regenerate
# it; socat carries it and openssl's sha256 of what arrived must equal the
# sha256 of what was sent.  pasta's counters (--stats) must show every
# byte as spliced, none as tap traffic.
# asan: no (bulk data: tcp_concurrent, splice_concurrent and tcp_uploads_backlog run these paths under ASan, CI time)
. "$(dirname "$0")/lib.sh"

SIZE=${SIZE:-1073741824}
gen() {
	openssl enc -aes-128-ctr -nosalt -K 00112233445566778899aabbccddeeff \
		-iv 0 < /dev/zero 2>/dev/null | head -c "$SIZE"
}
digest() { openssl dgst -sha256 -r | cut -d' ' -f1; }

setup_topology
want=$(gen | digest)
start_pasta -t 5101 -T 5102:7102 --stats

# transfer FAM LO WHAT SRV_IN SRV_NAME LPORT CLI_IN CPORT BIND - $SIZE bytes
# from a socat client (run with CLI_IN) to CPORT on LO, received by a socat
# server listening on BIND, LPORT (run with SRV_IN, SRV_NAME for messages):
# sha256 equal
transfer() {
	fam=$1; lo=$2; what=$3; srv_in=$4; srv_name=$5; lport=$6; cli_in=$7
	cport=$8; bind=$9
	rm -f "$WORK/got"
	bg $srv_in sh -c "timeout 60 socat -u TCP$fam-LISTEN:$lport,bind=$bind,reuseaddr - | openssl dgst -sha256 -r > $WORK/got"
	srv=$BG_PID
	wait_for $srv_in sh -c "ss -Hltn | grep -q ':$lport '" || fail "server in $srv_name"
	start=$(date +%s.%N)
	gen | $cli_in timeout 60 socat -u - TCP$fam:$lo:$cport ||
		fail "IPv$fam $what: socat client"
	wait $srv
	end=$(date +%s.%N)
	got=$(cut -d' ' -f1 "$WORK/got")
	[ "$got" = "$want" ] || fail "IPv$fam $what: sha256 $got, sent $want"
	log "IPv$fam $what: $SIZE bytes intact ($(echo "$start $end" | awk '{printf "%.1f s", $2 - $1}'))"
}

for fam in 4 6; do
	if [ $fam = 4 ]; then lo=127.0.0.1; any=0.0.0.0
	else lo="[::1]"; any="[::]"; fi
	# host -> namespace: client on H's loopback, -t 5101, server in N on
	# the wildcard address (one on N's loopback only is private)
	transfer $fam $lo "host->ns" in_ns N 5101 in_host 5101 $any
	# namespace -> host: client in N to its loopback, -T 5102 -> H's 7102
	transfer $fam $lo "ns->host" in_host H 7102 in_ns 5102 $lo
done

pasta_alive
stop_pasta
line=$(grep 'stats: spliced flows' "$WORK/pasta.log")
log "$line"
echo "$line" | grep -q "spliced flows 4 closed 4, bytes $((SIZE * 4)), resets 0" ||
	fail "expected 4 spliced flows carrying $((SIZE * 4)) bytes"
grep -q 'stats: TCP flows opened 0 ' "$WORK/pasta.log" ||
	fail "some connection took the tap path"
pass "1 GiB each way, IPv4 and IPv6, through splice"
