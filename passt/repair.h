/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/repair.h - The socket passt-repair connects to (--repair-path)
 */
#ifndef PASST_REPAIR_H
#define PASST_REPAIR_H

#include <stdbool.h>
#include <stdint.h>

struct ctx;

void repair_open(struct ctx *ctx, const char *sock_path);
void repair_listen_handler(struct ctx *ctx);
void repair_handler(struct ctx *ctx, uint32_t events);
void repair_close(struct ctx *ctx);

#endif /* PASST_REPAIR_H */
