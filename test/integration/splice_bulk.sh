#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# splice_bulk.sh - 1 GiB through spliced connections, host -> namespace (-t,
# from the host's loopback) and namespace -> host (-T), IPv4 and IPv6
#
# The stream is AES-128-CTR output (openssl), so both ends can regenerate
# it; socat carries it and openssl's sha256 of what arrived must equal the
# sha256 of what was sent.  pasta's counters (--stats) must show every
# byte as spliced, none as tap traffic.
# asan: yes
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

for fam in 4 6; do
	if [ $fam = 4 ]; then lo=127.0.0.1; else lo="[::1]"; fi

	# host -> namespace: client on H's loopback, -t 5101, server in N
	rm -f "$WORK/got"
	bg in_ns sh -c "timeout 60 socat -u TCP$fam-LISTEN:5101,bind=$lo,reuseaddr - | openssl dgst -sha256 -r > $WORK/got"
	srv=$BG_PID
	wait_for in_ns sh -c "ss -Hltn | grep -q ':5101 '" || fail "server in N"
	start=$(date +%s.%N)
	gen | in_host timeout 60 socat -u - TCP$fam:$lo:5101 ||
		fail "IPv$fam host->ns: socat client"
	wait $srv
	end=$(date +%s.%N)
	got=$(cut -d' ' -f1 "$WORK/got")
	[ "$got" = "$want" ] || fail "IPv$fam host->ns: sha256 $got, sent $want"
	log "IPv$fam host->ns: $SIZE bytes intact ($(echo "$start $end" | awk '{printf "%.1f s", $2 - $1}'))"

	# namespace -> host: client in N to its loopback, -T 5102 -> H's 7102
	rm -f "$WORK/got"
	bg in_host sh -c "timeout 60 socat -u TCP$fam-LISTEN:7102,bind=$lo,reuseaddr - | openssl dgst -sha256 -r > $WORK/got"
	srv=$BG_PID
	wait_for in_host sh -c "ss -Hltn | grep -q ':7102 '" || fail "server in H"
	start=$(date +%s.%N)
	gen | in_ns timeout 60 socat -u - TCP$fam:$lo:5102 ||
		fail "IPv$fam ns->host: socat client"
	wait $srv
	end=$(date +%s.%N)
	got=$(cut -d' ' -f1 "$WORK/got")
	[ "$got" = "$want" ] || fail "IPv$fam ns->host: sha256 $got, sent $want"
	log "IPv$fam ns->host: $SIZE bytes intact ($(echo "$start $end" | awk '{printf "%.1f s", $2 - $1}'))"
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
