#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# passt_repair.sh - passt-repair(1) and passt's --repair-path socket
#
# The helper against a fake passt (repair_fake_passt.py): TCP_REPAIR on,
# off and off-no-window-probes on one socket and on a batch of three, read
# back with getsockopt() (the mode the kernel holds, not what the helper
# says); a command byte other than 1, 0, -1, a message without sockets and
# a UDP socket end it with status 1 and no echo; the fake closing ends it
# with 0.  Then against passt --vhost-user: the socket is at the -s path +
# ".repair", the helper connects, a second one is refused (closed, status
# 0), --repair-path PATH and none are honoured, another UID than root's
# or passt's is closed at once (SO_PEERCRED), and a helper waiting in a
# directory connects when passt starts.
# asan: yes
. "$(dirname "$0")/lib.sh"

REPAIR=$(dirname "$PASST_BIN")/passt-repair
[ -x "$REPAIR" ] || fail "no $REPAIR (make builds it)"
FAKE="python3 $(dirname "$0")/repair_fake_passt.py"
setup_topology

# scenario NAME STATUS - run the helper against the fake; it must exit with
# STATUS and the fake's checks must all be "ok"
scenario() {
	rm -f "$WORK/fake.sock"
	in_host $FAKE "$WORK/fake.sock" "$1" > "$WORK/fake.$1" 2>&1 &
	fp=$!
	track $fp
	wait_for test -S "$WORK/fake.sock" || fail "$1: fake passt"
	st=0
	in_host timeout 30 "$REPAIR" "$WORK/fake.sock" 2> "$WORK/helper.$1" || st=$?
	wait $fp
	cat "$WORK/fake.$1"
	[ "$st" = "$2" ] || { cat "$WORK/helper.$1"; fail "$1: status $st, expected $2"; }
	grep -q "^done" "$WORK/fake.$1" || fail "$1: fake passt didn't finish"
	! grep -q "^bad" "$WORK/fake.$1" || fail "$1: $(grep '^bad' "$WORK/fake.$1")"
	[ "$2" = 0 ] || log "$1: helper said: $(cat "$WORK/helper.$1")"
}
scenario good 0
scenario badcmd 1
scenario nofd 1
scenario udp 1
log "protocol: on, off, off-no-wp, a batch of 3, read back; bad input refused"

"$REPAIR" >/dev/null 2>&1; [ $? = 2 ] || fail "no PATH: status 2 expected"
"$REPAIR" /etc/passwd >/dev/null 2>&1; [ $? = 2 ] || fail "a regular file: status 2 expected"

mkdir -m 1777 "$WORK/s"
S=$WORK/s/passt.sock
start_passt "$S" --vhost-user
wait_for test -S "$S.repair" || fail "no $S.repair"
grep -q "passt-repair socket bound at $S.repair" "$WORK/passt.log" || fail "log line"
bg in_host "$REPAIR" "$S.repair"
H1=$BG_PID
wait_for grep -q "passt-repair connected" "$WORK/passt.log" || fail "helper not connected"
in_host timeout 10 "$REPAIR" "$S.repair" || fail "second helper: status $? (0 expected: closed by passt)"
grep -q "passt-repair (PID [0-9]*) refused: one is connected already" "$WORK/passt.log" ||
	fail "second helper not refused"
kill -0 $H1 || fail "first helper gone"
stop_passt
wait $H1 || fail "first helper: status $? when passt exited (0 expected)"
[ ! -e "$S.repair" ] || fail "$S.repair left behind"
log "passt: $S.repair, one helper, a second refused, both end with 0"

start_passt "$S" --vhost-user --repair-path "$WORK/s/other"
wait_for test -S "$WORK/s/other" || fail "--repair-path PATH"
[ ! -e "$S.repair" ] || fail "default socket made with --repair-path"
# Another user who may open the socket file (a permissive umask, here a
# chmod) is closed at once: the helper is sent our TCP sockets.  Relative
# path from the 1777 directory, so that only the socket's mode matters.
chmod 0666 "$WORK/s/other"
other=$(cd "$WORK/s" && timeout 20 setpriv --reuid=12345 --regid=12345 \
	--clear-groups /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("other")
s.settimeout(5)
try:
    print("closed" if s.recv(1) == b"" else "data")
except OSError:
    print("kept")
' 2>&1)
[ "$other" = closed ] || fail "UID 12345 on the repair socket: $other (closed expected)"
grep -q "passt-repair (PID [0-9]*, UID 12345) refused" "$WORK/passt.log" ||
	fail "UID 12345 not logged as refused"
! grep -q "passt-repair connected" "$WORK/passt.log" ||
	fail "UID 12345 taken as passt-repair"
stop_passt
start_passt "$S" --vhost-user --repair-path none
[ ! -e "$S.repair" ] || fail "--repair-path none made a socket"
stop_passt
[ ! -e "$WORK/s/other" ] || fail "$WORK/s/other left behind"

mkdir -m 1777 "$WORK/d"
bg in_host "$REPAIR" "$WORK/d"
H2=$BG_PID
sleep 0.5
start_passt "$WORK/d/p.sock" --vhost-user
wait_for grep -q "passt-repair connected" "$WORK/passt.log" ||
	fail "helper waiting in a directory didn't connect"
stop_passt
wait $H2 || fail "directory helper: status $?"
pass "passt-repair protocol, --repair-path, one helper at a time"
