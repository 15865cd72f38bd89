/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/udp.h - UDP translation
 */
#ifndef PASST_UDP_H
#define PASST_UDP_H

#include "../tap/frame.h"
#include "epoll_ref.h"

struct ctx;

void udp_init(struct ctx *ctx);
unsigned udp_tap_handler(struct ctx *ctx, const struct frame *f, unsigned n);
void udp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events);
void udp_listen_handler(struct ctx *ctx, union epoll_ref ref,
			uint32_t events);
void udp_timer(struct ctx *ctx);
void udp_close_all(struct ctx *ctx);
void udp_listen_closing(struct ctx *ctx, int s);
bool udp_evict_idle(struct ctx *ctx);

#endif /* PASST_UDP_H */
