/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/passt.h - The main loop and its frame-dispatch counters
 *
 * struct ctx and timer_want() are in passt/ctx.h (a leaf), the signals in
 * passt/signals.h; only the entry point (entry/main.c) includes this.
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

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
extern struct passt_stats passt_stats;
#endif

int passt_tap_add(struct ctx *ctx, int fd);
int passt_vhost_attach(struct ctx *ctx, int s);
int passt_loop(struct ctx *ctx);
void passt_stats_dump(void);

#endif /* PASST_PASST_H */
