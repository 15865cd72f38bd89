#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ports_pesto.sh - port forwarding changed at run time: pasta -c SOCKET and
# pesto(1), from another process
#  - the socket has mode 0600; pesto shows the rules;
#  - while 16 MiB flow through -t 5601 (paused halfway), pesto adds 5602
#    and deletes 5601: the transfer completes intact (sha256), 5601 is then
#    refused, 5602 carries 16 MiB intact;
#  - a target change (replace -t with 5602:5612) keeps the listener and
#    sends new connections to the new target;
#  - -T and -U added at run time work (namespace sockets from the helper);
#  - refused, with a message, and nothing changed: a malformed spec, an
#    unknown pif, an oversized request, a peer with another UID (closed
#    without the greeting), a port
#    that can't be bound (in use on H), also next to a good one;
#  - -C host clears the host side: nothing listens any more.
# asan: yes
. "$(dirname "$0")/lib.sh"
PESTO="$(dirname "$PASST_BIN")/pesto"
UDPTOOL="python3 $(dirname "$0")/udptool.py"

setup_topology
make_file "$WORK/data" 16
want=$(sum "$WORK/data")
CTL="$WORK/ctl"

listening() {
	_f=-Hltn; [ "$2" = udp ] && _f=-Hlun
	$1 ss $_f | awk '{ print $4 }' | grep -q ":$3\$"
}

# unchanged WHAT - the rules must be those saved in $WORK/rules
unchanged() {
	"$PESTO" "$CTL" > "$WORK/rules.now" || fail "$1: pesto show"
	cmp -s "$WORK/rules" "$WORK/rules.now" ||
		{ diff "$WORK/rules" "$WORK/rules.now"; fail "$1: rules changed"; }
}

# refused WHAT EXPECT PESTO_ARGS... - pesto must fail, saying EXPECT
refused() {
	_what=$1; _exp=$2; shift 2
	"$PESTO" "$@" "$CTL" > "$WORK/out" 2>&1 && fail "$_what: accepted"
	grep -q -- "$_exp" "$WORK/out" ||
		{ cat "$WORK/out"; fail "$_what: no '$_exp' in the message"; }
	log "$_what: refused: $(head -1 "$WORK/out")"
	unchanged "$_what"
}

start_pasta -c "$CTL" -t 5601 -u none -T none -U none
[ "$(stat -c %a "$CTL")" = 600 ] || fail "socket mode $(stat -c %a "$CTL")"
"$PESTO" "$CTL" > "$WORK/rules" || fail "pesto show"
grep -q -- '^-t \[\*\]:5601 => 5601$' "$WORK/rules" ||
	{ cat "$WORK/rules"; fail "show: no -t 5601"; }

# Traffic through 5601 while it is deleted and 5602 added
rm -f "$WORK/got"
bg in_ns timeout 60 socat -u TCP4-LISTEN:5601,reuseaddr OPEN:"$WORK/got",creat,trunc
srv=$BG_PID
wait_for listening in_ns tcp 5601 || fail "server on 5601"
rm -f "$WORK/go"
bg in_host sh -c "{ head -c 8388608 '$WORK/data'; while [ ! -e '$WORK/go' ]; do sleep 0.1; done; tail -c +8388609 '$WORK/data'; } | timeout 60 socat -u - TCP4:127.0.0.1:5601"
cli=$BG_PID
wait_for sh -c "[ \$(stat -c %s '$WORK/got') -ge 4194304 ]" || fail "no data through 5601"
"$PESTO" -s -A -t 5602 -D -t 5601 "$CTL" > "$WORK/out" ||
	{ cat "$WORK/out"; fail "pesto -A -t 5602 -D -t 5601"; }
grep -q -- '^-t \[\*\]:5602 => 5602$' "$WORK/out" || { cat "$WORK/out"; fail "-s: no 5602"; }
grep -q 'before:' "$WORK/out" || fail "-s: no 'before:'"
touch "$WORK/go"
wait $cli || fail "client on 5601"
wait $srv
[ "$(sum "$WORK/got")" = "$want" ] || fail "transfer across the change: sha256"
log "16 MiB through 5601 intact across its deletion"
listening in_host tcp 5601 && fail "5601 still listening"
in_host timeout 5 socat -u /dev/null TCP4:127.0.0.1:5601 2>/dev/null &&
	fail "5601 still reachable"

# tcp_to PORT TARGET WHAT - 16 MiB from H's loopback to PORT, received by a
# server in the namespace on TARGET
tcp_to() {
	rm -f "$WORK/got"
	bg in_ns timeout 30 socat -u TCP6-LISTEN:$2,reuseaddr OPEN:"$WORK/got",creat,trunc
	_srv=$BG_PID
	wait_for listening in_ns tcp $2 || fail "$3: server"
	in_host timeout 30 socat -u OPEN:"$WORK/data" TCP6:'[::1]':$1 || fail "$3: client"
	wait $_srv
	[ "$(sum "$WORK/got")" = "$want" ] || fail "$3: sha256"
	log "$3: 16 MiB intact"
}
tcp_to 5602 5602 "added port 5602"

# Replacing -t with another target: same listener, new target
ino=$(in_host ss -Hltne 2>/dev/null | awk '$4 ~ /:5602$/ { for (i = 1; i <= NF; i++) if ($i ~ /^ino:/) print $i }')
"$PESTO" -t 5602:5612 "$CTL" || fail "pesto -t 5602:5612"
ino2=$(in_host ss -Hltne 2>/dev/null | awk '$4 ~ /:5602$/ { for (i = 1; i <= NF; i++) if ($i ~ /^ino:/) print $i }')
[ -n "$ino" ] && [ "$ino" = "$ino2" ] || fail "listener of 5602 replaced ($ino, $ino2)"
tcp_to 5602 5612 "5602 to its new target 5612"

# -T and -U at run time
bg in_host timeout 30 socat -u TCP4-LISTEN:5607,bind=127.0.0.1,reuseaddr OPEN:"$WORK/got7",creat,trunc
srv=$BG_PID
wait_for listening in_host tcp 5607 || fail "server on H 5607"
"$PESTO" -A -T 5607 -U 5608 "$CTL" || fail "pesto -A -T 5607 -U 5608"
in_ns timeout 30 socat -u OPEN:"$WORK/data" TCP4:127.0.0.1:5607 || fail "-T 5607: client"
wait $srv
[ "$(sum "$WORK/got7")" = "$want" ] || fail "-T 5607: sha256"
bg in_host $UDPTOOL echo 127.0.0.1 5608 30
wait_for listening in_host udp 5608 || fail "echo on H 5608"
in_ns $UDPTOOL pingpong 127.0.0.1 5608 200 65507 || fail "-U 5608: echo"
log "-T 5607 (16 MiB intact) and -U 5608 (echoes intact) added at run time"

# Bad input: refused, nothing changes
"$PESTO" "$CTL" > "$WORK/rules" || fail "pesto show"
refused "malformed spec" "^pesto: -t/--tcp-ports 70000: invalid port" -A -t 70000
refused "malformed range" "inverted port range" -A -t 90-80
refused "unknown pif" "^pesto: -C/--clear nowhere: unknown pif" -C nowhere
refused "port forwarded twice" "already forwarded" -A -t 5602
refused "deleting a port not forwarded" "not forwarded" -D -t 5699
bg in_host timeout 60 socat -u TCP-LISTEN:5605,reuseaddr -
wait_for listening in_host tcp 5605 || fail "holder of 5605"
refused "port in use" "5605 can't be forwarded" -A -t 5605
refused "good port next to a port in use" "5605 can't be forwarded" -A -t 5606 -t 5605
listening in_host tcp 5606 && fail "5606 opened by a failed request"
python3 - "$CTL" > "$WORK/out" 2>&1 <<'EOF' || { cat "$WORK/out"; fail "oversized request"; }
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(5)
# The greeting first (hello, tables): then a text request, over 16 KiB
g = s.recv(65536)
assert g[:8] == b"basil:s\0", g[:8]
s.sendall(b"add t 5609\n" * 10000)
s.shutdown(socket.SHUT_WR)
r = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    r += d
r = r.decode()
sys.exit(0 if r.startswith("error\n") and "at most" in r else "reply: " + r)
EOF
unchanged "oversized request"
chmod 666 "$CTL"
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 - "$CTL" \
	> "$WORK/out" 2>&1 <<'EOF' || { cat "$WORK/out"; fail "peer with another UID"; }
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(5)
# Refused at accept: closed without a greeting
r = s.recv(65536)
sys.exit(0 if r == b"" else "got: %r" % r[:40])
EOF
chmod 600 "$CTL"
unchanged "peer with another UID"
log "bad input refused, rules unchanged"

# Clearing the host side
"$PESTO" -C host "$CTL" || fail "pesto -C host"
listening in_host tcp 5602 && fail "5602 still listening after -C host"
"$PESTO" "$CTL" | grep -q -- '^-t none$' || fail "-t not empty after -C host"

pasta_alive
stop_pasta
pass "pesto: add, delete, replace, clear while traffic flows; bad input refused"
