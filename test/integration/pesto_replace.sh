#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pesto_replace.sh - what a pesto request without -A/--add replaces, and the
# number of rules a side may hold, as upstream's pesto and pasta (2026-07):
#  - upstream's pesto.c empties the whole inbound table (pif HOST, TCP and
#    UDP rules together) at the first -t or -u given before -A/-D, and the
#    outbound one (SPLICE) at the first -T or -U; -C HOST counts as that
#    emptying.  So "pesto -t 5613 SOCK" on a pasta with -t 5611 -u 5612
#    leaves 5613 alone: UDP 5612 is closed on the host and its datagrams
#    no longer reach the namespace, while -T/-U stay as they were.
#  - upstream's rule index has 8 bits (FWD_RULE_BITS, fwd_rule.h): at most
#    255 rules per pif, TCP and UDP together; its pesto dies reading more
#    ("Too many forwarding rules") and its pasta refuses to receive more.
#    255 single ports are taken; a 256th, through our pesto (-A -u) or a
#    client of the binary protocol, is refused with a message and nothing
#    changes; pasta -c started with 256 rules on a side exits with it.
# asan: yes
. "$(dirname "$0")/lib.sh"
PESTO="$(dirname "$PASST_BIN")/pesto"
UDPTOOL="python3 $(dirname "$0")/udptool.py"
WIRE="python3 $(dirname "$0")/pesto_wire.py"

setup_topology
make_file "$WORK/data" 4
want=$(sum "$WORK/data")
CTL="$WORK/ctl"

listening() {
	_f=-Hltn; [ "$2" = udp ] && _f=-Hlun
	$1 ss $_f | awk '{ print $4 }' | grep -q ":$3\$"
}

# tcp_through PORT WHAT - 4 MiB from H's loopback to PORT, same port in
# the namespace, checked with sha256
tcp_through() {
	rm -f "$WORK/got"
	bg in_ns timeout 30 socat -u TCP4-LISTEN:$1,reuseaddr OPEN:"$WORK/got",creat,trunc
	_srv=$BG_PID
	wait_for listening in_ns tcp $1 || fail "$2: server"
	in_host timeout 30 socat -u OPEN:"$WORK/data" TCP4:127.0.0.1:$1 || fail "$2: client"
	wait $_srv
	[ "$(stat -c %s "$WORK/got")" = 4194304 ] && [ "$(sum "$WORK/got")" = "$want" ] ||
		fail "$2: 4 MiB not intact"
	log "$2: 4 MiB intact"
}

start_pasta -c "$CTL" -t 5611 -u 5612 -T 5621 -U 5622
bg in_ns $UDPTOOL echo :: 5612 60
wait_for listening in_ns udp 5612 || fail "UDP echo in the namespace"
in_host $UDPTOOL pingpong 127.0.0.1 5612 20 1000 || { in_host ss -Hlunp; in_ns ss -Hlunp; cat "$WORK/pasta.log"; fail "-u 5612 before"; }
log "-u 5612: echoes intact before the replacement"

# The first -t before -A: the host side, UDP included, is replaced
"$PESTO" -t 5613 "$CTL" || fail "pesto -t 5613"
"$PESTO" "$CTL" > "$WORK/rules" || fail "pesto show"
grep -q -- '^-t \[\*\]:5613 => 5613$' "$WORK/rules" || { cat "$WORK/rules"; fail "no -t 5613"; }
grep -q -- '^-u none$' "$WORK/rules" || { cat "$WORK/rules"; fail "-u not emptied by pesto -t"; }
grep -q -- '5611' "$WORK/rules" && { cat "$WORK/rules"; fail "-t 5611 kept"; }
grep -q -- '^-T .*5621 => 5621$' "$WORK/rules" || { cat "$WORK/rules"; fail "-T changed by pesto -t"; }
grep -q -- '^-U .*5622 => 5622$' "$WORK/rules" || { cat "$WORK/rules"; fail "-U changed by pesto -t"; }
listening in_host udp 5612 && fail "UDP 5612 still bound on the host"
listening in_host tcp 5611 && fail "TCP 5611 still bound on the host"
in_host $UDPTOOL pingpong 127.0.0.1 5612 3 100 >/dev/null 2>&1 &&
	fail "datagrams to 5612 still reach the namespace"
tcp_through 5613 "-t 5613 after the replacement"

# -u then -t, both before -A: one emptying, both added
"$PESTO" -u 5612 -t 5614 "$CTL" || fail "pesto -u 5612 -t 5614"
"$PESTO" "$CTL" > "$WORK/rules" || fail "pesto show"
grep -q -- '^-u \[\*\]:5612 => 5612$' "$WORK/rules" || { cat "$WORK/rules"; fail "no -u 5612"; }
grep -q -- '^-t \[\*\]:5614 => 5614$' "$WORK/rules" || { cat "$WORK/rules"; fail "no -t 5614"; }
grep -q -- '5613' "$WORK/rules" && { cat "$WORK/rules"; fail "-t 5613 kept"; }
in_host $UDPTOOL pingpong 127.0.0.1 5612 20 1000 || fail "-u 5612 again"
log "pesto -u 5612 -t 5614: -t 5613 gone, both forwarded"

# -C HOST counts as the emptying: the -u that follows adds to nothing
"$PESTO" -C HOST -u 5612 -A -t 5615 "$CTL" || fail "pesto -C HOST -u 5612 -A -t 5615"
"$PESTO" "$CTL" > "$WORK/rules" || fail "pesto show"
grep -q -- '5614' "$WORK/rules" && { cat "$WORK/rules"; fail "-t 5614 kept after -C HOST"; }
grep -q -- '^-t \[\*\]:5615 => 5615$' "$WORK/rules" || { cat "$WORK/rules"; fail "no -t 5615"; }

# The namespace side: the first -T empties -U as well, the host side stays
"$PESTO" -T 5623 "$CTL" || fail "pesto -T 5623"
"$PESTO" "$CTL" > "$WORK/rules" || fail "pesto show"
grep -q -- '^-U none$' "$WORK/rules" || { cat "$WORK/rules"; fail "-U not emptied by pesto -T"; }
grep -q -- '^-T .*5623 => 5623$' "$WORK/rules" || { cat "$WORK/rules"; fail "no -T 5623"; }
grep -q -- '^-u \[\*\]:5612 => 5612$' "$WORK/rules" || { cat "$WORK/rules"; fail "-u changed by pesto -T"; }
grep -q -- '^-t \[\*\]:5615 => 5615$' "$WORK/rules" || { cat "$WORK/rules"; fail "-t changed by pesto -T"; }
listening in_ns udp 5622 && fail "UDP 5622 still bound in the namespace"
log "replace without -A: a side at a time, TCP and UDP together"

# 255 rules on the host side (single ports, none adjacent), TCP and UDP;
# below the ephemeral range (32768-60999), where the test's own clients
# in H may still hold a port
# 254 TCP rules (specs are at most 1024 characters: three of them)
"$PESTO" -t "$(seq -s, 20000 2 20198)" -t "$(seq -s, 20200 2 20398)" \
	-t "$(seq -s, 20400 2 20506)" -u 5612 "$CTL" || fail "255 rules refused"
n=$($WIRE show "$CTL" | awk '$1 == "pif" && $3 == "HOST" { print $NF }')
[ "$n" = 255 ] || { $WIRE show "$CTL" | head; fail "HOST has $n rules on the wire, not 255"; }
"$PESTO" "$CTL" > "$WORK/rules" || fail "pesto show"
refused() {
	_what=$1; shift
	"$PESTO" "$@" "$CTL" > "$WORK/out" 2>&1 && fail "$_what: accepted"
	grep -q -- "at most 255" "$WORK/out" ||
		{ cat "$WORK/out"; fail "$_what: no 'at most 255' in the message"; }
	log "$_what: refused: $(head -1 "$WORK/out")"
	"$PESTO" "$CTL" > "$WORK/rules.now" || fail "pesto show"
	cmp -s "$WORK/rules" "$WORK/rules.now" || fail "$_what: rules changed"
}
refused "a 256th rule, UDP (pesto -A -u)" -A -u 5619
refused "a 256th rule, TCP (pesto -A -t)" -A -t 5619
listening in_host udp 5619 && fail "5619 opened by a refused request"
# The binary protocol: the server logs and changes nothing (no reply)
$WIRE add "$CTL" HOST "udp:*:5619-5619:-:5619:0" > "$WORK/out" 2>&1 || true
sleep 0.3
"$PESTO" "$CTL" > "$WORK/rules.now" || fail "pesto show"
cmp -s "$WORK/rules" "$WORK/rules.now" || fail "256 rules through the wire: taken"
grep -q "refused a client's tables: HOST.*at most 255" "$WORK/pasta.log" ||
	{ tail -5 "$WORK/pasta.log"; fail "256 rules through the wire: no message in the log"; }
listening in_host udp 5619 && fail "5619 opened through the wire"
log "255 rules held and traffic still flows; a 256th refused, nothing changed"
tcp_through 20506 "-t 20506, the 254th TCP rule"
pasta_alive
stop_pasta

# Started with 256 rules on a side and -c: refused at start, as upstream
out=$(ip netns exec "$H" timeout 10 "$PASTA_BIN" -f -c "$WORK/ctl2" \
	-t "$(seq -s, 21000 2 21198)" -t "$(seq -s, 21200 2 21398)" \
	-t "$(seq -s, 21400 2 21510)" -u none -T none -U none --config-net \
	--netns "/run/netns/$N" 2>&1) &&
	fail "pasta -c with 256 rules on the host side started"
echo "$out" | grep -q "at most 255" || { echo "$out"; fail "start with 256 rules: no message"; }
log "pasta -c with 256 host rules: $(echo "$out" | grep "at most 255" | head -1)"

pass "pesto replaces a side, TCP and UDP together; at most 255 rules per side"
