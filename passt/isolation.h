/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/isolation.h - Privilege reduction in stages, and the seccomp filter
 *
 * main() calls, in this order:
 *   isolate_initial()	right after conf_parse(), before any set-up
 *   isolate_prefork()	after set-up (sockets, tap, listeners, pid file),
 *			before the command pasta spawned is let go
 *   isolate_postfork()	just before the main loop
 * See the DOC block of isolation.c for what each stage does.
 */
#ifndef PASST_ISOLATION_H
#define PASST_ISOLATION_H

#include <stdbool.h>
#include <stddef.h>

#include "../conf/conf.h"

struct ctx;
struct conf;

void isolate_initial(struct ctx *ctx);
void isolate_prefork(struct ctx *ctx);
void isolate_postfork(struct ctx *ctx);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
int isolate_seccomp_load(enum conf_mode mode, int dmabuf_fd);
#endif
bool isolate_root_in_init_userns(void);
int isolate_helper(const struct conf *c);
int isolate_seccomp_helper(void);
int isolate_seccomp_helper_dirs(const int *dirs, unsigned n_dirs, int flags);
int isolate_helper_keep(const struct conf *c, unsigned cap);
int isolate_seccomp_only(const char *const *names, size_t n);
void isolate_forbidden_syscall(void);

#endif /* PASST_ISOLATION_H */
