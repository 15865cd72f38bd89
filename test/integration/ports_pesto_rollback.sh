#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ports_pesto_rollback.sh - A pesto(1) request that fails leaves the
# forwarding as it was, "auto" included (issue 26):
#  - pasta -t auto forwards 5701, where a server in the namespace listens;
#    "pesto -A -t 5701 -t 5702", with 5702 in use on H, fails (5702 can't
#    be bound) and rolls back: 5701, which "auto" gave up for the new rule,
#    listens on H again as soon as pesto returns (not at the next scan, up
#    to a second later), three times in a row, and carries data (sha256);
#  - "pesto -C" with a newline in its argument is a usage error (exit
#    status 2, pesto.1) and changes nothing, as for -t specs: the newline
#    would start another line of the request.
# asan: yes
. "$(dirname "$0")/lib.sh"
PESTO="$(dirname "$PASST_BIN")/pesto"

setup_topology
make_file "$WORK/data" 1
want=$(sum "$WORK/data")
CTL="$WORK/ctl"

listening() { in_host ss -Hltn | awk '{ print $4 }' | grep -q ":$1\$"; }

start_pasta -c "$CTL" -t auto -u none -T none -U none
bg in_ns sh -c "while :; do timeout 20 socat -u TCP4-LISTEN:5701,reuseaddr OPEN:'$WORK/got',creat,trunc || exit; done"
WAIT_S=5 wait_for listening 5701 || { cat "$WORK/pasta.log"; fail "auto: 5701 not forwarded"; }
bg in_host timeout 60 socat TCP4-LISTEN:5702,reuseaddr,fork EXEC:/bin/cat
wait_for listening 5702 || fail "server on H's 5702"
"$PESTO" "$CTL" > "$WORK/rules" || fail "pesto show"

for i in 1 2 3; do
	"$PESTO" -A -t 5701 -t 5702 "$CTL" > "$WORK/out" 2>&1 &&
		fail "attempt $i: request with a port in use accepted"
	grep -q "5702 can't be forwarded" "$WORK/out" ||
		{ cat "$WORK/out"; fail "attempt $i: no reason given"; }
	listening 5701 ||
		fail "attempt $i: 5701 ('auto') not listening right after the rollback"
done
log "failed request: 5701 listened on H right after each of 3 rollbacks"

in_host timeout 10 socat -u OPEN:"$WORK/data" TCP4:127.0.0.1:5701 ||
	fail "5701 after the rollbacks: client"
wait_for sh -c "[ \"\$(sha256sum < '$WORK/got' | cut -d' ' -f1)\" = $want ]" ||
	fail "5701 after the rollbacks: sha256"
"$PESTO" "$CTL" | grep -v '^-t auto' > "$WORK/rules.now"
grep -v '^-t auto' "$WORK/rules" | cmp -s - "$WORK/rules.now" ||
	{ cat "$WORK/rules" "$WORK/rules.now"; fail "rules changed by failed requests"; }

"$PESTO" -C "$(printf 'host\nadd t 5703')" "$CTL" > "$WORK/out" 2>&1; rc=$?
[ $rc -eq 2 ] || { cat "$WORK/out"; fail "-C with a newline: exit status $rc, expected 2"; }
grep -q -- "-C" "$WORK/out" || { cat "$WORK/out"; fail "-C with a newline: message doesn't name -C"; }
sleep 0.2
listening 5703 && fail "-C with a newline: its second line was applied"
"$PESTO" "$CTL" | grep -q '^-t auto' || fail "-C with a newline: -t auto cleared"
stop_pasta
pass "failed request rolled back with 'auto' ports; -C refuses a newline"
