/* SPDX-License-Identifier: GPL-2.0-or-later */
/* splice/splice.h - Interface of the loopback splice path to the core
 */
#ifndef SPLICE_SPLICE_H
#define SPLICE_SPLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "../conf/util.h"
#include "../passt/epoll_ref.h"

struct ctx;

int splice_init(struct ctx *ctx);
bool splice_tcp_accept(struct ctx *ctx, int s, const union inany *peer,
		       uint16_t peer_port, uint16_t port, uint16_t to_port,
		       bool from_ns);
void splice_tcp_handler(struct ctx *ctx, union epoll_ref ref,
			uint32_t events);
void splice_ns_helper_handler(struct ctx *ctx, uint32_t events);
void splice_timer(struct ctx *ctx);
void splice_abort_all(struct ctx *ctx);
unsigned splice_drain(struct ctx *ctx, bool abort);

#endif /* SPLICE_SPLICE_H */
