// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/udp_restart.c - Hitless restart of UDP flows
 *
 * DOC: Theory of Operation
 *
 * A UDP flow is a 4-tuple on each side and, except for UDP_TAP_IN, a
 * socket of its own (passt/udp_flow.h).  Were it made again by the next
 * datagram after a restart, as in stream version 1, a flow the guest
 * opened would get a new socket, hence a new source port at the peer (a
 * game, VoIP or VPN session sees its peer vanish), and a guest's reply to
 * a peer of a forwarded port would leave from a new port rather than the
 * forwarded one, as the new process wouldn't know that peer yet.  So the
 * old process hands each flow over (RESTART_REC_UDP, passt/restart.h): its
 * key, what it recorded of the peer and of the local address the peer
 * sent to, its socket, and the forwarded-port socket it answers through,
 * named by SO_COOKIE (socket(7), Linux 4.12 for getsockopt()): the
 * forwarded-port sockets themselves arrive in RESTART_REC_LISTEN records
 * before the flows, under other descriptor numbers.
 *
 * Datagrams the old process hadn't read wait in the sockets: the new
 * process reads them once it runs its loop.  A flow whose forwarded-port
 * socket the new process doesn't have ("auto" ports are opened again, not
 * handed over) is closed; its next datagram makes a new one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../conf/conf.h"
#include "../lib/log.h"
#include "../lib/util.h"
#include "ctx.h"
#include "flow.h"
#include "fwd.h"
#include "restart.h"
#include "udp_restart.h"
#include "flow_table.h"
#include "udp_flow.h"
#include "udp_internal.h"

/**
 * struct udp_restart_lsock - A forwarded-port socket by its cookie
 * @cookie:	SO_COOKIE
 * @fd:		Our descriptor
 */
struct udp_restart_lsock {
	uint64_t cookie;
	int fd;
};

static struct udp_restart_lsock *udp_restart_lsocks;
static size_t udp_restart_nlsocks;
static bool udp_restart_lsocks_done;

/**
 * udp_restart_cookie() - SO_COOKIE of a socket
 * @s:		Socket
 *
 * #syscalls getsockopt
 * Return: the cookie, 0 if it can't be had (the kernel never gives 0)
 */
static uint64_t udp_restart_cookie(int s)
{
	uint64_t cookie = 0;
	socklen_t sl = sizeof(cookie);

	if (s < 0 || getsockopt(s, SOL_SOCKET, SO_COOKIE, &cookie, &sl))
		return 0;
	return cookie;
}

/**
 * udp_restart_lsock_cmp() - qsort()/bsearch() order of struct
 *			     udp_restart_lsock: by cookie
 * @a:		One entry
 * @b:		The other
 *
 * Return: <0, 0 or >0
 */
static int udp_restart_lsock_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct udp_restart_lsock *)a)->cookie;
	uint64_t y = ((const struct udp_restart_lsock *)b)->cookie;

	return (x > y) - (x < y);
}

/**
 * udp_restart_lsocks_build() - New process: the cookies of the UDP
 *				forwarded-port sockets we adopted
 *
 * Once, at the first UDP record: the listeners' records came before the
 * flows' in the stream, so they're all in the rules' socket lists by then.
 * Without memory for the index, no flow that needs one is taken over.
 *
 * Context: set-up, restart_adopt()
 */
static void udp_restart_lsocks_build(void)
{
	size_t n = 0, k = 0;
	unsigned t, i, j;

	udp_restart_lsocks_done = true;
	for (t = 0; t < FWD_TBLS; t++)
		for (i = 0; t & 1 && i < CONF_MAX_FWD_RULES; i++)
			n += fwd_socks_of(t, i)->n;
	if (!n)
		return;
	udp_restart_lsocks = calloc(n, sizeof(*udp_restart_lsocks));
	if (!udp_restart_lsocks)
		return;
	for (t = 0; t < FWD_TBLS; t++) {
		for (i = 0; t & 1 && i < CONF_MAX_FWD_RULES; i++) {
			const struct fwd_socks *l = fwd_socks_of(t, i);

			for (j = 0; j < l->n && k < n; j++) {
				uint64_t ck = udp_restart_cookie(l->s[j].fd);

				if (!ck)
					continue;
				udp_restart_lsocks[k].cookie = ck;
				udp_restart_lsocks[k++].fd = l->s[j].fd;
			}
		}
	}
	udp_restart_nlsocks = k;
	qsort(udp_restart_lsocks, k, sizeof(*udp_restart_lsocks),
	      udp_restart_lsock_cmp);
}

/**
 * udp_restart_lsock_fd() - New process: our forwarded-port socket of a cookie
 * @cookie:	SO_COOKIE from the record
 *
 * Return: the descriptor, -1 if we have no such socket
 */
static int udp_restart_lsock_fd(uint64_t cookie)
{
	struct udp_restart_lsock key = { .cookie = cookie }, *e;

	if (!udp_restart_lsocks_done)
		udp_restart_lsocks_build();
	if (!udp_restart_nlsocks)
		return -1;
	e = bsearch(&key, udp_restart_lsocks, udp_restart_nlsocks,
		    sizeof(key), udp_restart_lsock_cmp);
	return e ? e->fd : -1;
}

/**
 * udp_restart_save() - Old process: a record per UDP flow
 * @b:		Stream being written (passt/restart.h)
 * @fds:	Descriptors to send
 * @max:	Room in @fds
 *
 * Nothing for a new process that asked for stream version 1, which has
 * no such record: its flows are made again by their next datagrams.
 *
 * Context: restart_give(), between batches
 */
static void udp_restart_save(struct restart_buf *b, int *fds, size_t max)
{
	unsigned i;

	if (!restart_buf_takes(b, RESTART_REC_UDP))
		return;

	for (i = 0; i < flow_hwm(); i++) {
		union flow *flow = flow_at(i);
		struct restart_rec r = { .type = RESTART_REC_UDP };
		struct restart_udp *u = &r.u.udp;
		const struct udp_flow *uf;

		if (flow->f.state != FLOW_STATE_ACTIVE ||
		    flow->f.type != FLOW_UDP)
			continue;
		uf = &flow->udp;
		if (uf->listen_sock >= 0 &&
		    !(u->listen_cookie = udp_restart_cookie(uf->listen_sock)))
			continue;
		u->gaddr = uf->f.key.gaddr.a6;
		u->faddr = uf->f.key.faddr.a6;
		u->gport = uf->f.key.gport;
		u->fport = uf->f.key.fport;
		u->kind = uf->kind;
		u->flags = (uint8_t)((uf->mcast ? RESTART_UDP_MCAST : 0) |
				     (uf->gro ? RESTART_UDP_GRO : 0) |
				     (uf->gso_off ? RESTART_UDP_GSO_OFF : 0));
		u->seen = uf->seen;
		u->ttl = uf->ttl;
		u->last_len = uf->last_len;
		u->mcast_port = uf->mcast_port;
		u->last_active_ms = uf->last_active_ms;
		u->local = uf->local.a6;
		u->local_ifindex = uf->local_ifindex;
		if (uf->peer_len >= sizeof(struct sockaddr_in) &&
		    uf->peer.sa.sa_family == AF_INET) {
			union inany a;

			inany_from_v4(&a, uf->peer.sa4.sin_addr);
			u->peer_family = AF_INET;
			u->peer_port = ntohs(uf->peer.sa4.sin_port);
			u->peer_addr = a.a6;
		} else if (uf->peer_len >= sizeof(struct sockaddr_in6) &&
			   uf->peer.sa.sa_family == AF_INET6) {
			u->peer_family = AF_INET6;
			u->peer_port = ntohs(uf->peer.sa6.sin6_port);
			u->peer_addr = uf->peer.sa6.sin6_addr;
			u->peer_flowinfo = uf->peer.sa6.sin6_flowinfo;
			u->peer_scope = uf->peer.sa6.sin6_scope_id;
		}
		u->fd = restart_fd_add(b, fds, max, uf->sock);
		restart_put(b, &r);
	}
}

/**
 * udp_restart_check() - New process: is a UDP flow's record consistent?
 * @r:		Record, RESTART_REC_UDP, fields in range (restart_parse():
 *		address families agree, descriptor index valid or none)
 *
 * A known kind; a socket of its own for every kind but UDP_TAP_IN, which
 * has none; a recorded peer and a forwarded-port socket for the kinds
 * that answer through one (UDP_TAP_IN, spliced), none for UDP_TAP_OUT,
 * whose socket is connected (or, to a group, sends to the recorded
 * peer); only known flags and directions.
 *
 * Return: true if so
 */
static bool udp_restart_check(const struct restart_rec *r)
{
	const struct restart_udp *u = &r->u.udp;
	bool own = u->fd != RESTART_FD_NONE, lsock = !!u->listen_cookie;
	bool mcast = u->flags & RESTART_UDP_MCAST;

	if (u->kind >= UDP_KIND_COUNT ||
	    (u->flags & ~(RESTART_UDP_MCAST | RESTART_UDP_GRO |
			  RESTART_UDP_GSO_OFF)) ||
	    (u->seen & ~(UDP_SEEN_OPENER | UDP_SEEN_ANSWER)))
		return false;
	if (u->kind == UDP_TAP_OUT)
		return own && !lsock && (!mcast || u->peer_family);
	if (mcast || !lsock || !u->peer_family)
		return false;
	return u->kind == UDP_TAP_IN ? !own : own;
}

/**
 * udp_restart_adopt() - New process: a UDP flow from a record
 * @ctx:	Context
 * @r:		Record, RESTART_REC_UDP (checked: udp_restart_check())
 * @fds:	Its descriptor: the flow's own socket, -1 for none
 *
 * The flow goes into the table under its key, with its last datagram's
 * time (the same host clock) for the idle timer, and its socket into our
 * epoll set.  A flow whose forwarded-port socket we don't have, a full
 * table or a key taken: the flow's socket is closed, nothing else.
 *
 * Context: set-up, restart_adopt(), after the listeners' records
 */
static void udp_restart_adopt(struct ctx *ctx, const struct restart_rec *r,
			      const int *fds)
{
	const struct restart_udp *u = &r->u.udp;
	struct flow_key key = { .proto = IPPROTO_UDP };
	int lsock = -1, s = fds[0];
	struct udp_flow *uf;

	if (!udp_restart_check(r))
		goto drop;
	if (u->listen_cookie &&
	    (lsock = udp_restart_lsock_fd(u->listen_cookie)) < 0)
		goto drop;
	key.gaddr.a6 = u->gaddr;
	key.faddr.a6 = u->faddr;
	key.gport = u->gport;
	key.fport = u->fport;
	if (u->kind == UDP_SPLICE_IN || u->kind == UDP_SPLICE_OUT) {
		/* the key of a spliced flow: udp_splice_new()'s caller */
		key.proto = u->kind == UDP_SPLICE_IN ? UDP_KEY_SPLICE_HOST :
						       UDP_KEY_SPLICE_NS;
	}
	uf = udp_flow_new(ctx, (enum udp_kind)u->kind, &key);
	if (!uf)
		goto drop;
	uf->sock = s;
	uf->listen_sock = lsock;
	uf->mcast = u->flags & RESTART_UDP_MCAST;
	uf->gro = u->flags & RESTART_UDP_GRO;
	uf->gso_off = u->flags & RESTART_UDP_GSO_OFF;
	uf->seen = u->seen;
	uf->ttl = u->ttl;
	uf->last_len = u->last_len;
	uf->mcast_port = u->mcast_port;
	uf->last_active_ms = u->last_active_ms;
	uf->local.a6 = u->local;
	uf->local_ifindex = u->local_ifindex;
	if (u->peer_family == AF_INET) {
		memset(&uf->peer.sa4, 0, sizeof(uf->peer.sa4));
		uf->peer.sa4.sin_family = AF_INET;
		uf->peer.sa4.sin_port = htons(u->peer_port);
		memcpy(&uf->peer.sa4.sin_addr, &u->peer_addr.s6_addr[12], 4);
		uf->peer_len = sizeof(uf->peer.sa4);
	} else if (u->peer_family == AF_INET6) {
		memset(&uf->peer.sa6, 0, sizeof(uf->peer.sa6));
		uf->peer.sa6.sin6_family = AF_INET6;
		uf->peer.sa6.sin6_port = htons(u->peer_port);
		uf->peer.sa6.sin6_addr = u->peer_addr;
		uf->peer.sa6.sin6_flowinfo = u->peer_flowinfo;
		uf->peer.sa6.sin6_scope_id = u->peer_scope;
		uf->peer_len = sizeof(uf->peer.sa6);
	}
	if (s >= 0 && udp_flow_epoll_add(ctx, uf) < 0) {
		udp_flow_close(ctx, uf, "restart: epoll_ctl() failed");
		return;
	}
	flow_dbg(uf, "taken over from the old process");
	return;
drop:
	debug("restart: a UDP flow couldn't be taken over: closed (its "
	      "next datagram makes it again)");
	if (s >= 0)
		close(s);
}

/**
 * udp_restart_register() - Register the hand-over operations of UDP flows
 *
 * Context: start of main(), after udp_flow_register()
 */
void udp_restart_register(void)
{
	static const struct flow_restart_ops ops = {
		.save	= udp_restart_save,
		.check	= udp_restart_check,
		.adopt	= udp_restart_adopt,
	};

	flow_restart_register(FLOW_UDP, &ops);
}
