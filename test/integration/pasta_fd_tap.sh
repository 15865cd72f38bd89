#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_fd_tap.sh - pasta -F FD: a tap device the caller created in the
# target namespace and passes open (upstream accepts --fd in pasta mode)
#
# A helper opens /dev/net/tun in N and attaches it to a new tap device
# (TUNSETIFF, Documentation/networking/tuntap.rst), then runs pasta in H
# with the descriptor inherited and --netns N --config-net.  Once with
# IFF_TAP | IFF_NO_PI, once with IFF_VNET_HDR too: pasta configures that
# device (its name, -m 1400), and 2 MiB from N to a server on H's loopback
# (through the gateway address) arrive whole (sha256).  Refused with exit status 1 and a line naming -F/--fd:
# a descriptor that is no tap device, and -F without --netns or PID.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
make_target_ns
make_file "$WORK/in" 2
want=$(sum "$WORK/in")

# run_fd NAME FLAGS - create tap NAME in N with FLAGS, run pasta on it
run_fd() {
	rm -f "$WORK/fd.pid"
	ip netns exec "$N" python3 -c '
import fcntl, os, struct, sys
name, flags = sys.argv[1], int(sys.argv[2], 0)
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH22x", name.encode(), flags))
os.set_inheritable(fd, True)
os.execvp("ip", ["ip", "netns", "exec", sys.argv[3], sys.argv[4], "-f",
		 "-d", "-m", "1400", "--config-net", "--netns", sys.argv[5],
		 "--pid", sys.argv[6], "-F", str(fd)])
' "$1" "$2" "$H" "$PASTA_BIN" "/run/netns/$N" "$WORK/fd.pid" \
		>"$WORK/pasta.log" 2>&1 &
	PASTA_PID=$!
	track $PASTA_PID
	wait_for test -s "$WORK/fd.pid" ||
		{ cat "$WORK/pasta.log"; fail "$1: pasta wrote no PID file"; }
	wait_for sh -c "ip -n $N -o addr show dev $1 | grep -q 'inet .*global'" ||
		{ cat "$WORK/pasta.log"; fail "$1: no address on the caller's tap"; }
	ip -n "$N" -o link show "$1" | grep -q 'mtu 1400 ' ||
		fail "$1: -m 1400 not set: $(ip -n "$N" -o link show "$1")"
	rm -f "$WORK/out"
	bg in_host socat -u TCP4-LISTEN:7100,bind=127.0.0.1,reuseaddr \
		OPEN:"$WORK/out",creat,trunc
	wait_for in_host sh -c "ss -ltn | grep -q ':7100 '" ||
		fail "$1: no server"
	in_ns socat -u OPEN:"$WORK/in" TCP4:$R4:7100 ||
		{ cat "$WORK/pasta.log"; fail "$1: socat to the host"; }
	WAIT_S=20 wait_for sh -c "[ \"\$(sha256sum <$WORK/out | cut -d' ' -f1)\" = $want ]" ||
		fail "$1: $(stat -c %s "$WORK/out") of 2 MiB arrived intact"
	log "ok: $1 (flags $2): 2 MiB to the host, sha256 matches"
	stop_pasta
}

run_fd tapf0 0x1002		# IFF_TAP | IFF_NO_PI
ip -n "$N" link del tapf0 2>/dev/null
run_fd tapf1 0x5002		# ... | IFF_VNET_HDR

# Refused: a descriptor that isn't a tap device, and no namespace
rc=0
in_host "$PASTA_BIN" --netns "/run/netns/$N" -F 0 </dev/null \
	>"$WORK/err" 2>&1 || rc=$?
[ $rc = 1 ] && grep -q -- "-F/--fd" "$WORK/err" ||
	fail "-F 0 (/dev/null): status $rc: $(cat "$WORK/err")"
rc=0
ip netns exec "$N" python3 -c '
import fcntl, os, struct, sys
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH22x", b"tapf2", 0x1002))
os.set_inheritable(fd, True)
os.execvp(sys.argv[1], [sys.argv[1], "-F", str(fd), "--", "true"])
' "$PASTA_BIN" >"$WORK/err" 2>&1 || rc=$?
[ $rc = 1 ] && grep -q -- "-F/--fd: needs .*--netns" "$WORK/err" ||
	fail "-F without --netns: status $rc: $(cat "$WORK/err")"
pass "pasta -F: the caller's tap device, with and without IFF_VNET_HDR"
