/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/follow.h - Follow the host's network while running
 */
#ifndef PASST_FOLLOW_H
#define PASST_FOLLOW_H

#include "epoll_ref.h"
#include "passt.h"

void follow_init(struct ctx *ctx);
void follow_handler(struct ctx *ctx, union epoll_ref ref);
void follow_timer(struct ctx *ctx);

#endif /* PASST_FOLLOW_H */
