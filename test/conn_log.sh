#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/conn_log.sh - The debug log of one TCP connection's life (issue 28)
#
# Usage: PASST_BIN=build/passt test/conn_log.sh     (root: scratch namespaces)
#
# pasta -d in the topology of the integration tests (integration/lib.sh):
# a client in the namespace N sends 1 MiB to the gateway address, which
# pasta maps to H's loopback, where socat receives it (the tap path, one
# flow).  Prints the "flow N ..." lines of pasta's log: the lifecycle
# (FREE -> NEW -> ACTIVE -> DEAD -> FREE) and the TCP states with the
# events that moved them.  Exit 0 if the data arrived intact (sha256).
PASST_BIN=$(realpath "${PASST_BIN:?PASST_BIN must point to the passt binary}")
export PASST_BIN
# shellcheck source=test/integration/lib.sh
. "$(dirname "$0")/integration/lib.sh"

setup_topology
start_pasta
head -c 1048576 /dev/urandom > "$WORK/data"
in_host socat -u TCP-LISTEN:8080,bind=127.0.0.1,reuseaddr \
	OPEN:"$WORK/got",creat,trunc &
srv=$!; track $srv
wait_for in_host sh -c "ss -ltn | grep -q ':8080 '" || fail "no listener"
in_ns socat -u OPEN:"$WORK/data" TCP:$R4:8080 || fail "client"
wait $srv
[ "$(sum "$WORK/data")" = "$(sum "$WORK/got")" ] || fail "data differs"
wait_for grep -q 'DEAD -> FREE' "$WORK/pasta.log"
stop_pasta
grep -E 'flow [0-9]+ ' "$WORK/pasta.log"
pass "1 MiB namespace -> host loopback, sha256 equal"
