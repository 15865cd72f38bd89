#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_icmp_inbound.sh - ICMP errors about the namespace's replies to a peer
# of a forwarded port (-u) come back to the namespace, as a program on the
# host itself gets them: a peer sends one datagram to port 4000 (pasta's,
# forwarded to the namespace) or 4001 (a program on H, for reference);
# the receiver answers the peer from a socket with IP_RECVERR/IPV6_RECVERR
# (ip(7), ipv6(7)) and prints the error its answer met, "TYPE CODE ERRNO
# FROM":
#   - the peer 198.51.100.3 (2001:db8:1::3) has closed its socket: its
#     kernel answers port unreachable (RFC 792 3/3, RFC 4443 1/4) from
#     its own address, ECONNREFUSED;
#   - the peer 203.0.113.9 (2001:db8:9::9) is behind R, whose firewall
#     rejects the answer (nftables "reject" on source port 4000 or 4001)
#     with host unreachable (3/1, EHOSTUNREACH) or administratively
#     prohibited (ICMPv6 1/1, EACCES) from R (198.51.100.2, 2001:db8:1::2).
# The namespace's line must equal H's.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_routed 1500 203.0.113.1/24 2001:db8:9::1/64 203.0.113.9/24 2001:db8:9::9/64
ip -n "$R" addr add 198.51.100.3/24 dev r0
ip -n "$R" addr add 2001:db8:1::3/64 dev r0 nodad
firewall "$R" <<'NFT'
ip daddr 203.0.113.9 udp sport { 4000, 4001 } reject with icmp type host-unreachable
ip6 daddr 2001:db8:9::9 udp sport { 4000, 4001 } reject with icmpv6 type admin-prohibited
NFT
start_pasta -u 4000

cat >"$WORK/answer.py" <<'PY'
import errno, select, socket, struct, sys, time
port, fam = int(sys.argv[1]), sys.argv[2]
af = socket.AF_INET6 if fam == '6' else socket.AF_INET
lvl = socket.IPPROTO_IPV6 if fam == '6' else socket.IPPROTO_IP
s = socket.socket(af, socket.SOCK_DGRAM)
s.setsockopt(lvl, 25 if fam == '6' else 11, 1)	# *_RECVERR
s.bind(('::' if fam == '6' else '0.0.0.0', port))
print('ready', flush=True)
s.settimeout(10)
data, peer = s.recvfrom(100)
time.sleep(1)	# the peer's socket is gone by then (its sender exited)
s.sendto(b'answer to ' + data, peer)
p = select.poll()
p.register(s, select.POLLERR)
if not p.poll(3000):
    print('none')
    sys.exit(0)
_, anc, _, _ = s.recvmsg(100, 512, socket.MSG_ERRQUEUE)
for l, t, d in anc:
    eerr, origin, typ, code = struct.unpack('IBBB', d[:7])
    off = d[20:24] if fam == '4' else d[24:40]
    print('%d %d %s %s' % (typ, code, errno.errorcode.get(eerr, eerr),
                           socket.inet_ntop(af, off)), flush=True)
PY
chmod 644 "$WORK/answer.py"

# answer WHERE PORT FAM SENDER-NS PEER - run the receiver (in_ns or
# in_host) on PORT, have SENDER-NS send from PEER to H's PORT
answer() {
	out=$WORK/answer.$1.$2.$5
	$1 python3 "$WORK/answer.py" $2 $3 >"$out" 2>&1 &
	_pid=$!
	track $_pid
	wait_for grep -q ready "$out" || { cat "$out"; fail "receiver on $2"; }
	case $3 in 6) dst=$H6 ;; *) dst=$H4 ;; esac
	ip netns exec "$4" python3 -c "
import socket, sys
s = socket.socket(socket.AF_INET6 if ':' in '$5' else socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('$5', 0))
s.sendto(b'question', ('$dst', $2))"
	wait $_pid
	grep -v ready "$out"
}

for c in "4 $R 198.51.100.3" "6 $R 2001:db8:1::3" "4 $D 203.0.113.9" "6 $D 2001:db8:9::9"; do
	set -- $c
	want=$(answer in_host 4001 $1 $2 $3)
	got=$(answer in_ns 4000 $1 $2 $3)
	log "answer to $3: host '$want', namespace '$got'"
	case "$want" in ''|none) fail "answer to $3: no error on H itself ('$want')" ;; esac
	[ "$got" = "$want" ] && continue
	grep -i -e udp -e icmp "$WORK/pasta.log" | tail -n 20
	fail "answer to $3: namespace got '$got', expected '$want'"
done

pasta_alive
stop_pasta
pass "ICMP errors about replies to -u peers reach the namespace from the node that sent them, IPv4 and IPv6"
