#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# splice_family_fallback.sh - a "localhost" client on the host tries ::1
# first; with -t 8093 and a server in the namespace on 0.0.0.0 only, pasta
# falls back to IPv4 inside the namespace instead of resetting the
# client, as a dual-stack client would (RFC 8305).  The server sees the
# namespace's IPv4 address; 1 MiB from the client comes back intact.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
start_pasta -t 8093 -t 8094
bg in_ns socat TCP4-LISTEN:8093,reuseaddr,fork 'SYSTEM:echo v4 server $SOCAT_PEERADDR'
bg in_ns socat TCP4-LISTEN:8094,reuseaddr,fork PIPE
wait_for in_ns sh -c "ss -Hltn | grep -q ':8094 '" || fail "servers in N"

r=$(in_host timeout 10 socat -T 5 - TCP6:'[::1]':8093 </dev/null 2>&1)
[ "$r" = "v4 server $H4" ] || fail "[::1]:8093 -> '$r', expected the IPv4 server"
head -c 1048576 /dev/urandom > "$WORK/src"
in_host timeout 20 socat -T 5 - TCP6:'[::1]':8094 <"$WORK/src" >"$WORK/dst" ||
	fail "transfer"
[ "$(sum "$WORK/src")" = "$(sum "$WORK/dst")" ] || fail "data differs"
pasta_alive
stop_pasta
grep -q "trying IPv4" "$WORK/pasta.log" || fail "no fallback logged"
pass "IPv6 client, IPv4-only server: spliced over IPv4 in the namespace"
