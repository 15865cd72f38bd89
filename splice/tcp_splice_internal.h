/* SPDX-License-Identifier: GPL-2.0-or-later */
/* splice/tcp_splice_internal.h - Pieces of tcp_splice.c for the unit tests
 *
 * Not for the core: passt/ goes through splice/splice.h.
 */
#ifndef SPLICE_TCP_SPLICE_INTERNAL_H
#define SPLICE_TCP_SPLICE_INTERNAL_H

#include "tcp_splice.h"

#ifndef SPLICE_PIPE_SIZE
#define SPLICE_PIPE_SIZE	(256 * 1024)	/* F_SETPIPE_SZ, bytes */
#endif
#define SPLICE_PIPE_POOL	16		/* idle pipes kept open */
#ifndef SPLICE_ROUNDS
#define SPLICE_ROUNDS		8	/* read-write rounds per event and
					 * direction, then back to epoll */
#endif
#define SPLICE_CONNECT_TIMEOUT_MS	10000

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
bool splice_events_allowed(unsigned old, unsigned events);
bool splice_flags_allowed(unsigned events, unsigned old, unsigned flags);
int splice_dir_forward(struct tcp_splice_conn *conn, unsigned d);
int splice_pipe_take(int p[2]);
unsigned splice_pipe_pool_count(void);
#endif

#endif /* SPLICE_TCP_SPLICE_INTERNAL_H */
