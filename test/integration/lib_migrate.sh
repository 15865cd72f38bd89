# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/lib_migrate.sh - Two QEMU 10 guests (TCG) on passt
# --vhost-user, for live migration between them
#
# Shared by vhost_migrate_qemu10.sh (make check-migrate) and
# test/bench/migrate.sh (the MIG rows of make bench).  Sourced after lib.sh
# (WORK, H, bg, track, wait_for, skip).
#
#   mig_init              QEMU, KERNEL, APPEND, MEM_MIB (skip without
#                         QEMU10_DIR, root or the guest's kernel)
#   mig_initrd            $WORK/initrd: the guest's base, then $WORK/run/
#   mig_qemu NAME SOCK EXTRA...   a guest on vhost-user socket SOCK
#   mig_qmp NAME COMMAND [ARGS-JSON]  one QMP command
#   mig_events NAME       record NAME's QMP events from now on
#   mig_paused SRC DST    ms from SRC's STOP to DST's RESUME event
#   mig_status NAME       query-migrate's "status"
#   mig_migrate NAME URI TENTHS   QMP migrate, then poll: MIG_ST
#   mig_running NAME TENTHS       wait for QMP query-status "running"
#   mig_times NAME        total-time, downtime, setup-time (ms) of the
#                         last migration, from query-migrate
#   mig_helper REPAIR SOCK LOG    passt-repair on SOCK.repair: BG_PID
#   mig_passt BIN SOCK LOG OPTS...  a passt --vhost-user in H: BG_PID
#
# QEMU 10.0 or later is needed (7.2 can't carry a vhost-user-net
# back-end's state).  QEMU10_DIR names a tree unpacked (not installed)
# from bookworm-backports' qemu-system-x86, -common and -data .debs
# (apt-get download with a private sources list, dpkg -x): make qemu10.

# Lines of passt's log (ours, upstream's) once passt-repair is connected
MIG_HELPER_RE="passt-repair connected\|Accepted TCP_REPAIR helper"

# mig_init - QEMU (QEMU 10's binary), KERNEL and APPEND (the make guest
# kernel), MEM_MIB (guest RAM, default 256); exit 77 (skip) if any is
# missing.  PASST_BIN's folder is the build folder whose guest/ is used.
mig_init() {
	_top=$(cd "$(dirname "$0")/../.." && pwd)
	_build=$(cd "$(dirname "$PASST_BIN")" && pwd)
	MIG_G=$_build/guest
	_q=${QEMU10_DIR:-}
	[ -n "$_q" ] && [ -x "$_q/usr/bin/qemu-system-x86_64" ] ||
		skip "QEMU10_DIR not set (make qemu10)"
	QEMU=$_q/usr/bin/qemu-system-x86_64
	MIG_QEMU_DATA=$_q/usr/share/qemu
	[ "$(id -u)" = 0 ] || skip "needs root (namespaces)"
	make -s -C "$_top" --no-print-directory BUILD="$_build" guest \
		>"$WORK/mkguest.log" 2>&1 || skip "no guest kernel"
	KERNEL=$MIG_G/vmlinuz
	[ -s "$MIG_G/vmlinux" ] && KERNEL=$MIG_G/vmlinux
	APPEND="console=ttyS0 quiet panic=-1 cryptomgr.notests mitigations=off"
	MEM_MIB=${MEM_MIB:-256}
}

# mig_initrd - $WORK/initrd: the guest's base archive, then what
# $WORK/run/ holds (run.sh, which /init runs, and its files)
mig_initrd() {
	(cd "$WORK/run" && find . | cpio -o -H newc --quiet) > "$WORK/run.cpio"
	cat "$MIG_G/base.cpio.gz" > "$WORK/initrd"
	gzip -1 -c "$WORK/run.cpio" >> "$WORK/initrd"
}

# mig_qemu NAME SOCK EXTRA... - QEMU 10 on vhost-user socket SOCK, memfd
# guest RAM shared with passt, QMP at $WORK/qmp.NAME (and a second monitor
# for mig_events at $WORK/qmpev.NAME: a QMP socket takes one client at a
# time), console $WORK/console.NAME; EXTRA are more QEMU options
# (-incoming URI).  Sets BG_PID.
mig_qemu() {
	_n=$1; _s=$2; shift 2
	bg "$QEMU" -L "$MIG_QEMU_DATA" -L /usr/share/qemu -accel tcg \
		-m $MEM_MIB -nodefaults -display none -no-reboot \
		-object "memory-backend-memfd,id=m,share=on,size=${MEM_MIB}M" \
		-numa node,memdev=m \
		-serial "file:$WORK/console.$_n" -kernel "$KERNEL" \
		-initrd "$WORK/initrd" -append "$APPEND" \
		-chardev "socket,id=c,path=$_s" \
		-netdev vhost-user,id=n0,chardev=c \
		-device virtio-net-pci,netdev=n0,romfile= \
		-qmp "unix:$WORK/qmp.$_n,server=on,wait=off" \
		-qmp "unix:$WORK/qmpev.$_n,server=on,wait=off" "$@"
}

# mig_qmp NAME COMMAND [ARGS-JSON] - one QMP command to the QEMU NAME
# (after qmp_capabilities), its answer (one JSON line) on stdout
mig_qmp() {
	python3 - "$WORK/qmp.$1" "$2" "${3:-}" <<'EOP'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()
def cmd(c, a=None):
    m = {"execute": c}
    if a:
        m["arguments"] = json.loads(a)
    f.write(json.dumps(m) + "\n"); f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            return r
cmd("qmp_capabilities")
print(json.dumps(cmd(sys.argv[2], sys.argv[3] or None)))
EOP
}

# mig_events NAME - record the QMP events of NAME (one JSON line each,
# with QEMU's host-clock "timestamp": qapi/control.json) in
# $WORK/events.NAME, from now until QEMU ends, through its second monitor.
# Sets BG_PID.  Return: 0 once the recorder is connected
mig_events() {
	cat > "$WORK/qmpev.py" <<'EOP'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()
f.write('{"execute": "qmp_capabilities"}\n')
f.flush()
f.readline()
out = open(sys.argv[2], "w")
for line in f:
    if '"event"' in line:
        out.write(line)
        out.flush()
EOP
	rm -f "$WORK/events.$1"
	bg python3 "$WORK/qmpev.py" "$WORK/qmpev.$1" "$WORK/events.$1"
	wait_for test -e "$WORK/events.$1"
}

# mig_paused SRC DST - milliseconds from the last STOP event of SRC to the
# first RESUME event of DST after it (mig_events): how long the guest's
# vCPUs stood still across the move, the destination's loading included
# (query-migrate's "downtime" is the source's own count, which ends when
# the source has sent everything).  Prints "-" if either is missing
mig_paused() {
	python3 - "$WORK/events.$1" "$WORK/events.$2" <<'EOP'
import json, sys
def times(path, name):
    try:
        with open(path) as f:
            ev = [json.loads(l) for l in f if l.strip()]
    except OSError:
        return []
    return [e["timestamp"]["seconds"] + e["timestamp"]["microseconds"] / 1e6
            for e in ev if e.get("event") == name]
stop = times(sys.argv[1], "STOP")
t0 = stop[-1] if stop else None
res = [t for t in times(sys.argv[2], "RESUME") if t0 is not None and t >= t0]
print("%.1f" % ((res[0] - t0) * 1000) if res else "-")
EOP
}

# mig_status NAME - the "status" of query-migrate on NAME (empty if none)
mig_status() {
	mig_qmp "$1" query-migrate |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["return"].get("status",""))'
}

# mig_migrate NAME URI TENTHS - QMP "migrate" of NAME to URI, then poll
# query-migrate every 0.2 s, up to TENTHS / 2 times, until it is
# completed, failed or cancelled.  Sets MIG_ST (the last status) and
# MIG_R (migrate's answer).  Return: 0 if QEMU accepted the command
mig_migrate() {
	MIG_ST=""
	MIG_R=$(mig_qmp "$1" migrate "{\"uri\": \"$2\"}")
	case "$MIG_R" in *'"error"'*) return 1 ;; esac
	_i=0
	while [ $_i -lt $(($3 / 2)) ]; do
		MIG_ST=$(mig_status "$1")
		case "$MIG_ST" in completed|failed|cancelled) break ;; esac
		sleep 0.2; _i=$((_i + 1))
	done
	return 0
}

# mig_running NAME TENTHS - wait up to TENTHS / 2 polls of 0.2 s for NAME's
# QMP query-status to say "running".  Return: 0 if it does
mig_running() {
	_i=0
	until mig_qmp "$1" query-status | grep -q '"running"'; do
		_i=$((_i + 1))
		[ $_i -lt $(($2 / 2)) ] || return 1
		sleep 0.2
	done
}

# mig_times NAME - "TOTAL DOWNTIME SETUP" in ms from NAME's query-migrate
# (QEMU's qapi/migration.json MigrationInfo: total-time, downtime,
# setup-time), "-" for what it doesn't give
mig_times() {
	mig_qmp "$1" query-migrate | python3 -c '
import json, sys
r = json.load(sys.stdin).get("return", {})
print(" ".join(str(r.get(k, "-")) for k in ("total-time", "downtime", "setup-time")))'
}

# mig_helper REPAIR SOCK LOG - start passt-repair REPAIR in H on
# SOCK.repair, wait until LOG has one more line saying it connected.
# Sets BG_PID.  Return: 0 if it did
mig_helper() {
	_nh=$(grep -c "$MIG_HELPER_RE" "$3" 2>/dev/null) || _nh=0
	bg in_host "$1" "$2.repair"
	wait_for sh -c "[ \$(grep -c '$MIG_HELPER_RE' '$3') -gt $_nh ]"
}

# mig_passt BIN SOCK LOG OPTS... - passt BIN in H, --vhost-user on SOCK,
# debug log (with timestamps) to LOG, more OPTS; waits for the socket.
# Sets BG_PID.  Return: 0 if the socket is there
mig_passt() {
	_b=$1; _s=$2; _l=$3; shift 3
	ip netns exec "$H" "$_b" -f -d -s "$_s" --vhost-user "$@" >"$_l" 2>&1 &
	BG_PID=$!
	track $BG_PID
	wait_for grep -q "socket bound at $_s" "$_l"
}
