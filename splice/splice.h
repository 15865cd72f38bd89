/* SPDX-License-Identifier: GPL-2.0-or-later */
/* splice/splice.h - Entry points of the loopback splice path, for its tests
 *
 * The core never calls these by name: it reaches them through the
 * operations of FLOW_TCP_SPLICE (struct flow_ops, passt/flow.h), which
 * splice_flow_register() registers, called by the entry point
 * (entry/main.c).  The unit tests drive them directly.
 */
#ifndef SPLICE_SPLICE_H
#define SPLICE_SPLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "../lib/inany.h"
#include "../lib/util.h"
#include "../passt/epoll_ref.h"

struct ctx;

void splice_flow_register(void);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
int splice_init(struct ctx *ctx);
bool splice_tcp_accept(struct ctx *ctx, int s, const union inany *peer,
		       uint16_t peer_port, uint16_t port, uint16_t to_port,
		       bool from_ns);
void splice_tcp_handler(struct ctx *ctx, union epoll_ref ref,
			uint32_t events);
#endif

#endif /* SPLICE_SPLICE_H */
