/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/fwd_auto.h - "auto" port forwarding: follow what listens on the
 * other side
 */
#ifndef PASST_FWD_AUTO_H
#define PASST_FWD_AUTO_H

#include <stdint.h>

struct ctx;
struct fwd_table;

void fwd_auto_init(struct ctx *ctx);
void fwd_auto_scan(struct ctx *ctx);
void fwd_auto_close_all(struct ctx *ctx);
void fwd_auto_drop_port(struct ctx *ctx, const struct fwd_table *t,
			uint16_t port);
unsigned long fwd_auto_socks(const struct fwd_table *t);
unsigned long fwd_auto_headroom(const struct fwd_table *t);
unsigned fwd_auto_ports(const struct fwd_table *t, uint16_t *ports,
			unsigned max);

#endif /* PASST_FWD_AUTO_H */
