/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_rcvbuf.h - Receive buffer of the host socket grown with what
 * the guest takes (passt/tcp_rcvbuf.c)
 */
#ifndef PASST_TCP_RCVBUF_H
#define PASST_TCP_RCVBUF_H

#include <stdint.h>

struct ctx;
struct tcp_conn;

#define TCP_RCVBUF_MAX		(1U << 30)	/* bytes, window asked at most
						 * (the kernel caps it at
						 * tcp_rmem[2] / 2)
						 */
#define TCP_RCVBUF_MIN_BYTES	(64U << 10)	/* bytes per period to look */
#define TCP_RCVBUF_MIN_RTT_US	5000	/* us, shorter paths: kernel's own */
#define TCP_RCVBUF_PERIOD_MS	10	/* ms, shortest period */
#define TCP_RCVBUF_SHORT_MS	250	/* ms, period on a short path */

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
uint32_t tcp_rcvbuf_target(uint32_t taken, uint32_t prev);
#endif
uint64_t tcp_rcvbuf_raised(void);
void tcp_rcvbuf_taken(const struct ctx *ctx, struct tcp_conn *conn,
		      uint32_t bytes);

#endif /* PASST_TCP_RCVBUF_H */
