#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_sock_buffers.sh - the receive queues of pasta's UDP sockets on the
# host: a -u port's socket asks for 16 MiB with SO_RCVBUFFORCE (pasta runs
# as root here, so it gets it: the kernel doubles the value, socket(7),
# 32 MiB); a guest flow's socket keeps the kernel's default
# (net.core.rmem_default) for a single exchange, a DNS query from a new
# port, and gets 1 MiB (doubled, capped at rmem_max) once the guest sends
# a second datagram on it.  Every answer arrives, byte-identical.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
# An echo at 198.51.100.3 in R (not R4: the namespace's gateway address,
# which means the host's loopback)
remote_udp_echo 10003
P4=198.51.100.3
start_pasta -u 10002
wait_for in_remote sh -c "ss -uln | grep -q ':10003 '" || fail "echo in R"

# rb PORT FILTER - the rb value of the skmem of H's UDP socket matching FILTER
rb() {
	in_host ss -uamnH $1 | tr -d '\n' | sed -n 's/.*skmem:([^)]*rb\([0-9]*\).*/\1/p'
}

got=$(rb "sport = :10002")
[ "$got" = 33554432 ] || fail "-u socket: rb $got, want 33554432 (16 MiB with SO_RCVBUFFORCE, doubled)"

dflt=$(in_host cat /proc/sys/net/core/rmem_default)
max=$(in_host cat /proc/sys/net/core/rmem_max)
big=$(( (max < 1048576 ? max : 1048576) * 2 ))

in_ns python3 - "$P4" 10003 "$WORK" <<'PY' &
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.bind(('0.0.0.0', 40100))
for n in (1, 2):
    msg = b'query %d' % n + os.urandom(16)
    s.sendto(msg, (sys.argv[1], int(sys.argv[2])))
    data, _ = s.recvfrom(2048)
    if data != msg:
        sys.exit('answer %d differs' % n)
    open(sys.argv[3] + '/answer%d' % n, 'w').close()
    deadline = time.time() + 5
    while not os.path.exists(sys.argv[3] + '/go%d' % n):
        if time.time() > deadline:
            sys.exit('no go %d' % n)
        time.sleep(0.02)
PY
cli=$!
wait_for test -e "$WORK/answer1" ||
	{ tail -n 20 "$WORK/pasta.log"; fail "no answer to the first query"; }
got=$(rb "dst $P4:10003")
[ "$got" = "$dflt" ] || fail "flow socket after one exchange: rb $got, want rmem_default $dflt"
touch "$WORK/go1"
wait_for test -e "$WORK/answer2" || fail "no answer to the second query"
got=$(rb "dst $P4:10003")
[ "$got" = "$big" ] || fail "flow socket after a second datagram: rb $got, want $big"
touch "$WORK/go2"
wait $cli || fail "client: answers lost or different"
pasta_alive
stop_pasta
pass "-u socket 32 MiB; guest flow default for one exchange, $big from the second datagram"
