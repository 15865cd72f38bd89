/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/passt.h - The main loop, its frame-dispatch counters and signals
 *
 * struct ctx and timer_want() are in passt/ctx.h (a leaf); only the entry
 * point (main/main.c) and the modules that block signals include this.
 */
#ifndef PASST_PASST_H
#define PASST_PASST_H

#include <stdbool.h>
#include <stdint.h>

#include "../tap/frame.h"
#include "ctx.h"

/**
 * struct passt_stats - Counters of frame dispatch (passt/passt.c); each
 *			module keeps its own (tcp_stats, udp_stats, ...)
 * @frames_dropped:	Malformed frames dropped, by reason (enum frame_drop)
 * @frames_unhandled:	Valid frames no handler wanted
 */
struct passt_stats {
	uint64_t frames_dropped[FD_COUNT];
	uint64_t frames_unhandled;
	uint64_t clients_refused;	/* a second client on the socket */
	uint64_t clients;		/* clients (front-ends) accepted */
};

extern struct passt_stats stats;

int passt_tap_add(struct ctx *ctx, int fd);
int vhost_attach(struct ctx *ctx, int s);
int signals_init(struct ctx *ctx);
int passt_loop(struct ctx *ctx);
void stats_dump(void);
void signals_block_early(void);
void signals_unblock_child(void);

#endif /* PASST_PASST_H */
