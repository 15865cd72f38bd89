#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_fin_slow_reader.sh - The guest uploads and sends its FIN while the
# host's reader has stopped reading: pasta must sit idle until the reader
# goes on, then every byte must arrive.
#
# 12 connections from the namespace to a server on the host's loopback
# (through the gateway address) upload 3.6 to 5.6 MB each and shut down
# their write side; the server reads 256 KiB of each, stops for 4 s, then
# reads the rest.  The uploads fit in the host socket's buffers, so the
# guest's FIN arrives and pasta calls shutdown(SHUT_WR) while the send
# buffer is still more than 2/3 full.  tcp_poll() (net/ipv4/tcp.c) reports
# EPOLLOUT on every poll of a socket whose write side is shut down: a flow
# that re-arms EPOLLOUT (EPOLL_CTL_MOD) to wait for send buffer space is
# woken again at once, forever.  Before the fix pasta used a whole CPU
# while the reader was stopped (about 250 of 250 ticks in 2.5 s, with 4.5
# to 5 MB uploads about one run in three with one connection, every run
# with 12).  At most 10% of a CPU is allowed here.  One reader back-end is
# enough: the loop was in the window update, which both share.
# asan: no (a CPU-time measure)
. "$(dirname "$0")/lib.sh"

T="python3 -u $(dirname "$0")/stresstool.py"
HZ=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
setup_topology

start_pasta
STRESS_PAUSE=4 bg in_host $T serve 7100 "$WORK/srv.log" --bind 127.0.0.1
wait_for in_host sh -c "ss -ltn | grep -q '127.0.0.1:7100 '" ||
	fail "server"

bg in_ns $T run $R4 7100 "$WORK/cli.log" 12 12 --mix finpause --time 60
client=$BG_PID
sleep 1			# uploads and FINs done, the reader stopped
c0=$(cpu $PASTA_PID)
sleep 2.5
c1=$(cpu $PASTA_PID)
wait $client || fail "uploads"
$T check "$WORK/srv.log" "$WORK/cli.log" --wait 30 ||
	fail "data differs"
limit=$(( HZ * 25 / 100 ))
log "$((c1 - c0)) ticks in 2.5 s while the reader was stopped (limit $limit)"
[ $((c1 - c0)) -le $limit ] ||
	fail "pasta used $((c1 - c0)) ticks in 2.5 s with the reader stopped"
pasta_alive
stop_pasta
pass "FIN from the guest with the host reader stopped: no busy loop, data intact"
