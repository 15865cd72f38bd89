#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# isolation_pasta.sh - pasta started as root: isolated once set up, still working
#
# After set-up the daemon must run as nobody with no capability (or only
# CAP_NET_BIND_SERVICE when -t asked for a port below 1024), empty bounding
# and ambient sets, no_new_privs and a seccomp filter (proc(5) fields), an
# empty root directory, and mount/IPC/UTS namespaces of its own, while it
# stays in the network namespace it was started in.  A descriptor it
# inherited must be closed.  Traffic must still flow, SIGUSR1 must dump the
# counters, SIGTERM must end it with status 0, and so must the deletion of
# its --netns namespace.  The namespace socket helper it forks must be
# isolated the same way.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_isolation.sh"

setup_topology
nobody_uid=$(id -u nobody) || skip "no user nobody"
nobody_gid=$(id -g nobody)

# An inherited descriptor, 9, on a file: it must not stay open
exec 9>"$WORK/inherited"
start_pasta
exec 9>&-
pid=$PASTA_PID
expect_isolated $pid $CAP_NONE
expect_field $pid Uid "$nobody_uid"
expect_field $pid Gid "$nobody_gid"
[ -z "$(awk '$1 == "Groups:" { $1 = ""; print }' /proc/$pid/status | tr -d ' ')" ] ||
	fail "supplementary groups left: $(grep Groups /proc/$pid/status)"
expect_ns_detached $pid $$ mnt ipc uts
hostnet=$(in_host readlink /proc/self/ns/net)
[ "$(readlink /proc/$pid/ns/net)" = "$hostnet" ] ||
	fail "the daemon left the host network namespace"
# shellcheck disable=SC2010 # the targets of the links, not their names
ls -l /proc/$pid/fd | grep -q "$WORK/inherited" &&
	fail "inherited descriptor 9 still open: $(ls -l /proc/$pid/fd)"
grep -q "running as UID $nobody_uid" "$WORK/pasta.log" ||
	fail "no 'running as UID' line"

# Traffic through the isolated daemon: TCP and ping to the gateway address,
# which stands for H's loopback
bg in_host python3 "$(dirname "$0")/tcptool.py" serve-pattern 5100
# listening before the fetch (Python starts slowly on a loaded machine)
wait_for in_host sh -c "ss -Htln | grep -q ':5100 '" || fail "no server on 5100"
in_ns timeout 30 python3 "$(dirname "$0")/tcptool.py" fetch $R4 5100 iso 1048576 ||
	fail "TCP through the isolated daemon"
in_ns ping -c1 -W5 $R4 >/dev/null || fail "ping through the isolated daemon"

# Counters on SIGUSR1 (logged through the filter)
kill -USR1 $pid
wait_for grep -q "stats: TCP flows opened" "$WORK/pasta.log" ||
	{ cat "$WORK/pasta.log"; fail "no counters after SIGUSR1"; }
pasta_alive

kill $pid
wait $pid; rc=$?
[ $rc -eq 0 ] || { cat "$WORK/pasta.log"; fail "exit status $rc after SIGTERM"; }
PASTA_PID=""

# A port below 1024: CAP_NET_BIND_SERVICE stays, nothing else
start_pasta -t 80
expect_isolated $PASTA_PID $CAP_NET_BIND_SERVICE_ONLY
stop_pasta

# --runas a given user: that user, as a number
start_pasta --runas 12345:23456 -t 5101
expect_isolated $PASTA_PID $CAP_NONE
expect_field $PASTA_PID Uid 12345
expect_field $PASTA_PID Gid 23456

# The namespace socket helper (spliced connections to -t ports): the same
# user, no capability, its own mount/IPC/UTS namespaces and an empty root,
# in the target network namespace
helper=$(pgrep -P $PASTA_PID -x pasta-nsock) || fail "no pasta-nsock helper"
expect_isolated $helper $CAP_NONE
expect_field $helper Uid 12345
expect_field $helper Gid 23456
expect_ns_detached $helper $$ mnt ipc uts
[ "$(readlink /proc/$helper/ns/net)" = "$(in_ns readlink /proc/self/ns/net)" ] ||
	fail "helper not in the target network namespace"
stop_pasta

# --runas 0 as root: stays UID 0, with no capability left, one warning
ip netns exec "$H" "$PASTA_BIN" -f --config-net --runas 0 -t none -u none \
	-T none -U none --netns "/run/netns/$N" >"$WORK/root.log" 2>&1 &
p=$!; track $p
expect_isolated $p $CAP_NONE
expect_field $p Uid 0
[ "$(grep -c -- '--runas 0' "$WORK/root.log")" -eq 1 ] ||
	{ cat "$WORK/root.log"; fail "--runas 0: not exactly one warning"; }
kill $p; wait $p

# The file system is gone, yet "ip netns del" must still end pasta (inotify
# on /run/netns), with status 0
start_pasta
wait_isolated $PASTA_PID
ip netns del "$N" || fail "ip netns del $N while pasta runs"
WAIT_S=10 wait_for sh -c "! kill -0 $PASTA_PID" ||
	fail "pasta still running after its namespace was deleted"
wait $PASTA_PID; rc=$?
[ $rc -eq 0 ] || { cat "$WORK/pasta.log"; fail "exit status $rc after the namespace went away"; }
grep -q "target namespace is gone" "$WORK/pasta.log" ||
	fail "no message about the namespace going away"
PASTA_PID=""

pass "isolated after set-up: nobody, no capabilities, no_new_privs, seccomp, empty root, own mnt/ipc/uts"
