/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/vhost.h - The daemon's side of vhost-user: epoll and migration
 */
#ifndef PASST_VHOST_H
#define PASST_VHOST_H

struct ctx;

int vhost_start(struct ctx *ctx, int s);

#endif /* PASST_VHOST_H */
