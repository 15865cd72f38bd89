// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/udp.c - UDP translation (placeholder: datagrams are dropped until
 * the UDP path lands)
 */
#include "passt.h"
#include "udp.h"

/** udp_init() - Nothing yet  @ctx: Context */
void udp_init(struct ctx *ctx)
{
	(void)ctx;
}

/**
 * udp_tap_handler() - Datagrams from the guest with one tuple
 * @ctx:	Context
 * @f:		Frames
 * @n:		Count
 *
 * Return: frames consumed
 */
unsigned udp_tap_handler(struct ctx *ctx, const struct frame *f, unsigned n)
{
	(void)ctx;
	(void)f;
	return n;
}

/** udp_sock_handler() - Nothing yet  @ctx: Context @ref: ref @events: events */
void udp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events)
{
	(void)ctx; (void)ref; (void)events;
}

/** udp_listen_handler() - Nothing yet  @ctx: Context @ref: ref @events: ev */
void udp_listen_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events)
{
	(void)ctx; (void)ref; (void)events;
}

/** udp_timer() - Nothing yet  @ctx: Context */
void udp_timer(struct ctx *ctx)
{
	(void)ctx;
}
