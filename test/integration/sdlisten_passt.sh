#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sdlisten_passt.sh - Socket activation (sd_listen_fds(3) protocol): the
# test binds the UNIX socket itself and execs passt with it as descriptor 3,
# LISTEN_FDS=1 and LISTEN_PID set, only once a guest (passt_client.py) has
# connected, as systemd does with a socket unit; the guest gets a lease and
# a TCP download intact, a second guest is served after it, READY=1 says
# which socket, and the socket file stays at exit (it is the socket unit's).
# -s naming the same path is accepted.  Refused with a message: LISTEN_PID
# of another process or unset, and LISTEN_FDS=0 (ignored, passt binds -s);
# a regular file, a closed descriptor, a datagram, TCP or non-listening
# socket, LISTEN_FDS=2, a non-number, -s naming another path (exit 1).
# pasta ignores LISTEN_FDS.
# asan: yes
. "$(dirname "$0")/lib.sh"

CL="python3 $(dirname "$0")/passt_client.py"
TT="python3 $(dirname "$0")/tcptool.py"
SX="python3 $(dirname "$0")/sdlisten_exec.py"
NL="python3 $(dirname "$0")/sdnotify_listen.py"
GW4=$R4

setup_topology
bg in_host $TT serve-pattern 8081 --bind 127.0.0.1
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:8081 '" || fail "server"

S=$WORK/vm1.socket

# 1. Started by the first connection: lease and download through it
bg in_host $NL "$WORK/notify.sock" >"$WORK/notify" 2>&1
NLP=$BG_PID
wait_for grep -q listening "$WORK/notify" || fail "notify listener"
export NOTIFY_SOCKET="$WORK/notify.sock"
bg in_host $SX --wait unix "$S" -- "$PASST_BIN" -f -d \
	>"$WORK/sx" 2>"$WORK/passt.log"
unset NOTIFY_SOCKET
wait_for test -S "$S" || fail "launcher did not bind $S"
grep -q child "$WORK/sx" && fail "passt started before a client connected"
in_host $CL tcp "$S" $GW4 8081 act 300000 >"$WORK/out" 2>&1 ||
	{ cat "$WORK/out" "$WORK/passt.log"; fail "guest through the activated socket"; }
grep -q "sha256 ok" "$WORK/out" || { cat "$WORK/out"; fail "download"; }
PASST_PID=$(sed -n 's/^child //p' "$WORK/sx")
track $PASST_PID
grep -q "socket bound at $S (passed by the service manager" "$WORK/passt.log" ||
	{ cat "$WORK/passt.log"; fail "no log line for the passed socket"; }
in_host $CL lease "$S" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "second guest"; }
grep -q "^address $H4" "$WORK/out" || { cat "$WORK/out"; fail "second lease"; }
wait_for grep -q READY=1 "$WORK/notify" || { cat "$WORK/notify"; fail "no READY=1"; }
grep -q "STATUS=listening on $S;" "$WORK/notify" || { cat "$WORK/notify"; fail "STATUS"; }
stop_passt
wait_for grep -q "^exit 0" "$WORK/sx" || { cat "$WORK/sx"; fail "passt exit status"; }
[ -S "$S" ] || fail "passt removed the socket unit's file"
kill $NLP
log "activated on the first connection: lease, download, second guest"

# 2. -s with the same path: the passed socket is used
rm -f "$S"
bg in_host $SX unix "$S" -- "$PASST_BIN" -f -s "$S" >"$WORK/sx" 2>"$WORK/passt.log"
wait_for grep -q "passed by the service manager" "$WORK/passt.log" ||
	{ cat "$WORK/passt.log"; fail "-s with the passed socket's path"; }
PASST_PID=$(sed -n 's/^child //p' "$WORK/sx")
track $PASST_PID
in_host $CL lease "$S" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "lease with -s"; }
stop_passt
log "-s naming the passed socket"

# 3. Not for us: ignored with a message, passt binds -s itself
S2=$WORK/own.socket
for c in "--pid parent:LISTEN_FDS ignored: LISTEN_PID=[0-9]* is not our PID" \
	 "--pid unset:LISTEN_FDS ignored: LISTEN_PID is not set" \
	 "--fds 0:LISTEN_FDS=0: no socket passed"; do
	opt=${c%%:*}; msg=${c#*:}
	rm -f "$S" "$S2"
	bg in_host $SX $opt unix "$S" -- "$PASST_BIN" -f -s "$S2" \
		>"$WORK/sx" 2>"$WORK/passt.log"
	wait_for grep -q "socket bound at $S2" "$WORK/passt.log" ||
		{ cat "$WORK/passt.log"; fail "$opt: passt did not bind its own socket"; }
	grep -q "$msg" "$WORK/passt.log" || { cat "$WORK/passt.log"; fail "$opt: no message"; }
	PASST_PID=$(sed -n 's/^child //p' "$WORK/sx")
	track $PASST_PID
	stop_passt
done
log "LISTEN_PID not ours or unset, LISTEN_FDS=0: ignored with a message"

# 4. Unusable descriptors: exit status 1, with a message
echo data > "$WORK/file"
rm -f "$S2"	# passt ran as nobody: it couldn't remove it from $WORK
for c in "file $WORK/file::descriptor 3 is not a socket" \
	 "none -::descriptor 3 is not open" \
	 "dgram $WORK/d.sock::descriptor 3 is not a stream socket" \
	 "inet -::descriptor 3 is not an AF_UNIX socket" \
	 "unbound -::descriptor 3 is not listening" \
	 "unix $WORK/two.sock:--fds 2:LISTEN_FDS=2: passt takes one listening socket" \
	 "unix $WORK/nan.sock:--fds 1x:LISTEN_FDS=1x LISTEN_PID=[0-9]*: not decimal numbers" \
	 "unix $WORK/other.sock:-s:the socket passed in LISTEN_FDS is bound at '$WORK/other.sock'"; do
	what=${c%%:*}; rest=${c#*:}; opt=${rest%%:*}; msg=${rest#*:}
	sopt=
	if [ "$opt" = -s ]; then opt=; sopt="-s $S2"; fi
	in_host $SX $opt $what -- "$PASST_BIN" -f $sopt >"$WORK/sx" 2>"$WORK/err" ||
		{ cat "$WORK/sx" "$WORK/err"; fail "$what: launcher"; }
	grep -q "^exit 1" "$WORK/sx" || { cat "$WORK/sx" "$WORK/err"; fail "$what $opt: not exit 1"; }
	grep -q "$msg" "$WORK/err" || { cat "$WORK/err"; fail "$what $opt: no message '$msg'"; }
	[ ! -e "$S2" ] || fail "$what $opt: bound -s anyway"
done
log "file, closed fd, datagram, TCP, non-listening, two fds, bad number, other -s: refused"

# 5. pasta takes no socket: LISTEN_FDS is ignored with a message
in_host $SX unix "$WORK/pasta.sock" -- "$PASTA_BIN" -f --config-net \
	-- true >"$WORK/sx" 2>"$WORK/err" || { cat "$WORK/err"; fail "pasta launcher"; }
grep -q "^exit 0" "$WORK/sx" || { cat "$WORK/sx" "$WORK/err"; fail "pasta with LISTEN_FDS"; }
grep -q "LISTEN_FDS=1 ignored: pasta takes no socket" "$WORK/err" || { cat "$WORK/err"; fail "pasta: no message"; }
log "pasta ignores LISTEN_FDS"

pass "socket activation"
