/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/isolation.h - Privilege and capability reduction, seccomp
 */
#ifndef PASST_ISOLATION_H
#define PASST_ISOLATION_H

struct ctx;

void isolate_initial(struct ctx *ctx);
void isolate_prefork(struct ctx *ctx);
void isolate_postfork(struct ctx *ctx);
void isolate_user(struct ctx *ctx);

#endif /* PASST_ISOLATION_H */
