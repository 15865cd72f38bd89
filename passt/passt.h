/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/passt.h - Run-time context shared by the core modules
 */
#ifndef PASST_PASST_H
#define PASST_PASST_H

#include <stdbool.h>
#include <stdint.h>

#include "../conf/conf.h"
#include "../tap/frame.h"

/**
 * struct ctx - Everything the core needs at run time
 * @c:		Configuration (read only after set-up, but for learnt fields)
 * @epollfd:	The one epoll instance of the main loop
 * @now:	CLOCK_MONOTONIC time of the current wake-up, ms
 * @timer_next:	Earliest pending deadline of any flow, ms (INT64_MAX: none)
 * @ns_fd:	pasta: fd of the target network namespace, else -1
 * @host_ns_fd:	pasta: fd of the network namespace we started in, else -1
 * @quit:	Set by signal handling: leave the loop (after the drain)
 * @quit_now:	A second signal while draining: leave at once
 * @draining:	The loop is draining connections before it exits
 * @drain_soft:	Draining: connections still open then are aborted once
 *		the host peer has ACKed everything we ACKed, ms
 * @drain_hard:	Draining: everything still open then is reset, ms
 * @exit_status: Exit status to use when quitting
 */
struct ctx {
	struct conf c;
	int epollfd;
	int64_t now;
	int64_t timer_next;
	int ns_fd;
	int host_ns_fd;
	bool quit;
	bool quit_now;
	bool draining;
	int64_t drain_soft;
	int64_t drain_hard;
	int exit_status;
};

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
extern struct passt_stats stats;
#endif

void timer_want(struct ctx *ctx, int64_t at);
int passt_tap_add(struct ctx *ctx, int fd);
int vhost_attach(struct ctx *ctx, int s);
int signals_init(struct ctx *ctx);
int passt_loop(struct ctx *ctx);
void stats_dump(void);
void signals_block_early(void);
void signals_unblock_child(void);

#endif /* PASST_PASST_H */
