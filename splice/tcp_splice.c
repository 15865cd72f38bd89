// SPDX-License-Identifier: GPL-2.0-or-later
/* splice/tcp_splice.c - Loopback TCP forwarding with splice(2) (placeholder:
 * the full path replaces this file; until then no connection is spliced)
 */
#include "../passt/passt.h"
#include "splice.h"
#include "tcp_splice.h"

/**
 * splice_tcp_accept() - Take an accepted connection for the splice path
 * @ctx:	Context
 * @s:		Accepted socket
 * @peer:	Peer address
 * @peer_port:	Peer port, host order
 * @port:	Listening port, host order
 * @to_port:	Target port, host order
 * @from_ns:	Accepted in the namespace (-T) rather than on the host (-t)
 *
 * Return: true if the splice path owns @s now
 */
bool splice_tcp_accept(struct ctx *ctx, int s, const union inany *peer,
		       uint16_t peer_port, uint16_t port, uint16_t to_port,
		       bool from_ns)
{
	(void)ctx; (void)s; (void)peer; (void)peer_port; (void)port;
	(void)to_port; (void)from_ns;
	return false;
}

/**
 * splice_tcp_handler() - Event on a spliced socket
 * @ctx:	Context
 * @ref:	epoll reference
 * @events:	epoll events
 */
void splice_tcp_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events)
{
	(void)ctx; (void)ref; (void)events;
}

/**
 * splice_timer() - Periodic work of the splice path
 * @ctx:	Context
 */
void splice_timer(struct ctx *ctx)
{
	(void)ctx;
}
