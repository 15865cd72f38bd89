#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# files_symlink.sh - passt started as root never writes through a symbolic
# link planted at the path of --pid, --pcap or --log-file: it exits with
# status 1, the message names the option and says the path is a symbolic
# link, and the file the link points to keeps its content.  A FIFO planted
# there is refused without blocking.  With plain paths the files are
# written (the pid file holds passt's PID, the capture starts with the pcap
# magic), and the socket file belongs to the user passt runs as (65534,
# --runas default when started as root).
#
# Expected values: open(2) O_NOFOLLOW (ELOOP for a link as last
# component); fifo(7) (a FIFO opened for writing without reader and
# O_NONBLOCK gives ENXIO instead of blocking); pcap magic a1b2c3d4
# (draft-ietf-opsawg-pcap section 4), written in host byte order.
# asan: yes
. "$(dirname "$0")/lib.sh"

setup_topology
chmod 1777 "$WORK"
printf 'precious\n' > "$WORK/victim"
ln -s "$WORK/victim" "$WORK/planted"
ln -s "$WORK/nothing-here" "$WORK/dangling"
mkfifo "$WORK/fifo"

for opt in --pid --pcap --log-file; do
	for p in planted dangling; do
		out=$(timeout 10 ip netns exec "$H" "$PASST_BIN" -f -q \
			-s "$WORK/x.sock" $opt "$WORK/$p" 2>&1); rc=$?
		[ $rc -eq 1 ] || fail "$opt $p: exit status $rc, expected 1: $out"
		echo "$out" | grep -q -- "$opt" ||
			fail "$opt $p: message doesn't name the option: $out"
		echo "$out" | grep -q "symbolic link" ||
			fail "$opt $p: message doesn't say symbolic link: $out"
		[ "$(cat "$WORK/victim")" = precious ] ||
			fail "$opt $p: the link's target was written"
		[ ! -e "$WORK/nothing-here" ] ||
			fail "$opt $p: the dangling link's target was created"
		[ ! -e "$WORK/x.sock" ] || fail "$opt $p: socket file left"
	done
	out=$(timeout 10 ip netns exec "$H" "$PASST_BIN" -f -q \
		-s "$WORK/x.sock" $opt "$WORK/fifo" 2>&1); rc=$?
	[ $rc -eq 1 ] || fail "$opt FIFO: exit status $rc, expected 1: $out"
	echo "$out" | grep -q -- "$opt" ||
		fail "$opt FIFO: message doesn't name the option: $out"
done
log "--pid, --pcap, --log-file: links and FIFOs refused, targets intact"

# Plain paths, new files: written; the socket belongs to nobody
start_passt "$WORK/ok.sock" --pid "$WORK/ok.pid" --pcap "$WORK/ok.pcap" \
	--log-file "$WORK/ok.log"
wait_for test -s "$WORK/ok.pid" || fail "pid file empty"
[ "$(cat "$WORK/ok.pid")" = "$PASST_PID" ] ||
	fail "pid file has $(cat "$WORK/ok.pid"), passt is $PASST_PID"
magic=$(od -An -tx4 -N4 "$WORK/ok.pcap" | tr -d ' ')
[ "$magic" = a1b2c3d4 ] || fail "pcap magic $magic"
[ "$(stat -c %u "$WORK/ok.sock")" = 65534 ] ||
	fail "socket owned by $(stat -c %u "$WORK/ok.sock"), expected 65534"
[ "$(stat -c %a "$WORK/ok.pcap")" = 600 ] ||
	fail "pcap mode $(stat -c %a "$WORK/ok.pcap"), expected 600"
# shellcheck disable=SC2010 # any name ending in ~, hidden ones too
ls -a "$WORK" | grep -q '~$' && { ls -a "$WORK"; fail "temporary file left"; }
stop_passt
pass "no write through planted links; plain files and socket owner right"
