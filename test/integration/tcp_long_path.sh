#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_long_path.sh - Downloads into the namespace over a 40 ms round trip
# (test/bench/delayline.c in a router namespace X between R and H, MTU
# 9000, one segment per frame), where the host socket's receive buffer has
# to grow for the remote sender to get anywhere (passt/tcp_rcvbuf.c):
#   1. 32 MiB arrive intact, and the host socket's buffer (ss -m, rb) grew
#      past the kernel's starting size (tcp_rmem[1]);
#   2. a reader that stops for 4.5 s: the buffer stops growing with it (rb
#      the same after 1.5 s and after 3.5 s of the stop: nothing was taken,
#      so nothing is raised), then it reads on and all 32 MiB arrive intact.
. "$(dirname "$0")/lib.sh"

X=x-$TEST_ID
W_H4=203.0.113.129
W_R4=203.0.113.130
setup_topology
cc -O2 -o "$WORK/delayline" "$(dirname "$0")/../bench/delayline.c" ||
	fail "delayline.c did not build"
ip netns add "$X" || fail "ip netns add $X"
NAMESPACES="$NAMESPACES $X"
ip link add w0 netns "$R" mtu 9000 type veth peer name xr netns "$X" mtu 9000 &&
ip link add w1 netns "$H" mtu 9000 type veth peer name xh netns "$X" mtu 9000 &&
ip -n "$R" link set w0 gso_max_segs 1 && ip -n "$H" link set w1 gso_max_segs 1 &&
ip -n "$R" addr add $W_R4/25 dev w0 && ip -n "$H" addr add $W_H4/25 dev w1 &&
ip -n "$X" link set lo up && ip -n "$X" link set xr up && ip -n "$X" link set xh up &&
ip -n "$R" link set w0 up && ip -n "$H" link set w1 up || fail "router namespace"
# the remote sender is not capped at 4 MiB in flight (tcp_wmem's maximum)
in_remote sysctl -q -w net.ipv4.tcp_wmem="4096 16384 67108864"
bg ip netns exec "$X" "$WORK/delayline" -a xr -b xh -d 20 -t 120
wait_for in_host ping -c 1 -W 1 $W_R4 || fail "no path through the delay line"

start_pasta
make_file "$WORK/in" 32
want=$(sum "$WORK/in")
rmem1=$(in_host sysctl -n net.ipv4.tcp_rmem | awk '{ print $2 }')

# rb - receive buffer of pasta's socket to R over the delay line, bytes
rb() { in_host ss -Htm state established dst $W_R4 | sed -n 's/.*rb\([0-9]*\),.*/\1/p' | head -n 1; }

# 1. A reading guest
bg in_remote socat -u OPEN:"$WORK/in" TCP4-LISTEN:6700,bind=$W_R4,reuseaddr
wait_for in_remote sh -c "ss -ltn | grep -q ':6700 '" || fail "remote server"
peak=0
in_ns timeout 60 socat -u TCP4:$W_R4:6700 CREATE:"$WORK/out" &
cli=$!
while kill -0 $cli 2>/dev/null; do
	b=$(rb); [ -n "$b" ] && [ "$b" -gt "$peak" ] && peak=$b
	sleep 0.05
done
wait $cli || fail "download client failed"
[ "$(sum "$WORK/out")" = "$want" ] || fail "download corrupted or short ($(stat -c %s "$WORK/out") bytes)"
[ "$peak" -gt "$rmem1" ] || fail "receive buffer never grew: peak $peak, tcp_rmem[1] $rmem1"
log "reading guest: 32 MiB intact over 40 ms, host receive buffer up to $peak bytes (from $rmem1)"

# 2. A reader that stops: the buffer follows what the guest takes
cat > "$WORK/stopper.py" <<'PY'
import hashlib, socket, sys, time
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30)
h = hashlib.sha256(); n = 0
d = c.recv(65536)          # the first bytes, then stop for 4.5 s
h.update(d); n += len(d)
time.sleep(4.5)
while True:
    d = c.recv(1 << 20)
    if not d:
        break
    h.update(d); n += len(d)
print(n, h.hexdigest())
PY
bg in_remote socat -u OPEN:"$WORK/in" TCP4-LISTEN:6701,bind=$W_R4,reuseaddr
wait_for in_remote sh -c "ss -ltn | grep -q ':6701 '" || fail "remote server"
in_ns timeout 60 python3 "$WORK/stopper.py" $W_R4 6701 > "$WORK/stop.out" 2>&1 &
cli=$!
sleep 1.5
rb1=$(rb)
sleep 2
rb2=$(rb)
wait $cli || { cat "$WORK/stop.out"; fail "stopped reader: client failed"; }
[ "$(cat "$WORK/stop.out")" = "$((32 << 20)) $want" ] ||
	fail "stopped reader: got '$(cut -c1-40 "$WORK/stop.out")'"
[ -n "$rb1" ] && [ "$rb1" = "$rb2" ] ||
	fail "receive buffer grew while the guest took nothing: $rb1 -> $rb2"
log "stopped reader: buffer held at $rb1 bytes while stopped, 32 MiB intact after"
pasta_alive
pass "long path: host receive buffer grows with what the guest takes, transfers intact"
