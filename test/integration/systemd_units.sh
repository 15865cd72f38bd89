#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# systemd_units.sh - The shipped units' commands under their own sandbox
# settings, without systemd: ExecStart= and CapabilityBoundingSet= are read
# from contrib/systemd/*.in, the bounding set and NoNewPrivileges= applied
# with setpriv(1), and readiness received by sdnotify_listen.py.
#   pasta@.service: a named namespace (pasta-netns@), pasta with the unit's
#     bounding set; READY=1 once the namespace has its address; a "service"
#     in that namespace reached from the host through PASTA_OPTS="-t ...".
#   passt@.socket + passt@.service: the socket bound by the launcher as
#     systemd would, passt started on the first connection as an
#     unprivileged user (DynamicUser=) with an empty bounding set; lease and
#     download through it.
# What only systemd can show (its mount namespacing, DynamicUser= itself,
# RestrictAddressFamilies=) is not covered here.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
UNITS=$here/../../contrib/systemd
BINDIR=$(cd "$(dirname "$PASST_BIN")" && pwd)
NL="python3 $here/sdnotify_listen.py"
SX="python3 $here/sdlisten_exec.py"
CL="python3 $here/passt_client.py"
TT="python3 $here/tcptool.py"
command -v setpriv >/dev/null || skip "setpriv (util-linux) missing"

# unit_get FILE KEY - value of the first KEY= in FILE, continuation lines
# joined, as systemd.syntax(7) reads them
unit_get() {
	python3 - "$1" "$2" <<'EOF'
import sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
for line in text.splitlines():
    if line.startswith(sys.argv[2] + "="):
        print(" ".join(line.split("=", 1)[1].split()))
        break
EOF
}
# bset CAPS - setpriv --bounding-set argument for systemd's capability list
bset() {
	_b=-all
	for _c in $1; do
		_b="$_b,+$(echo "${_c#CAP_}" | tr '[:upper:]' '[:lower:]')"
	done
	echo "$_b"
}

setup_topology
make_target_ns

# 1. pasta@.service, instance $N, with PASTA_OPTS="-t 8080:80"
P=$UNITS/pasta@.service.in
# pasta-netns@ names a namespace of systemd's: make_target_ns's stands in
pre=$(unit_get "$UNITS/pasta-netns@.service" ExecStart)
case $pre in *"ip netns attach %i "*) ;; *) fail "pasta-netns@: ExecStart=$pre" ;; esac
[ "$(unit_get "$P" BindsTo)" = "pasta-netns@%i.service" ] || fail "pasta@: BindsTo"
[ "$(unit_get "$P" NoNewPrivileges)" = yes ] || fail "pasta@: NoNewPrivileges"
[ "$(unit_get "$P" Type)" = notify ] || fail "pasta@: Type"
caps=$(unit_get "$P" CapabilityBoundingSet)
cmd=$(unit_get "$P" ExecStart | sed -e "s|@BINDIR@|$BINDIR|" -e "s|%i|$N|g" \
	-e 's|\$PASTA_OPTS|-d -t 8080:80|')
log "pasta@$N: $cmd, bounding set $caps"

make_file "$WORK/index.bin" 1
mkdir "$WORK/www" && cp "$WORK/index.bin" "$WORK/www/"
bg in_ns python3 -m http.server 80 --bind 0.0.0.0 --directory "$WORK/www"
wait_for in_ns sh -c "ss -ltn | grep -q ':80 '" || fail "web server in $N"

bg in_host $NL "$WORK/notify.sock" sh -c \
	"ip -n $N -o addr show | grep -q 'inet .*global'" >"$WORK/notify" 2>&1
NLP=$BG_PID
wait_for grep -q listening "$WORK/notify" || fail "listener"
export NOTIFY_SOCKET="$WORK/notify.sock"
# shellcheck disable=SC2086
bg in_host setpriv --no-new-privs --bounding-set "$(bset "$caps")" \
	$cmd >"$WORK/pasta.log" 2>&1
unset NOTIFY_SOCKET
PASTA_PID=$BG_PID
wait_for grep -q READY=1 "$WORK/notify" || { cat "$WORK/pasta.log" "$WORK/notify"; fail "pasta@: no READY=1"; }
wait_for grep -q "^check" "$WORK/notify"
grep -q "^check 0" "$WORK/notify" || { cat "$WORK/notify"; fail "pasta@: READY=1 before the address"; }
grep -q "running as UID 65534" "$WORK/pasta.log" || { cat "$WORK/pasta.log"; fail "pasta@: not nobody"; }
in_host curl -sS -o "$WORK/got.bin" http://127.0.0.1:8080/index.bin ||
	{ cat "$WORK/pasta.log"; fail "pasta@: host to the service in $N"; }
[ "$(sum "$WORK/got.bin")" = "$(sum "$WORK/index.bin")" ] || fail "pasta@: download differs"
stop_pasta
wait_for grep -q STOPPING=1 "$WORK/notify" || fail "pasta@: no STOPPING=1"
kill $NLP
log "pasta@: READY=1 after configuration, host port 8080 to the service's port 80"

# 2. passt@.socket and passt@.service, unprivileged, empty bounding set
S=$UNITS/passt@.service.in
[ "$(unit_get "$S" CapabilityBoundingSet)" = "" ] || fail "passt@: bounding set not empty"
[ "$(unit_get "$S" DynamicUser)" = yes ] || fail "passt@: DynamicUser"
sock=$(unit_get "$UNITS/passt@.socket" ListenStream | sed "s|^/run|$WORK/run|;s|%i|vm1|")
[ "$(unit_get "$UNITS/passt@.socket" Accept)" = no ] || fail "passt@.socket: Accept"
mkdir -p "$(dirname "$sock")"
cmd=$(unit_get "$S" ExecStart | sed -e "s|@BINDIR@|$BINDIR|" -e 's|\$PASST_OPTS|-d|')
log "passt@vm1: $cmd on $sock"
bg in_host $TT serve-pattern 8081 --bind 127.0.0.1
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:8081 '" || fail "server"
# shellcheck disable=SC2086
bg in_host $SX --wait unix "$sock" -- "$(command -v setpriv)" \
	--reuid=61234 --regid=61234 --clear-groups --no-new-privs \
	--bounding-set -all $cmd >"$WORK/sx" 2>"$WORK/passt.log"
wait_for test -S "$sock" || fail "passt@.socket: not bound"
in_host $CL tcp "$sock" $R4 8081 unit 200000 >"$WORK/out" 2>&1 ||
	{ cat "$WORK/out" "$WORK/passt.log"; fail "passt@: guest"; }
grep -q "sha256 ok" "$WORK/out" || fail "passt@: download"
PASST_PID=$(sed -n 's/^child //p' "$WORK/sx")
track $PASST_PID
grep -q "^Uid:.*61234" "/proc/$PASST_PID/status" || fail "passt@: not the unprivileged user"
grep -q "^CapBnd:.*0000000000000000" "/proc/$PASST_PID/status" || fail "passt@: bounding set"
stop_passt
[ -S "$sock" ] || fail "passt@: removed the socket unit's file"
log "passt@: activated, unprivileged, no capabilities: lease and download"

pass "unit commands under their sandbox settings"
