/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/signals.h - The signals the daemon handles, through a signalfd
 */
#ifndef PASST_SIGNALS_H
#define PASST_SIGNALS_H

#include <sys/types.h>

struct ctx;

void signals_block_early(void);
void signals_unblock_child(void);
int signals_init(struct ctx *ctx);
unsigned signals_handler(struct ctx *ctx, int fd, pid_t child);
void signals_quit(struct ctx *ctx);
int signals_fd(void);

#endif /* PASST_SIGNALS_H */
