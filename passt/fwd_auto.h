/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/fwd_auto.h - "auto" port forwarding: follow what listens on the
 * other side
 */
#ifndef PASST_FWD_AUTO_H
#define PASST_FWD_AUTO_H

struct ctx;

void fwd_auto_init(struct ctx *ctx);
void fwd_auto_scan(struct ctx *ctx);

#endif /* PASST_FWD_AUTO_H */
