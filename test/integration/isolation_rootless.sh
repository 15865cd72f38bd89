#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# isolation_rootless.sh - pasta and passt started by an unprivileged user
#
# As user nobody (/dev/net/tun made usable by a private bind mount, as in
# testing-recipes.md), pasta creates a user and network namespace for its
# command, passt none.  Both must end up with no capabilities (over their own
# user namespace), empty bounding and ambient sets, no_new_privs, a seccomp
# filter and an empty root, in mount/IPC/UTS namespaces of their own; passt
# gets there through a user namespace it creates.  Both must still work: a
# TCP transfer from pasta's command, an ARP reply from passt (RFC 826).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_isolation.sh"

here=$(cd "$(dirname "$0")" && pwd)
setup_topology
id nobody >/dev/null 2>&1 || skip "no user nobody"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
d="$WORK/u"
mkdir -m 1777 "$d"

# as_nobody CMD - run CMD (a string) as nobody in H, /dev/net/tun usable
as_nobody() {
	ip netns exec "$H" unshare -m sh -c "rm -f $d/tun && mknod -m 666 $d/tun c 10 200 &&
		mount --bind $d/tun /dev/net/tun &&
		exec su -s /bin/sh nobody -c '$1'"
}

# pasta, with a command that fetches 1 MiB from H's loopback via the gateway
bg in_host python3 "$here/tcptool.py" serve-pattern 5100
# listening before pasta's command connects (Python starts slowly on a
# loaded machine)
wait_for in_host sh -c "ss -Htln | grep -q ':5100 '" || fail "no server on 5100"
as_nobody "$PASTA_BIN -f --config-net -P $d/pasta.pid -- sh -c \"sleep 1; /usr/bin/python3 $here/tcptool.py fetch $R4 5100 rl 1048576 >$d/fetch.out 2>&1; echo \\\$? >$d/fetch.rc; sleep 60\"" >"$WORK/pasta.log" 2>&1 &
track $!
wait_for test -s "$d/pasta.pid" || { cat "$WORK/pasta.log"; fail "pasta as nobody: no pid file"; }
pid=$(cat "$d/pasta.pid"); track $pid
expect_isolated $pid $CAP_NONE
expect_field $pid Uid "$(id -u nobody)"
expect_ns_detached $pid $$ user mnt ipc uts
WAIT_S=30 wait_for test -s "$d/fetch.rc" || { cat "$WORK/pasta.log"; fail "pasta as nobody: the command's fetch didn't finish"; }
[ "$(cat "$d/fetch.rc")" = 0 ] || { cat "$d/fetch.out" "$WORK/pasta.log"; fail "pasta as nobody: fetch failed"; }
log "pasta as nobody: $(cat "$d/fetch.out")"
kill $pid

# passt: its own user namespace, then the same
as_nobody "$PASST_BIN -f -s $d/passt.socket -P $d/passt.pid" >"$WORK/passt.log" 2>&1 &
track $!
wait_for test -s "$d/passt.pid" || { cat "$WORK/passt.log"; fail "passt as nobody: no pid file"; }
pid=$(cat "$d/passt.pid"); track $pid
expect_isolated $pid $CAP_NONE
expect_ns_detached $pid $$ user mnt ipc uts
mac=$(in_host timeout 20 python3 "$here/arp_probe.py" "$d/passt.socket" $H4 $R4) ||
	{ cat "$WORK/passt.log"; fail "passt as nobody: no ARP reply"; }
log "passt as nobody: ARP reply, $R4 is at $mac"
kill $pid

pass "unprivileged pasta and passt: isolated in their own user namespaces, and working"
