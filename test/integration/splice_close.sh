#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# splice_close.sh - half-close, RST and refusal across spliced connections,
# host -> namespace (-t) and namespace -> host (-T), IPv4 and IPv6, as the
# real peers on both ends see them (RFC 9293 3.6, 3.10.7):
#
# - half-close: the client sends 2 MiB and shuts down its write side; the
#   server sees exactly those bytes, then EOF, and its 1 MiB reply still
#   reaches the client
# - a server resetting (SO_LINGER 0) gives ECONNRESET to the client, and a
#   client resetting gives ECONNRESET to the server
# - nothing listening on the target port: the client is reset
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/tcptool.py"
setup_topology
start_pasta -t 5401-5404 -T 5411-5414:7411-7414 --stats

# listen_wait IN_NS|IN_HOST PORT - wait for a listener
listen_wait() { wait_for $1 sh -c "ss -Hltn | grep -q ':$2 '" || fail "no listener on $2"; }

for fam in 4 6; do
	if [ $fam = 4 ]; then lo=127.0.0.1; else lo=::1; fi
	for dir in h2n n2h; do
		if [ $dir = h2n ]; then
			srv=in_ns; cli=in_host; p=5401; sp=5401
		else
			srv=in_host; cli=in_ns; p=5411; sp=7411
		fi
		what="IPv$fam $dir"

		bg $srv $T serve-halfclose $sp --bind ::
		s1=$BG_PID
		listen_wait $srv $sp
		$cli $T halfclose $lo $p 2097152 || fail "$what: half-close"

		bg $srv $T serve-rst $((sp + 1)) --bind ::
		s2=$BG_PID
		listen_wait $srv $((sp + 1))
		$cli $T expect-rst $lo $((p + 1)) || fail "$what: server's RST not seen by the client"

		$srv $T serve-expect-rst $((sp + 2)) --bind :: > "$WORK/srv" 2>&1 &
		s3=$!; track $s3
		listen_wait $srv $((sp + 2))
		$cli $T send-rst $lo $((p + 2))
		wait $s3 || { cat "$WORK/srv"; fail "$what: client's RST not seen by the server"; }

		# Nothing listens on the fourth port
		$cli $T expect-rst $lo $((p + 3)) || fail "$what: refused connect not reset"

		kill $s1 $s2 2>/dev/null
		wait $s1 $s2 2>/dev/null
		log "$what: half-close, RST both ways, refusal"
	done
done

pasta_alive
stop_pasta
line=$(grep 'stats: spliced flows' "$WORK/pasta.log")
log "$line"
echo "$line" | grep -q "spliced flows 16 closed 16," || fail "expected 16 spliced connections"
grep -q 'stats: TCP flows opened 0 ' "$WORK/pasta.log" ||
	fail "some connection took the tap path"
pass "half-close, RST and refusal across the splice"
