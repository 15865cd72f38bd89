/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/ctx.h - The run-time context and the timer request: a leaf header
 *
 * Every module of the core takes a struct ctx and asks for wake-ups with
 * timer_want(); both live here, apart from the main loop (passt/passt.h),
 * so that a module includes only this header for them and the loop's file
 * and the modules it calls don't depend on each other.
 */
#ifndef PASST_CTX_H
#define PASST_CTX_H

#include <stdbool.h>
#include <stdint.h>

#include "../conf/conf.h"

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
 * timer_want() - Ask for a wake-up at a given time
 * @ctx:	Context
 * @at:		Deadline, ms (CLOCK_MONOTONIC)
 *
 * The main loop's epoll_wait() timeout runs until the earliest deadline
 * asked for since its last wake-up (ctx->timer_next, reset by the loop).
 *
 * Context: main loop, or set-up before it
 */
static inline void timer_want(struct ctx *ctx, int64_t at)
{
	if (at < ctx->timer_next)
		ctx->timer_next = at;
}

#endif /* PASST_CTX_H */
