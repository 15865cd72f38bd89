// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp_rcvbuf.c - Grow the host socket's receive buffer with what the
 * guest takes, not with what happens to be left in the queue
 *
 * The kernel sizes a TCP socket's receive buffer by itself (dynamic
 * right-sizing, tcp_rcv_space_adjust() in net/ipv4/tcp_input.c): once per
 * receiver RTT it looks at the bytes the application read in that RTT and
 * lets the buffer, and so the window the sender sees, hold about twice
 * that, more while the rate keeps growing.  Since Linux 6.16 ("tcp: add
 * receive queue awareness in tcp_rcv_space_adjust()") it first subtracts
 * the bytes still in the receive queue at that moment, and the moment is
 * the first recvmsg() after the RTT is up.  For us that call is nearly
 * always the MSG_PEEK of a segment that has just arrived, and the queue
 * also holds what the guest hasn't ACKed yet: every measurement comes out
 * a segment or more short (tracepoint tcp:tcp_rcvbuf_grow: copied=80532
 * inq=8948 where a program reading the socket itself had copied=107376
 * inq=0).  On a long path in slow start a round is a handful of segments,
 * so the buffer grows at a fraction of the rate, and a BBR sender leaves its
 * startup phase with a bandwidth estimate a tenth of the path's and stays
 * there (test/bench W cells: 0.04 Gbit/s instead of 0.6 at 40 ms one way
 * and 1 % loss, in 3 of 8 runs).
 *
 * So we count what the guest took (ACKed, and so dropped from the queue)
 * per receiver RTT ourselves.  Where that is more than the kernel's own
 * figure (TCP_INFO tcpi_rcv_space), the buffer is raised to what our count
 * calls for.  SO_RCVBUF would lock the buffer's size (no more autotuning);
 * SO_RCVLOWAT doesn't: setting it grows sk_rcvbuf to hold that many bytes,
 * up to net.ipv4.tcp_rmem[2], and sets the window clamp to it
 * (tcp_set_rcvlowat(), net/ipv4/tcp.c).  We set it back to 1 at once, so
 * the socket wakes us as before.  Growth only ever follows bytes the guest
 * took: a guest that stops reading never grows a buffer, and the kernel
 * keeps growing it further by itself where its own figure is higher.
 * Paths under TCP_RCVBUF_MIN_RTT_US are left to the kernel: there a round
 * carries enough segments for one missing not to matter.
 */

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "../lib/visible.h"
#include "ctx.h"
#include "tcp_internal.h"
#include "tcp_rcvbuf.h"


/* Host receive buffers raised (SO_RCVLOWAT set and reset) */
static uint64_t tcp_rcvbuf_raised_n;

/**
 * tcp_rcvbuf_raised() - How many times a host receive buffer was raised
 *
 * Return: count since start, for tcp_stats_print()
 */
uint64_t tcp_rcvbuf_raised(void)
{
	return tcp_rcvbuf_raised_n;
}

/**
 * tcp_rcvbuf_target() - Window to allow after a period of receiving
 * @taken:	Bytes the guest took in the last period (one receiver RTT)
 * @prev:	Bytes it took in the period before, 0 if none
 *
 * Twice a period's bytes, as the kernel's right-sizing allows (its
 * measurement is one RTT late, and the sender may double in that RTT),
 * plus four times the growth since the previous period, relative to it,
 * so that a sender still doubling per round isn't held back:
 * 2 * taken + 4 * taken * (taken - prev) / prev, or 4 * taken with no
 * previous period.
 *
 * Return: window, bytes, at most TCP_RCVBUF_MAX
 */
VISIBLE_IF_UNIT
uint32_t tcp_rcvbuf_target(uint32_t taken, uint32_t prev)
{
	uint64_t w = 2ULL * taken;

	if (taken >= TCP_RCVBUF_MAX / 2)
		return TCP_RCVBUF_MAX;	/* and 4 * taken * taken fits below */
	if (!prev)
		w += 2ULL * taken;
	else if (taken > prev)
		w += 4ULL * taken * (taken - prev) / prev;
	return w > TCP_RCVBUF_MAX ? TCP_RCVBUF_MAX : (uint32_t)w;
}

/**
 * tcp_rcvbuf_taken() - The guest took bytes of the host socket's queue
 * @ctx:	Context (ctx->now, ms)
 * @conn:	Connection, with a host socket
 * @bytes:	Bytes just ACKed by the guest and dropped from the queue
 *
 * Counts @bytes; once a period (the socket's receiver RTT, from TCP_INFO
 * tcpi_rcv_rtt or, before it has one, tcpi_rtt; at least
 * TCP_RCVBUF_PERIOD_MS) is over, compares the count
 * with the kernel's (tcpi_rcv_space) and raises the buffer where ours is
 * higher and growing, see the file comment.
 *
 * Context: main loop, from tcp_ack_from_tap(), host socket of @conn
 * #syscalls getsockopt setsockopt
 */
void tcp_rcvbuf_taken(const struct ctx *ctx, struct tcp_conn *conn,
		      uint32_t bytes)
{
	uint32_t taken, prev, rtt_us, now = (uint32_t)ctx->now;
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);

	conn->rcvbuf_taken += bytes;
	if (now - conn->rcvbuf_ms < conn->rcvbuf_period_ms)
		return;

	taken = conn->rcvbuf_taken;
	prev = conn->rcvbuf_prev;
	conn->rcvbuf_prev = taken;
	conn->rcvbuf_taken = 0;
	conn->rcvbuf_ms = now;
	conn->rcvbuf_period_ms = TCP_RCVBUF_PERIOD_MS;
	if (taken < TCP_RCVBUF_MIN_BYTES ||
	    getsockopt(conn->sock, IPPROTO_TCP, TCP_INFO, &ti, &sl) < 0 ||
	    sl < offsetof(struct tcp_info, tcpi_rcv_space) +
		 sizeof(ti.tcpi_rcv_space))
		return;

	/* The receiver's RTT estimate takes a few full segments: before,
	 * the handshake's (tcpi_rtt), which is as long on a long path
	 */
	rtt_us = ti.tcpi_rcv_rtt ? ti.tcpi_rcv_rtt : ti.tcpi_rtt;
	if (rtt_us < TCP_RCVBUF_MIN_RTT_US) {
		/* short path: the kernel's figure is good, look again only
		 * now and then, the path may get longer
		 */
		if (rtt_us)
			conn->rcvbuf_period_ms = TCP_RCVBUF_SHORT_MS;
		return;
	}
	conn->rcvbuf_period_ms = rtt_us / 1000;

	if (taken > ti.tcpi_rcv_space && taken > prev) {
		int w = (int)tcp_rcvbuf_target(taken, prev), one = 1;

		if (!setsockopt(conn->sock, SOL_SOCKET, SO_RCVLOWAT,
				&w, sizeof(w))) {
			setsockopt(conn->sock, SOL_SOCKET, SO_RCVLOWAT,
				   &one, sizeof(one));
			tcp_rcvbuf_raised_n++;
		}
	}
}
