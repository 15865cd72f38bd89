/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/pasta.h - pasta mode: namespaces and tap set-up
 */
#ifndef PASST_PASTA_H
#define PASST_PASTA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ctx;
struct fwd_table;

int pasta_ns_call(int nsfd, int (*fn)(void *arg), void *arg);
int pasta_setup(struct ctx *ctx);
void pasta_restart_setup(struct ctx *ctx);
bool pasta_tap_vnet_hdr(void);
int pasta_listen_ns(struct ctx *ctx, uint8_t proto, const struct fwd_table *t);
bool pasta_start_child(void);
pid_t pasta_child_pid_get(void);
bool pasta_netns_gone(const struct ctx *ctx);
bool pasta_target_gone(const struct ctx *ctx);
void pasta_watch_add(struct ctx *ctx);

#endif /* PASST_PASTA_H */
