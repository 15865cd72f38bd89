#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pesto_wire.sh - The -c socket speaks upstream's pesto protocol (version 2,
# stream socket): a small independent client (pesto_wire.py, written from
# the protocol's facts) talks the raw protocol to pasta:
#  - the greeting: magic "basil:s\0", version 2, name sizes 128 and 16,
#    tables HOST (1) and SPLICE (3), empty at start (-t none ...);
#  - it adds a dual-stack TCP rule (5701) and an IPv4 rule with another
#    target port (0.0.0.0/5702 => 5712) by sending replacement tables:
#    2 MiB flow through each intact (sha256); the rules read back are the
#    bytes it sent;
#  - it deletes 5701: the host's listener is gone, 5702 still serves;
#  - bad input changes nothing (rules read back the same, traffic still
#    flows): a truncated frame, a huge rule count, an unknown pif id, the
#    TAP pif, unknown rule flags, text garbage;
#  - a client that stalls halfway blocks neither traffic (2 MiB through
#    5702 meanwhile) nor, after the server's 10 s limit, the next client;
#  - our pesto refuses a server of another protocol version (a fake one);
#  - with UPSTREAM_PASST_DIR (a build of upstream passt, not ours, with
#    passt, pasta and pesto in it), its pesto adds and deletes on our pasta
#    and ours on its pasta, 2 MiB intact through the added ports, and ours
#    refuses, before sending, overlapping rules upstream's pasta refuses;
#    skipped otherwise.
# asan: yes
. "$(dirname "$0")/lib.sh"
PESTO="$(dirname "$PASST_BIN")/pesto"
WIRE="python3 $(dirname "$0")/pesto_wire.py"

setup_topology
make_file "$WORK/data" 2
want=$(sum "$WORK/data")
CTL="$WORK/ctl"

# shellcheck disable=SC2317 # called through wait_for
listening() {
	$1 ss -Hltn | awk '{ print $4 }' | grep -q ":$2\$"
}
# shellcheck disable=SC2317 # called through wait_for
gone() { ! listening in_host "$1"; }

# tcp_through HOSTADDR PORT TARGET WHAT - 2 MiB from H to PORT, received by
# a server in the namespace on TARGET
tcp_through() {
	rm -f "$WORK/got"
	bg in_ns timeout 30 socat -u TCP6-LISTEN:$3,reuseaddr OPEN:"$WORK/got",creat,trunc
	_srv=$BG_PID
	wait_for listening in_ns $3 || fail "$4: server"
	in_host timeout 30 socat -u OPEN:"$WORK/data" TCP:$1:$2 ||
		fail "$4: client"
	wait $_srv
	[ "$(sum "$WORK/got")" = "$want" ] || fail "$4: sha256"
	log "$4: 2 MiB intact"
}

start_pasta -c "$CTL" -t none -u none -T none -U none

$WIRE show "$CTL" > "$WORK/show" || { cat "$WORK/show"; fail "greeting"; }
grep -q '^hello version 2 pifnamesize 128 ifnamsiz 16$' "$WORK/show" ||
	{ cat "$WORK/show"; fail "hello"; }
grep -q '^pif 1 HOST caps 0x[0-9a-f]* rules 0$' "$WORK/show" &&
	grep -q '^pif 3 SPLICE caps 0x[0-9a-f]* rules 0$' "$WORK/show" ||
	{ cat "$WORK/show"; fail "tables HOST and SPLICE, empty"; }
log "greeting: $(head -1 "$WORK/show"), HOST and SPLICE empty"

$WIRE add "$CTL" HOST tcp:*:5701-5701:-:5701:0 || fail "add 5701"
wait_for listening in_host 5701 || fail "5701 not listening after add"
$WIRE add "$CTL" HOST tcp:0.0.0.0:5702-5702:-:5712:0 || fail "add 5702"
wait_for listening in_host 5702 || fail "5702 not listening after add"
$WIRE show "$CTL" > "$WORK/show" || fail "show after add"
grep -q '^HOST tcp \* 5701-5701 => - 5701 flags 1$' "$WORK/show" &&
	grep -q '^HOST tcp 0.0.0.0 5702-5702 => - 5712 flags 0$' "$WORK/show" ||
	{ cat "$WORK/show"; fail "rules read back"; }
tcp_through 127.0.0.1 5701 5701 "raw client's rule 5701"
tcp_through '[::1]' 5701 5701 "raw client's rule 5701 over IPv6"
tcp_through 127.0.0.1 5702 5712 "raw client's rule 5702 => 5712"
"$PESTO" "$CTL" > "$WORK/ours" || fail "our pesto show"
grep -q -- '^-t \[0.0.0.0\]:5702 => 5712$' "$WORK/ours" ||
	{ cat "$WORK/ours"; fail "our pesto doesn't show the raw client's rule"; }

$WIRE del "$CTL" HOST tcp:*:5701-5701:-:5701:1 || fail "delete 5701"
wait_for gone 5701 ||
	fail "5701 still listening after delete"
in_host timeout 5 socat -u /dev/null TCP4:127.0.0.1:5701 2>/dev/null &&
	fail "5701 still reachable"
tcp_through 127.0.0.1 5702 5712 "5702 after 5701 was deleted"

# Bad input: nothing changes
$WIRE show "$CTL" > "$WORK/rules" || fail "show"
# bad WHAT HEX - send HEX after the greeting; the rules must stay
bad() {
	$WIRE raw "$CTL" "$2" || fail "$1: client"
	$WIRE show "$CTL" > "$WORK/now" || fail "$1: show after"
	cmp -s "$WORK/rules" "$WORK/now" ||
		{ diff "$WORK/rules" "$WORK/now"; fail "$1: rules changed"; }
	log "$1: refused, rules unchanged"
}
rule0=$(python3 -c 'print("00" * 48 + "1f4a1f4a1f4a" + "06" + "01")')
badflags=$(python3 -c 'print("00" * 48 + "1f4a1f4a1f4a" + "06" + "09")')
bad "truncated frame" "0100000002${rule0}"
bad "huge rule count" "01ffffffff"
bad "unknown pif id" "09000000000000"
bad "TAP pif" "020000000000"
bad "unknown rule flags" "0100000001${badflags}00"
bad "text garbage" "$(printf 'hello there\n' | od -An -tx1 | tr -d ' \n')"
grep -q "refused a client's tables" "$WORK/pasta.log" ||
	fail "refusals not logged"

# A stalled client: traffic flows meanwhile, the next client gets its turn
bg $WIRE raw "$CTL" 0100000001 25
stall=$BG_PID
sleep 1
tcp_through 127.0.0.1 5702 5712 "traffic while a client stalls"
WAIT_S=25 wait_for sh -c "$WIRE show '$CTL' > '$WORK/now'" ||
	fail "next client never served after a stalled one"
cmp -s "$WORK/rules" "$WORK/now" || fail "stalled client changed the rules"
grep -q "client took longer" "$WORK/pasta.log" || fail "stall not logged"
kill $stall 2>/dev/null
log "stalled client closed by the server, next client served"

# Our pesto and a server of another version
rm -f "$WORK/fake"
bg $WIRE fakeserver "$WORK/fake" 3
wait_for test -S "$WORK/fake" || fail "fake server"
"$PESTO" "$WORK/fake" > "$WORK/out" 2>&1 && fail "pesto took version 3"
grep -q "version 3" "$WORK/out" || { cat "$WORK/out"; fail "version message"; }
log "our pesto refuses a version 3 server: $(cat "$WORK/out")"

# Upstream's binaries, if given
if [ -n "${UPSTREAM_PASST_DIR:-}" ] && [ -x "${UPSTREAM_PASST_DIR:-}/pesto" ]; then
	"$UPSTREAM_PASST_DIR/pesto" --add -t 0.0.0.0/5703 "$CTL" ||
		fail "upstream pesto --add"
	wait_for listening in_host 5703 || fail "5703 after upstream pesto"
	tcp_through 127.0.0.1 5703 5703 "upstream pesto's rule 5703"
	"$UPSTREAM_PASST_DIR/pesto" --delete -t 0.0.0.0/5703 "$CTL" ||
		fail "upstream pesto --delete"
	wait_for gone 5703 ||
		fail "5703 after upstream pesto --delete"
	log "upstream's pesto adds and deletes on our pasta"
	pasta_alive
	stop_pasta

	# Ours drives upstream's pasta (binary tables, no text capability)
	PASTA_BIN="$UPSTREAM_PASST_DIR/pasta" start_pasta --runas 0 -c "$CTL" \
		-t none -u none -T none -U none
	"$PESTO" -d --add -t 0.0.0.0/5704:5714 "$CTL" > "$WORK/out" 2>&1 ||
		{ cat "$WORK/out" "$WORK/pasta.log"; fail "our pesto --add on upstream's pasta"; }
	grep -q "binary tables only" "$WORK/out" ||
		{ cat "$WORK/out"; fail "text requests used with upstream's pasta"; }
	wait_for listening in_host 5704 || fail "5704 after our pesto --add"
	tcp_through 127.0.0.1 5704 5714 "our pesto's rule 5704 => 5714 on upstream's pasta"
	"$PESTO" "$CTL" > "$WORK/out" || fail "our pesto show on upstream's pasta"
	grep -q -- '^-t 0.0.0.0/5704:5714$' "$WORK/out" ||
		{ cat "$WORK/out"; fail "our pesto show on upstream's pasta"; }
	"$PESTO" -A -t 5705 -D -t 0.0.0.0/5704:5714 "$CTL" ||
		fail "our pesto --delete on upstream's pasta"
	wait_for gone 5704 || fail "5704 after our pesto --delete"
	wait_for listening in_host 5705 || fail "5705 after our pesto --add"
	"$PESTO" -D -t 5799 "$CTL" > "$WORK/out" 2>&1 &&
		fail "deleting a port upstream's pasta doesn't forward"
	grep -q "not forwarded" "$WORK/out" || { cat "$WORK/out"; fail "message"; }
	"$PESTO" -A -t 0.0.0.0/5705 "$CTL" > "$WORK/out" 2>&1 &&
		fail "0.0.0.0/5705 next to */5705 sent to upstream's pasta"
	grep -q "two rules" "$WORK/out" || { cat "$WORK/out"; fail "message"; }
	log "our pesto adds and deletes on upstream's pasta, refuses what isn't there and overlaps it would refuse"
else
	log "UPSTREAM_PASST_DIR not given: upstream interop skipped"
fi

pasta_alive
stop_pasta
pass "pesto wire protocol: raw client adds and deletes, bad input refused"
