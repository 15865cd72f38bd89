/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/follow.h - Follow the host's network while running
 */
#ifndef PASST_FOLLOW_H
#define PASST_FOLLOW_H

#include "epoll_ref.h"
#include "ctx.h"

#include <fcntl.h>

/* How the resolv.conf helper opens the file again (its seccomp filter
 * allows exactly this, isolate_seccomp_helper_dirs())
 */
#define FOLLOW_OPEN_FLAGS	(O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
#define FOLLOW_DIRS_MAX		2

void follow_init(struct ctx *ctx);
void follow_handler(struct ctx *ctx, union epoll_ref ref);
void follow_timer(struct ctx *ctx);

#endif /* PASST_FOLLOW_H */
