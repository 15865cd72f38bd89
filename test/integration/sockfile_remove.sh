#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sockfile_remove.sh - Socket files (-s, -c) are removed at exit by a
# helper, not by the isolated daemon (issue 26 item 7):
#  - passt started as root in a sticky directory (like /tmp): the daemon
#    holds no descriptor of a directory at all (resolv.conf's, for
#    following the host, is held by the passt-resolv helper); the helpers
#    (passt-sockfile and passt-resolv, children of the daemon) run as
#    65534 with no capabilities, no_new_privs and a seccomp filter; the
#    pid file (-P) holds the daemon's PID;
#  - after SIGTERM both files are gone as soon as the daemon has exited;
#  - after SIGKILL of the daemon, the helper still removes them;
#  - a file put at the name meanwhile (not our socket) is left alone;
#  - rootless pasta (nobody, /dev/net/tun 0666 in a private mount
#    namespace) creates its -c socket (mode 0600, no warning about its
#    owner: it is root only in its own user namespace) and the helper
#    removes it when pasta exits after its command.
#
# Expected values: proc(5) (/proc/PID/fd links, "Seccomp: 2" filter mode,
# NoNewPrivs, CapEff); nobody is 65534 (passt.1, --runas).
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
D="$WORK/s"
mkdir -m 1777 "$D"

# start - passt with both sockets in $D, PID file; sets pid and helper
start() {
	rm -f "$WORK/pid"
	ip netns exec "$H" "$PASST_BIN" -f -q -s "$D/p.sock" -c "$D/c.sock" \
		-P "$WORK/pid" >"$WORK/passt.log" 2>&1 &
	pid=$!
	track $pid
	wait_for grep -q '^Seccomp:[[:space:]]*2' /proc/$pid/status ||
		{ cat "$WORK/passt.log"; fail "passt not isolated"; }
	# a forked helper takes its name (prctl()) when it's scheduled
	# shellcheck disable=SC2009 # the full ps lines, for the log
	wait_for pgrep -P $pid -x passt-sockfile ||
		{ ps -ef | grep "[p]asst"; fail "no passt-sockfile helper"; }
	helper=$(pgrep -P $pid -x passt-sockfile)
	track $helper
	[ -S "$D/p.sock" ] && [ -S "$D/c.sock" ] || fail "socket files missing"
}

start
[ "$(cat "$WORK/pid")" = "$pid" ] || fail "pid file: $(cat "$WORK/pid"), daemon is $pid"
# No directory at all, none of the socket files' directories and not
# resolv.conf's: the passt-resolv helper keeps that one (passt.1,
# FOLLOWING THE HOST)
for f in "/proc/$pid/fd/"*; do
	[ -d "$f" ] || continue
	fail "daemon holds a directory: $f -> $(readlink "$f")"
done
# shellcheck disable=SC2009 # the full ps lines, for the log
wait_for pgrep -P $pid -x passt-resolv ||
	{ ps -ef | grep "[p]asst"; fail "no passt-resolv helper"; }
resolv=$(pgrep -P $pid -x passt-resolv)
# confined PID - PID runs as 65534, no capabilities, no_new_privs, seccomp
confined() {
	for f in Uid:65534 CapEff:0000000000000000 NoNewPrivs:1 Seccomp:2; do
		v=$(awk -v k="${f%%:*}:" '$1 == k { print $2 }' /proc/$1/status)
		[ "$v" = "${f#*:}" ] || { echo "${f%%:*} is $v, expected ${f#*:}"; return 1; }
	done
}
for h in $helper $resolv; do	# each confines itself once forked
	wait_for confined $h || fail "helper $h: $(confined $h)"
done
log "daemon: no directory descriptor; helpers $helper (sockfile), $resolv (resolv.conf): 65534, no capabilities, no_new_privs, seccomp"

kill $pid
wait $pid
[ ! -e "$D/p.sock" ] || fail "SIGTERM: -s socket file left"
[ ! -e "$D/c.sock" ] || fail "SIGTERM: -c socket file left"
log "SIGTERM: both files gone when the daemon's exit was seen"

start
kill -KILL $pid
wait $pid 2>/dev/null
wait_for sh -c "[ ! -e '$D/p.sock' ] && [ ! -e '$D/c.sock' ]" ||
	fail "SIGKILL: socket files left"
log "SIGKILL: both files removed by the helper"

start
# Replaced by a file of the helper's user, which it could remove
rm -f "$D/c.sock"
setpriv --reuid 65534 --regid 65534 --clear-groups sh -c "echo mine > '$D/c.sock'"
kill $pid
wait $pid
[ ! -e "$D/p.sock" ] || fail "-s socket file left"
[ "$(cat "$D/c.sock" 2>/dev/null)" = mine ] || fail "a file that replaced the socket was removed"
# Rootless pasta: the command lists the directory while pasta runs
cat > "$WORK/cmd.sh" <<SH
#!/bin/sh
stat -c '%a %F' "$D/r.ctl" > "$D/seen" 2>&1
exit 7
SH
chmod 755 "$WORK/cmd.sh"
in_host unshare -m sh -c "mknod -m 666 $WORK/tun c 10 200 &&
	mount --bind $WORK/tun /dev/net/tun &&
	exec setpriv --reuid=65534 --regid=65534 --clear-groups \
		$PASTA_BIN --config-net -q -c $D/r.ctl -- $WORK/cmd.sh" \
	> "$WORK/run.log" 2>&1
rc=$?
[ $rc = 7 ] || { cat "$WORK/run.log"; fail "rootless pasta: exit status $rc, expected 7"; }
[ "$(cat "$D/seen")" = "600 socket" ] || fail "rootless pasta: -c file was: $(cat "$D/seen")"
grep -qi chown "$WORK/run.log" && { cat "$WORK/run.log"; fail "rootless pasta: warning about the owner"; }
[ ! -e "$D/r.ctl" ] || fail "rootless pasta: -c socket file left"
log "rootless pasta: -c socket 0600, removed at exit"
pass "socket files removed at exit by the helper, only if still ours"
