/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/vhost.h - The daemon's side of vhost-user: epoll and migration
 */
#ifndef PASST_VHOST_H
#define PASST_VHOST_H

struct ctx;
struct vu_snap;

int vhost_start(struct ctx *ctx, int s);
int vhost_resume(struct ctx *ctx, int s, struct vu_snap *snap);

#endif /* PASST_VHOST_H */
