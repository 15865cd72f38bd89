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
bool repair_connected(void);
bool repair_wait(struct ctx *ctx, int ms);
int repair_set(const int *fds, unsigned n, int8_t cmd);

#endif /* PASST_REPAIR_H */
