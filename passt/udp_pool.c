// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/udp_pool.c - Spare UDP sockets in the target namespace, for
 *		      datagrams spliced from the host's loopback
 *
 * Set-up opens UDP_POOL unbound sockets of each family in the namespace
 * (pasta_ns_call(), udp_pool_refill()); a new UDP_SPLICE_IN flow takes one
 * (udp_pool_get()), and passt/udp.c binds and connects it from outside
 * the namespace (bind() and connect() act in the namespace the socket was
 * created in).  Once the pool is empty, flows take sockets from the
 * namespace socket helper (passt/nsock.c).  The socket of a closed spliced
 * flow is disconnected and kept (udp_pool_put_used(), up to UDP_POOL per
 * family) for the case that the helper has none: new flows then reuse it,
 * with the port it is bound to.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "flow_table.h"
#include "nsock.h"
#include "ctx.h"
#include "pasta.h"
#include "udp_internal.h"

/**
 * struct udp_pool - Spare sockets created in the target namespace, per family
 * @fresh:	Unbound sockets from set-up or a refill
 * @n_fresh:	Entries in @fresh
 * @used:	Sockets of closed spliced flows: still bound to their old
 *		loopback port, disconnected; taken only when no fresh one
 *		can be had (privileges dropped), with the port they have
 * @n_used:	Entries in @used
 */
struct udp_pool {
	int fresh[UDP_POOL];
	unsigned n_fresh;
	int used[UDP_POOL];
	unsigned n_used;
};

static struct udp_pool udp_pool[2];	/* [0]: IPv4, [1]: IPv6 */
static bool udp_pool_failed;	/* pasta_ns_call() failed: don't try again */

/**
 * udp_pool_fill_ns() - In the namespace: top up the spare socket pools
 * @arg:	Unused
 *
 * Context: pasta_ns_call() child, sharing our memory and fd table
 * #syscalls socket
 * Return: 0, or -errno of the first socket() that failed
 */
static int udp_pool_fill_ns(void *arg)
{
	struct udp_pool *p4 = &udp_pool[0], *p6 = &udp_pool[1];
	int one = 1;

	(void)arg;
	while (p4->n_fresh < UDP_POOL) {
		int s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
			       SOCK_CLOEXEC, IPPROTO_UDP);

		if (s < 0)
			return -errno;
		p4->fresh[p4->n_fresh++] = s;
	}
	while (p6->n_fresh < UDP_POOL) {
		int s = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK |
			       SOCK_CLOEXEC, IPPROTO_UDP);

		if (s < 0)
			return errno == EAFNOSUPPORT ? 0 : -errno;
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		p6->fresh[p6->n_fresh++] = s;
	}
	return 0;
}

/**
 * udp_pool_refill() - Fill the namespace socket pools through pasta_ns_call()
 * @ctx:	Context
 *
 * Context: set-up only (pasta_ns_call() enters the namespace: not possible
 *	    after isolation; later sockets come from the namespace socket helper,
 *	    passt/nsock.c)
 */
void udp_pool_refill(struct ctx *ctx)
{
	int ret;

	if (ctx->ns_fd < 0 || udp_pool_failed)
		return;
	ret = pasta_ns_call(ctx->ns_fd, udp_pool_fill_ns, NULL);
	if (ret < 0) {
		udp_pool_failed = true;
		warn("UDP: can't open sockets in the namespace (%s): datagrams from host loopback to -u ports take the tap path",
		     strerror(-ret));
	}
}

/**
 * udp_pool_get() - Take a spare namespace socket
 * @ctx:	Context
 * @v4:		IPv4 rather than IPv6
 * @bound:	Set if the socket is a used one, already bound to a port
 *
 * Return: fd, or -1 if none can be had
 */
int udp_pool_get(struct ctx *ctx, bool v4, bool *bound)
{
	struct udp_pool *p = &udp_pool[v4 ? 0 : 1];

	*bound = false;
	if (p->n_fresh)
		return p->fresh[--p->n_fresh];
	if (nsock_ready()) {
		int s = nsock_get_type(v4 ? AF_INET : AF_INET6, true);

		timer_want(ctx, ctx->now);	/* nsock_refill() from the timer */
		if (s >= 0)
			return s;
	}
	if (!p->n_used)
		return -1;
	*bound = true;
	return p->used[--p->n_used];
}

/**
 * udp_pool_put_used() - Keep the namespace socket of a closed spliced flow
 * @uf:		UDP_SPLICE_IN flow being closed, its socket out of epoll
 *
 * The socket is disconnected (connect() with AF_UNSPEC, udp(7)) and kept
 * for flows that find no fresh socket: once privileges are dropped, new
 * namespace sockets may not be had at all.
 *
 * #syscalls connect
 * Return: true if the pool took the socket, false if the caller closes it
 */
bool udp_pool_put_used(struct udp_flow *uf)
{
	struct udp_pool *p = &udp_pool[inany_v4(&uf->f.key.gaddr) ? 0 : 1];
	struct sockaddr sa = { .sa_family = AF_UNSPEC };

	if (p->n_used >= UDP_POOL ||
	    connect(uf->sock, &sa, sizeof(sa)) < 0)
		return false;
	p->used[p->n_used++] = uf->sock;
	return true;
}
