/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/icmp.h - ICMP and ICMPv6 echo through ping sockets
 */
#ifndef PASST_ICMP_H
#define PASST_ICMP_H

#include <stdbool.h>

#include "../tap/frame.h"
#include "epoll_ref.h"

struct ctx;

bool icmp_tap_handler(struct ctx *ctx, const struct frame *f);
void icmp_sock_handler(struct ctx *ctx, union epoll_ref ref);
void icmp_timer(struct ctx *ctx);
void icmp_close_all(struct ctx *ctx);

#endif /* PASST_ICMP_H */
