#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/bench/migrate.sh - One migration row of make bench (MIG.N): a guest
# holding N idle TCP connections moves between two QEMU 10 (TCG), each on
# its own passt --vhost-user with its own passt-repair, both passts in H
#
# The guest (migconns.c, built here statically) listens on 8081, which the
# source passt forwards (-t 8081), and opens connections of its own to
# port 8082 of the gateway (H's loopback, where migconns.py serves): of
# the N connections, ceil(N/2) are inbound (migconns.py connect, from R to
# H's address, through -t) and floor(N/2) outbound.  Every connection
# echoes a 16-byte probe before the migration; then all are idle while
# QMP "migrate" moves the guest (-incoming on the destination, as in
# make check-migrate: lib_migrate.sh); once the destination runs, every
# connection must echo a second probe intact.
#
# Measured: QMP query-migrate's total-time, downtime and setup-time on the
# source; the time the guest stood still, from the source's STOP event to
# the destination's RESUME (QMP event timestamps: the destination's
# loading, passt's included, counts there, not in "downtime"); each passt's own time for the device state, from the timestamps
# of its debug log, from QEMU's VHOST_USER_SET_DEVICE_STATE_FD to the end
# of the stream (ours: "request 42" to "device state sent" or "loaded";
# upstream's: "Migration requested" to "Closing migration channel"; the
# destination's includes waiting for QEMU to pass the stream on), ours' own
# "handed over ... in N ms" and "restored in N ms" lines; the wall time
# of the migrate command (QMP migrate to "completed", polled every 0.2 s);
# the connections that echoed after it.
#
# Environment: PASST_BIN (ours, required), QEMU10_DIR (make qemu10),
# MIG_CONNS (N, default 1), MIG_SRC_BIN and MIG_DST_BIN (default ours),
# MIG_SRC_ARGS (more options for the source: --upstream-features when the
# destination is upstream's), MIG_SRC_REPAIR and MIG_DST_REPAIR (the
# passt-repair beside each binary by default), MIG_RESULT (file for the
# result, key=value lines), MIG_LOGS (folder the logs and consoles are
# copied to).  Exit status 0 if migrated with every connection intact, 1
# otherwise, 77 if it can't run here (no QEMU 10, not root).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../integration/lib_migrate.sh"

here=$(cd "$(dirname "$0")" && pwd)
NCONN=${MIG_CONNS:-1}
NIN=$(( (NCONN + 1) / 2 ))
NOUT=$(( NCONN / 2 ))
SRC_BIN=${MIG_SRC_BIN:-$PASST_BIN}
DST_BIN=${MIG_DST_BIN:-$PASST_BIN}
SRC_REPAIR=${MIG_SRC_REPAIR:-$(dirname "$SRC_BIN")/passt-repair}
DST_REPAIR=${MIG_DST_REPAIR:-$(dirname "$DST_BIN")/passt-repair}
RESULT=${MIG_RESULT:-$WORK/result}
PORT_IN=8081
PORT_OUT=8082

# One descriptor per connection in migconns.py (and passt raises its own)
# shellcheck disable=SC3045 # dash and bash both have ulimit -n and -H
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge 16384 ] ||
	ulimit -n 16384 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# result KEY VALUE - one line of the result file
result() { echo "$1=$2" >> "$RESULT"; }

# save - copy the logs, consoles and outputs to MIG_LOGS
save() {
	[ -n "${MIG_LOGS:-}" ] || return 0
	mkdir -p "$MIG_LOGS"
	for f in passtA.log passtB.log console.A console.B in.out out.out qm.json \
		events.A events.B; do
		[ -f "$WORK/$f" ] && cp "$WORK/$f" "$MIG_LOGS/$f"
	done
	return 0
}

# bench_fail TEXT - note TEXT as the reason, fail the run
bench_fail() {
	result note "$*"
	save
	fail "$*"
}

: > "$RESULT"
result conns "$NCONN"
result in "$NIN"
result out "$NOUT"
mig_init
[ -x "$SRC_BIN" ] && [ -x "$DST_BIN" ] || bench_fail "no passt at $SRC_BIN or $DST_BIN"
[ -x "$SRC_REPAIR" ] && [ -x "$DST_REPAIR" ] ||
	bench_fail "no passt-repair at $SRC_REPAIR or $DST_REPAIR"
setup_topology

mkdir -p "$WORK/run"
${CC:-cc} -static -O2 -Wall -Wextra -o "$WORK/run/migconns" "$here/migconns.c" \
	2>"$WORK/cc.log" || bench_fail "migconns.c did not build: $(head -n 3 "$WORK/cc.log")"
cat > "$WORK/run/run.sh" <<EOS
#!/bin/sh
ip link set eth0 up
udhcpc -i eth0 -f -q -n -t 10 -T 2 -O mtu -s /etc/udhcpc/script ||
	echo "GUEST udhcpc failed"
exec /migconns $PORT_IN $NIN $R4 $PORT_OUT $NOUT
EOS
chmod 755 "$WORK/run/run.sh"
mig_initrd

if [ $NOUT -gt 0 ]; then
	bg in_host python3 "$here/migconns.py" serve $PORT_OUT $NOUT "$WORK/go" \
		> "$WORK/out.out" 2>&1
	wait_for grep -q listening "$WORK/out.out" || bench_fail "host server"
fi

mkdir -m 1777 "$WORK/s"
SA=$WORK/s/a.sock
SB=$WORK/s/b.sock
mig_passt "$SRC_BIN" "$SA" "$WORK/passtA.log" -t $PORT_IN \
	--migrate-exit --migrate-no-linger ${MIG_SRC_ARGS:-} || bench_fail "passt A"
mig_passt "$DST_BIN" "$SB" "$WORK/passtB.log" || bench_fail "passt B"
mig_helper "$SRC_REPAIR" "$SA" "$WORK/passtA.log" || bench_fail "passt-repair A"
mig_helper "$DST_REPAIR" "$SB" "$WORK/passtB.log" || bench_fail "passt-repair B"

mig_qemu A "$SA"
mig_qemu B "$SB" -incoming "unix:$WORK/mig.sock"
mig_events A || bench_fail "QMP events of A"
mig_events B || bench_fail "QMP events of B"
WAIT_S=180 wait_for grep -q "^GUEST migconns listening" "$WORK/console.A" ||
	bench_fail "guest on A: not listening ($(grep GUEST "$WORK/console.A" | tail -n 1 | tr -d '\r'))"
if [ $NIN -gt 0 ]; then
	bg in_remote python3 "$here/migconns.py" connect $H4 $PORT_IN $NIN "$WORK/go" \
		> "$WORK/in.out" 2>&1
fi
t0=$(date +%s)
for f in in out; do
	n=$NIN; [ $f = in ] || n=$NOUT
	[ "$n" -gt 0 ] || continue
	WAIT_S=600 wait_for grep -q -e "^ready" -e "^error" -e "^before" "$WORK/$f.out"
	grep -q "^ready $n" "$WORK/$f.out" ||
		bench_fail "$f: $(grep -v '^listening' "$WORK/$f.out" | head -n 3 | tr '\n' ' ')"
done
result setup_s $(( $(date +%s) - t0 ))
log "$NCONN connections up and echoing ($NIN in, $NOUT out)"
grep -q "^GUEST migconns closed" "$WORK/console.A" &&
	bench_fail "guest saw a connection end before the migration"
sleep 1

ms0=$(date +%s%N)
mig_migrate A "unix:$WORK/mig.sock" 3000 || bench_fail "QEMU won't migrate: $MIG_R"
ms1=$(date +%s%N)
mig_qmp A query-migrate > "$WORK/qm.json"
result status_qemu "$MIG_ST"
[ "$MIG_ST" = completed ] || bench_fail "migration $MIG_ST: $(cut -c1-300 "$WORK/qm.json")"
# shellcheck disable=SC2046 # three numbers, split on purpose
set -- $(mig_times A)
result total_ms "$1"
result downtime_ms "$2"
result setup_ms "$3"
result wall_ms $(( (ms1 - ms0) / 1000000 ))
# RAM QEMU sent while the guest was stopped (MigrationStats
# downtime-bytes): what query-migrate's downtime mostly is, with a TCG
# guest's dirty pages at the last iteration
result downtime_kib "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["return"].get("ram",{}).get("downtime-bytes",0) // 1024)' < "$WORK/qm.json")"
log "migrated: total $1 ms, downtime $2 ms, setup $3 ms"
mig_running B 600 || bench_fail "destination not running"
result paused_ms "$(mig_paused A B)"

touch "$WORK/go"
lost=0
for f in in out; do
	n=$NIN; [ $f = in ] || n=$NOUT
	[ "$n" -gt 0 ] || continue
	WAIT_S=200 wait_for grep -q "^result" "$WORK/$f.out"
	# shellcheck disable=SC2046 # three numbers, split on purpose
	set -- $(sed -n 's/^result //p' "$WORK/$f.out") "" ""
	[ -n "$1" ] || bench_fail "$f: no result"
	lost=$((lost + $2 - $1))
	result "after_$f" "$1"
	result "probe_${f}_s" "$3"
done
result survived $((NCONN - lost))

# passt_span LOG FROM TO - ms between the first lines matching FROM and
# TO after it, from the debug log's timestamps (seconds since start)
passt_span() {
	awk -v a="$2" -v b="$3" '
		!t0 && $0 ~ a { sub(/^ */, ""); t0 = $1 + 0; next }
		t0 && $0 ~ b { sub(/^ */, ""); printf "%.1f\n", ($1 - t0) * 1000; exit }' "$1"
}
# From QEMU's SET_DEVICE_STATE_FD (ours: "request 42", upstream's:
# "Migration requested") to the end of the stream
src_span=$(passt_span "$WORK/passtA.log" "request 42,|Migration requested" \
	"device state sent|Closing migration channel")
dst_span=$(passt_span "$WORK/passtB.log" "request 42,|Migration requested" \
	"device state loaded|Closing migration channel")
result passt_src_ms "${src_span:--}"
result passt_dst_ms "${dst_span:--}"
h=$(sed -n 's/.*TCP connections\{0,1\} handed over .* in \([0-9]*\) ms.*/\1/p' "$WORK/passtA.log" | head -n 1)
r=$(sed -n 's/.*TCP connections\{0,1\} restored in \([0-9]*\) ms.*/\1/p' "$WORK/passtB.log" | head -n 1)
result tcp_src_ms "${h:--}"
result tcp_dst_ms "${r:--}"
# and their CPU time (ours logs it): load inflates it far less
h=$(sed -n 's/.*TCP connections\{0,1\} handed over .* ms (\([0-9.]*\) ms CPU).*/\1/p' "$WORK/passtA.log" | head -n 1)
r=$(sed -n 's/.*TCP connections\{0,1\} restored in .* ms (\([0-9.]*\) ms CPU).*/\1/p' "$WORK/passtB.log" | head -n 1)
result tcp_src_cpu_ms "${h:--}"
result tcp_dst_cpu_ms "${r:--}"
# connections each passt's debug log says it moved (one line per flow)
result flows_src "$(grep -c "migrating: state\|Extended migration data" "$WORK/passtA.log")"
result flows_dst "$(grep -c ": migrated: \|Extended migration data" "$WORK/passtB.log")"
result src_version "$("$SRC_BIN" --version 2>&1 | head -n 1)"
result dst_version "$("$DST_BIN" --version 2>&1 | head -n 1)"
log "paused $(sed -n 's/^paused_ms=//p' "$RESULT") ms; passt: source ${src_span:--} ms, destination ${dst_span:--} ms; survived $((NCONN - lost)) of $NCONN"
if [ $lost -gt 0 ]; then
	bench_fail "$lost of $NCONN connections lost: $(grep -h "^lost" "$WORK/in.out" "$WORK/out.out" 2>/dev/null | head -n 3 | tr '\n' ' ')"
fi
result status ok
save
pass "migrated with $NCONN connections, all intact"
