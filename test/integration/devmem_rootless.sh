#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# devmem_rootless.sh - Rootless pasta with --devmem: the kernel refuses the
# binding with EPERM (NETDEV_CMD_BIND_RX is GENL_ADMIN_PERM: CAP_NET_ADMIN
# in the initial user namespace), the log says so in one line, and a
# 64 MiB transfer through the daemon still arrives intact
#
# pasta runs as "nobody" with the testing-recipes.md rootless recipe (a
# private 0666 /dev/net/tun bind-mounted in a mount namespace), creates its
# own user and network namespaces and runs socat there; socat in R sends
# to H's address on the -t port.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
id nobody >/dev/null 2>&1 || skip "no user 'nobody'"
U="$WORK/u"
mkdir -m 1777 "$U"
make_file "$U/src" 64
chmod 644 "$U/src"
want=$(md5sum < "$U/src")

ip netns exec "$H" unshare -m sh -c "
	mknod -m 666 $U/tun c 10 200 && mount --bind $U/tun /dev/net/tun &&
	exec su -s /bin/sh nobody -c '$PASTA_BIN -f -d --config-net -t 5001 \
		--devmem h0 -- sh -c \"echo \\\$\\\$ > $U/pid; exec timeout 60 \
		socat -u TCP4-LISTEN:5001 OPEN:$U/dst,creat,trunc\"'
" >"$U/pasta.log" 2>&1 &
ppid=$!		# ip netns exec, exec'd into unshare, sh, then su: waits for pasta
track $ppid

# Wait for socat to listen inside pasta's namespace
wait_for test -s "$U/pid" || { cat "$U/pasta.log"; fail "pasta did not start its command"; }
netns="/proc/$(cat "$U/pid")/ns/net"
WAIT_S=20 wait_for sh -c "nsenter --net=$netns ss -Hltn | grep -q ':5001 '" ||
	{ cat "$U/pasta.log"; fail "socat not listening in pasta's namespace"; }

in_remote timeout 60 socat -u OPEN:"$U/src" TCP4:$H4:5001 ||
	{ cat "$U/pasta.log"; fail "socat client"; }
WAIT_S=30 wait_for sh -c "[ \"\$(md5sum < $U/dst)\" = '$want' ]" ||
	{ cat "$U/pasta.log"; fail "64 MiB arrived corrupted or incomplete"; }
log "64 MiB intact through rootless pasta"

# pasta exits with its command; look at what it said
WAIT_S=10 wait_for sh -c "! kill -0 $ppid" || fail "pasta did not exit with its command"
cat "$U/pasta.log"
n=$(grep -c 'devmem:' "$U/pasta.log")
[ "$n" = 1 ] || fail "$n devmem lines, want one"
grep -q 'devmem: BIND_RX on h0: EPERM: binding needs CAP_NET_ADMIN in the initial user namespace, so rootless pasta never gets devmem; using the peek path' \
	"$U/pasta.log" || fail "no EPERM line"
grep -q 'TCP reader: SO_PEEK_OFF' "$U/pasta.log" || fail "not on the peek path"
if grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error:' "$U/pasta.log"; then
	fail "sanitizer report in pasta log"
fi
pass "rootless --devmem: EPERM line, peek path, 64 MiB intact"
