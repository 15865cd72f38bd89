/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp.h - TCP translation between guest segments and host sockets
 */
#ifndef PASST_TCP_H
#define PASST_TCP_H

#include <stdint.h>

#include "../tap/frame.h"
#include "epoll_ref.h"

struct ctx;

#define TCP_MAX_BATCH	256	/* segments of one flow handled per call */

void tcp_init(struct ctx *ctx);
const char *tcp_reader_name(int af);
unsigned tcp_tap_handler(struct ctx *ctx, const struct frame *f, unsigned n);
void tcp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events);
void tcp_listen_handler(struct ctx *ctx, union epoll_ref ref);
void tcp_timer(struct ctx *ctx);
void tcp_flush_all(struct ctx *ctx);
void tcp_close_all(struct ctx *ctx);
void tcp_guest_gone(struct ctx *ctx, unsigned timeout_ms);
void tcp_guest_attached(struct ctx *ctx);
unsigned tcp_drain(struct ctx *ctx, bool abort);
bool tcp_tap_waiting(void);
void tcp_tap_resume(struct ctx *ctx);

#endif /* PASST_TCP_H */
