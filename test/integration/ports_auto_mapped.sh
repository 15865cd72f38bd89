#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ports_auto_mapped.sh - "-t 2222:22,auto" (passt(1)'s example) with the
# default "-T auto": the host port pasta listens on for the namespace's
# port 22 is pasta's own, and the -T scan of the host must never forward it
# back into the namespace:
#  - a TCP server on port 22 in the namespace (0.0.0.0) is reachable from
#    H's 127.0.0.1:2222 (1 MiB, sha256);
#  - after 3 s (3 scans of the host), nothing listens on port 2222 in the
#    namespace (ss), pesto(1) shows no -T "auto" port, and a program there
#    can bind 0.0.0.0:2222 (no SO_REUSEADDR: any listener on the port,
#    127.0.0.1 or ::1 included, makes that fail with EADDRINUSE, ip(7)).
# asan: yes
. "$(dirname "$0")/lib.sh"
PESTO="$(dirname "$PASST_BIN")/pesto"

setup_topology
make_target_ns
make_file "$WORK/data" 1
want=$(sum "$WORK/data")
CTL="$WORK/ctl"

listening() {
	$1 ss -Hltn | awk '{ print $4 }' | grep -q ":$2\$"
}

rm -f "$WORK/got"
bg in_ns timeout 60 socat -u TCP4-LISTEN:22,reuseaddr \
	OPEN:"$WORK/got",creat,trunc
srv=$BG_PID
wait_for listening in_ns 22 || fail "server on 22 in the namespace"

start_pasta -c "$CTL" -t 2222:22,auto -u none
wait_for listening in_host 2222 ||
	{ cat "$WORK/pasta.log"; fail "host port 2222 not forwarded"; }
in_host timeout 30 socat -u OPEN:"$WORK/data" TCP4:127.0.0.1:2222 ||
	{ cat "$WORK/pasta.log"; fail "client to 127.0.0.1:2222"; }
wait $srv
got=$(sum "$WORK/got")
[ "$got" = "$want" ] || fail "host 2222 -> namespace 22: sha256 $got, sent $want"
log "host 127.0.0.1:2222 -> namespace port 22: 1 MiB intact"

# Keep something on 22 so that 2222 stays forwarded while the scans run
bg in_ns timeout 60 socat TCP4-LISTEN:22,reuseaddr,fork /dev/null
wait_for listening in_ns 22 || fail "second server on 22"
wait_for listening in_host 2222 || fail "host port 2222 gone"
sleep 3
listening in_host 2222 || fail "host port 2222 gone after 3 s"

if in_ns ss -Hltnp | grep ':2222 '; then
	"$PESTO" "$CTL"
	fail "pasta listens on port 2222 in the namespace: its own host port forwarded back"
fi
"$PESTO" "$CTL" >"$WORK/show" || fail "pesto show"
grep -- '^-T auto' "$WORK/show" | grep -q 'forwarding now: none$' ||
	{ cat "$WORK/show"; fail "pesto: -T auto forwards something"; }
in_ns python3 -c "
import socket
s = socket.socket()
s.bind(('0.0.0.0', 2222))
s.listen(1)" || fail "a program in the namespace can't bind 0.0.0.0:2222"
log "namespace: no listener on 2222, 0.0.0.0:2222 free, -T auto: none"
pasta_alive

pass "-t 2222:22,auto: the mapped host port is not forwarded back by -T auto"
