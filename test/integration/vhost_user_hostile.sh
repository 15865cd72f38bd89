#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vhost_user_hostile.sh - a hostile vhost-user front-end can't hang passt
#
# Issue 26, items 4, 5, 6 and 9.  vhosttool.py plays a front-end that
# attacks through the descriptors it passes (file status flags such as
# O_NONBLOCK belong to the open file, which the front-end shares with us:
# fcntl(2), open(2) "open file description"):
#   kick_blocking   clears O_NONBLOCK on its kick eventfd and kicks
#   kick_semaphore  an EFD_SEMAPHORE kick eventfd holding 2^62 (eventfd(2):
#                   each read takes 1); passt's CPU time is measured
#   call_full       a call eventfd at 2^64-2 without O_NONBLOCK (eventfd(2):
#                   a write that would pass 0xfffffffffffffffe blocks)
#   kick_pipe, call_pipe, kick_memfd   descriptors that aren't eventfds
#   hugetlb         a sealed hugetlbfs memfd with no huge page free: our
#                   first access faults (SIGBUS, as with a shrunk file)
#   hugetlb_small   the same, a 64 KiB region of it (a huge page can't be
#                   split: the zero pages must cover all of it)
#   badavail        an available index more than the queue size ahead
#                   (virtio 1.x 2.7.6: at most the queue size)
# The first three must be served (the front-end gets its GET_FEATURES
# answer on the same connection), the others dropped (connection closed);
# after each, the next front-end is served; at the end passt still runs,
# and SIGTERM ends it within 10 s.  CASES="a b" runs only those (to see
# each one fail without its fix).
# asan: yes
. "$(dirname "$0")/lib.sh"

T="python3 $(dirname "$0")/vhosttool.py"
CASES=${CASES:-kick_blocking kick_semaphore call_full kick_pipe call_pipe \
	kick_memfd hugetlb hugetlb_small badavail}

setup_topology
mkdir -m 1777 "$WORK/s"
S=$WORK/s/vu.sock
start_passt "$S" --vhost-user
PASST_PID=$PASST_PID timeout 120 ip netns exec "$H" $T "$S" hostile $CASES ||
	{ tail -n 20 "$WORK/passt.log"; fail "a hostile front-end harmed passt"; }
kill -0 "$PASST_PID" 2>/dev/null ||
	{ tail -n 20 "$WORK/passt.log"; fail "passt died"; }
for c in $CASES; do
	case $c in
	*_pipe|*_memfd) n=$(grep -c "descriptor is not an eventfd" "$WORK/passt.log")
		[ "$n" -ge 1 ] || fail "$c: no log line for the descriptor kind" ;;
	badavail) grep -q "queue 0: .*dropping the front-end" "$WORK/passt.log" ||
		fail "badavail: no log line" ;;
	esac
done
kill "$PASST_PID"
i=0
while kill -0 "$PASST_PID" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -0 "$PASST_PID" 2>/dev/null && fail "passt ignores SIGTERM"
stop_passt	# sanitizer reports
pass "hostile vhost-user front-ends: served or dropped, passt unharmed"
