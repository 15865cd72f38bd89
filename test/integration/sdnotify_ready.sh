#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sdnotify_ready.sh - Readiness notification (sd_notify(3) protocol): with
# NOTIFY_SOCKET pointing at a datagram socket the test listens on
# (sdnotify_listen.py, with SO_PASSCRED as systemd's), pasta and passt send
# READY=1 with MAINPID= and STATUS= only once the namespace is configured /
# the socket accepts connections (checked the moment READY=1 arrives), and
# STOPPING=1 on SIGTERM; the credentials' PID is the daemon's; without -f
# the detached process reports itself; a command pasta spawns doesn't see
# NOTIFY_SOCKET; an abstract "@name" works; a NOTIFY_SOCKET that can't be
# used (missing path, abstract name nobody binds, relative, too long, empty,
# vsock:) is ignored with a debug line, never fatal.
# asan: yes
. "$(dirname "$0")/lib.sh"

NL="python3 $(dirname "$0")/sdnotify_listen.py"

setup_topology
make_target_ns

# listen ADDR NAME CHECK... - notification listener in H, output $WORK/NAME
listen() {
	_a=$1; _n=$2; shift 2
	bg in_host $NL "$_a" "$@" >"$WORK/$_n" 2>&1
	LISTEN_PID_=$BG_PID
	wait_for grep -q listening "$WORK/$_n" || { cat "$WORK/$_n"; fail "listener"; }
}
# field FILE VAR - VALUE of the first VAR= in the datagrams in FILE
field() {
	sed -n "s/^msg [-0-9]* //p" "$1" | tr '|' '\n' | sed -n "s/^$2=//p" | head -n 1
}
# sender FILE VAR - credentials PID of the first datagram holding VAR=
sender() {
	grep "^msg .*$2=" "$1" | head -n 1 | cut -d' ' -f2
}

# 1. pasta: READY=1 once the namespace has its address, STOPPING=1 at exit
listen "$WORK/notify" pasta.n sh -c "ip -n $N -o addr show | grep -q 'inet .*global'"
export NOTIFY_SOCKET="$WORK/notify"
start_pasta
unset NOTIFY_SOCKET
wait_for grep -q READY=1 "$WORK/pasta.n" || { cat "$WORK/pasta.n" "$WORK/pasta.log"; fail "pasta: no READY=1"; }
wait_for grep -q "^check" "$WORK/pasta.n"
grep -q "^check 0" "$WORK/pasta.n" || { cat "$WORK/pasta.n"; fail "pasta: READY=1 before the namespace had its address"; }
[ "$(field "$WORK/pasta.n" MAINPID)" = "$PASTA_PID" ] || { cat "$WORK/pasta.n"; fail "pasta: MAINPID is not $PASTA_PID"; }
[ "$(sender "$WORK/pasta.n" READY)" = "$PASTA_PID" ] || { cat "$WORK/pasta.n"; fail "pasta: READY=1 not from $PASTA_PID"; }
st=$(field "$WORK/pasta.n" STATUS)
case $st in
"namespace configured: /run/netns/$N, interface "*" with addresses and routes; TCP reader: "*) ;;
*) fail "pasta: STATUS=$st" ;;
esac
grep -q STOPPING=1 "$WORK/pasta.n" && fail "pasta: STOPPING=1 while running"
stop_pasta
wait_for grep -q STOPPING=1 "$WORK/pasta.n" || { cat "$WORK/pasta.n"; fail "pasta: no STOPPING=1"; }
[ "$(grep -c '^msg' "$WORK/pasta.n")" = 2 ] || { cat "$WORK/pasta.n"; fail "pasta: not exactly READY and STOPPING"; }
kill $LISTEN_PID_
log "pasta: $st"

# 2. pasta with a command: the command doesn't inherit NOTIFY_SOCKET
listen "$WORK/notify2" cmd.n
NOTIFY_SOCKET="$WORK/notify2" ip netns exec "$H" "$PASTA_BIN" -f --config-net \
	-- sh -c 'echo "child NOTIFY_SOCKET=${NOTIFY_SOCKET:-unset}"' \
	>"$WORK/cmd.log" 2>&1 || { cat "$WORK/cmd.log"; fail "pasta with a command"; }
grep -q "child NOTIFY_SOCKET=unset" "$WORK/cmd.log" || { cat "$WORK/cmd.log"; fail "NOTIFY_SOCKET passed to the command"; }
wait_for grep -q STOPPING=1 "$WORK/cmd.n" || { cat "$WORK/cmd.n"; fail "pasta with a command: no STOPPING=1"; }
grep -q "READY=1" "$WORK/cmd.n" || fail "pasta with a command: no READY=1"
kill $LISTEN_PID_
log "pasta: the spawned command sees no NOTIFY_SOCKET"

# 3. passt: READY=1 once the socket accepts connections
S=$WORK/p.sock
listen "@passt-notify-$TEST_ID" passt.n python3 -c "
import socket
socket.socket(socket.AF_UNIX).connect('$S')"
export NOTIFY_SOCKET="@passt-notify-$TEST_ID"
start_passt "$S"
unset NOTIFY_SOCKET
wait_for grep -q READY=1 "$WORK/passt.n" || { cat "$WORK/passt.n" "$WORK/passt.log"; fail "passt: no READY=1"; }
wait_for grep -q "^check" "$WORK/passt.n"
grep -q "^check 0" "$WORK/passt.n" || { cat "$WORK/passt.n"; fail "passt: READY=1 before the socket accepted connections"; }
[ "$(field "$WORK/passt.n" MAINPID)" = "$PASST_PID" ] || { cat "$WORK/passt.n"; fail "passt: MAINPID"; }
[ "$(sender "$WORK/passt.n" READY)" = "$PASST_PID" ] || fail "passt: READY=1 not from $PASST_PID"
st=$(field "$WORK/passt.n" STATUS)
case $st in
"listening on $S; TCP reader: "*) ;;
*) fail "passt: STATUS=$st" ;;
esac
stop_passt
wait_for grep -q STOPPING=1 "$WORK/passt.n" || { cat "$WORK/passt.n"; fail "passt: no STOPPING=1"; }
kill $LISTEN_PID_
log "passt (abstract NOTIFY_SOCKET): $st"

# 4. passt without -f: the parent reports the detached process, which then
# sends READY=1 itself
listen "$WORK/notify3" daemon.n
NOTIFY_SOCKET="$WORK/notify3" ip netns exec "$H" "$PASST_BIN" -s "$S" \
	-P "$WORK/pid" >"$WORK/d.log" 2>&1 || { cat "$WORK/d.log"; fail "passt daemon"; }
PASST_PID=$(cat "$WORK/pid")
track $PASST_PID
wait_for grep -q READY=1 "$WORK/daemon.n" || { cat "$WORK/daemon.n"; fail "daemon: no READY=1"; }
first=$(head -n 2 "$WORK/daemon.n" | grep '^msg' | head -n 1)
[ "${first#msg * }" = "MAINPID=$PASST_PID" ] || { cat "$WORK/daemon.n"; fail "daemon: first message is not MAINPID=$PASST_PID"; }
[ "$(sender "$WORK/daemon.n" READY)" = "$PASST_PID" ] || { cat "$WORK/daemon.n"; fail "daemon: READY=1 not from $PASST_PID"; }
kill $PASST_PID
wait_for grep -q STOPPING=1 "$WORK/daemon.n" || { cat "$WORK/daemon.n"; fail "daemon: no STOPPING=1"; }
wait_for sh -c "! kill -0 $PASST_PID" || fail "daemon did not exit"
kill $LISTEN_PID_
log "passt daemon: MAINPID=$PASST_PID from the parent, READY=1 from the child"

# 5. NOTIFY_SOCKET values that can't be used: ignored with a debug line
long=/$(head -c 120 /dev/zero | tr '\0' a)
for ns in "$WORK/missing" "@nobody-$TEST_ID" relative.sock "$long" "" \
	vsock:2:1234; do
	export NOTIFY_SOCKET="$ns"
	rm -f "$WORK/passt.log"	# start_passt truncates it in the background
	start_passt "$S"
	unset NOTIFY_SOCKET
	grep -q "NOTIFY_SOCKET '.*' ignored" "$WORK/passt.log" ||
		{ cat "$WORK/passt.log"; fail "NOTIFY_SOCKET='$ns': no debug line"; }
	in_host python3 -c "
import socket
socket.socket(socket.AF_UNIX).connect('$S')" || fail "NOTIFY_SOCKET='$ns': socket not served"
	stop_passt
done
log "bad NOTIFY_SOCKET values ignored"

pass "readiness notification"
