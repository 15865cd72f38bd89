// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/vhost.c - The daemon's side of vhost-user: epoll and migration
 *
 * tap/vhost_user.c speaks the protocol and knows no epoll instance and no
 * flows.  This file gives it what it asks for: epoll watches on the
 * front-end's socket, on each queue's kick eventfd (edge-triggered) and on
 * the device state channel of a migration, and the migration state itself:
 * what a source hands over (the guest's addresses and MAC; refused while
 * TCP connections are open) and what a destination takes.  The main loop
 * (passt/passt.c) dispatches the events and counts the front-ends.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>

#include "../lib/log.h"
#include "../tap/devstate.h"
#include "../tap/guest.h"
#include "../tap/tap.h"
#include "../tap/vhost_user.h"
#include "ctx.h"
#include "epoll_ref.h"
#include "flow.h"
#include "fwd.h"
#include "repair.h"
#include "tcp_mig_flows.h"
#include "vhost.h"

static int vhost_epollfd = -1;	/* for vhost_watch(), vhost_state_watch() */

/**
 * vhost_watch() - Start or stop watching a vhost-user kick eventfd
 * @fd:		Eventfd from the front-end
 * @queue:	Its queue index
 * @add:	Start (true) or stop watching
 *
 * Edge-triggered: each kick wakes us once, and vu_kick_handler() needn't
 * empty the counter, which it can't do without blocking or spinning on a
 * front-end's eventfd (tap/vhost_user.c, "Descriptors").
 *
 * #syscalls:passt epoll_ctl
 * Return: 0, or -errno from epoll_ctl()
 */
static int vhost_watch(int fd, unsigned queue, bool add)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_VHOST_KICK,
				.fd = (uint32_t)fd & EPOLL_REF_FD_MAX,
				.data = queue };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET,
				  .data.u64 = ref.u64 };

	if (epoll_ctl(vhost_epollfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, fd,
		      add ? &ev : NULL) < 0)
		return -errno;
	return 0;
}

/**
 * vhost_state_watch() - Start or stop watching the device state channel
 * @fd:		Our end of the channel (tap/vhost_user.c made it non-blocking)
 * @out:	Saving: wait until it's writable (else readable)
 * @add:	Start (true) or stop watching
 *
 * Level-triggered: vu_state_handler() moves bytes until EAGAIN anyway.
 *
 * #syscalls:passt epoll_ctl
 * Return: 0, or -errno from epoll_ctl()
 */
static int vhost_state_watch(int fd, bool out, bool add)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_VHOST_STATE,
				.fd = (uint32_t)fd & EPOLL_REF_FD_MAX };
	struct epoll_event ev = { .events = out ? EPOLLOUT : EPOLLIN,
				  .data.u64 = ref.u64 };

	if (epoll_ctl(vhost_epollfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, fd,
		      add ? &ev : NULL) < 0)
		return -errno;
	return 0;
}

static struct ctx *vhost_ctx;	/* for vhost_state_save(), vhost_state_done() */

/**
 * vhost_state_save() - What a migration source hands over (vhost-user)
 * @s:		Filled: the guest's addresses and MAC as seen, and its TCP
 *		connections
 * @flows:	Where the TCP connections' section goes
 * @room:	Bytes available there
 *
 * Addresses not seen yet are the configured ones (what we would use for
 * the guest, as upstream does), a MAC not known yet is broadcast
 * (upstream's "not known").  Established TCP connections move with their
 * host sockets, through passt-repair (passt/tcp_mig_flows.c); without the
 * helper, or if one can't be dumped, the migration is refused, before the
 * guest leaves this host, so that none is lost or reset.  Once they are
 * handed over, the -t listeners close (as upstream's), so that a
 * destination on this host can bind the ports and addresses.  UDP and ICMP
 * flows are not transferred: the destination makes them again on the
 * guest's next datagram.
 *
 * Return: 0, or -errno if refused (logged)
 */
static int vhost_state_save(struct devstate *s, uint8_t *flows, size_t room)
{
	const struct conf *c = vhost_ctx ? &vhost_ctx->c : NULL;
	unsigned n = flow_count_type(FLOW_TCP_SPLICE);
	uint32_t nflows = 0;
	size_t len = 0;
	int rc;

	if (n) {
		warn("migration refused: %u spliced TCP connection%s open; "
		     "the guest stays here", n, n == 1 ? "" : "s");
		return -EBUSY;
	}
	if (vhost_ctx &&
	    (rc = tcp_mig_save(vhost_ctx, flows, room, &nflows, &len)))
		return rc;
	if (nflows)
		info("migration: %u listening socket(s) of -t closed",
		     fwd_listen_close_tbl(FWD_TBL_T));
	memset(s, 0, sizeof(*s));
	s->nflows = nflows;
	s->flows = flows;
	s->flows_len = len;
	s->addr4 = tap_guest.addr4_seen;
	if (!s->addr4.s_addr && c && c->ip4.enabled)
		s->addr4 = c->ip4.addr;
	s->addr6 = tap_guest.addr6_seen;
	if (IN6_IS_ADDR_UNSPECIFIED(&s->addr6) && c && c->ip6.enabled)
		s->addr6 = c->ip6.addr;
	s->addr6_ll = tap_guest.addr6_ll_seen;
	if (tap_guest.mac_set)
		memcpy(s->mac, tap_guest.mac, sizeof(s->mac));
	else
		memset(s->mac, 0xff, sizeof(s->mac));
	return 0;
}

/**
 * vhost_state_load() - Take what a migration source handed over
 * @s:		State, checked (tap/devstate.c), but for its TCP section
 *
 * The guest keeps its addresses and MAC across the migration: we learn
 * them now instead of from its next frames.  Unset fields (0.0.0.0, ::,
 * a broadcast or zero MAC) leave ours as they are.  The TCP connections
 * are checked before anything is taken, then rebuilt
 * (passt/tcp_mig_flows.c).
 *
 * Return: 0, or -errno from tcp_mig_load()
 */
static int vhost_state_load(const struct devstate *s)
{
	static const uint8_t zero[6];
	char a4[INET_ADDRSTRLEN], a6[INET6_ADDRSTRLEN];
	int rc;

	if (s->nflows && (!vhost_ctx ||
			  (rc = tcp_mig_load(vhost_ctx, s->flows, s->flows_len,
					     s->nflows))))
		return vhost_ctx ? rc : -ENOTSUP;

	if (s->addr4.s_addr)
		tap_guest.addr4_seen = s->addr4;
	if (!IN6_IS_ADDR_UNSPECIFIED(&s->addr6))
		tap_guest.addr6_seen = s->addr6;
	if (!IN6_IS_ADDR_UNSPECIFIED(&s->addr6_ll))
		tap_guest.addr6_ll_seen = s->addr6_ll;
	if (!(s->mac[0] & 1) && memcmp(s->mac, zero, sizeof(zero)))
		tap_guest_mac_set(s->mac);
	inet_ntop(AF_INET, &s->addr4, a4, sizeof(a4));
	inet_ntop(AF_INET6, &s->addr6, a6, sizeof(a6));
	info("migration: guest %s, %s, MAC %02x:%02x:%02x:%02x:%02x:%02x",
	     a4, a6, s->mac[0], s->mac[1], s->mac[2], s->mac[3], s->mac[4],
	     s->mac[5]);
	return 0;
}

/**
 * vhost_state_done() - A migration succeeded (QEMU checked our state)
 * @load:	We are the destination (else the source)
 *
 * Either way passt-repair's connection is closed: the helper is started
 * again for the next migration (as upstream).  On the source, the guest
 * runs on the destination now: --migrate-exit ends passt with status 0
 * ("migration complete, exiting"); by default passt keeps running, and
 * keeps its -t listeners (on another host they conflict with nothing), as
 * upstream.  The host sockets of the TCP connections handed over stay
 * open, in repair mode, until we exit (--migrate-no-linger closed them at
 * once); those still in their handshake with the guest are reset now
 * (tcp_mig_handshakes_drop()).
 */
static void vhost_state_done(bool load)
{
	unsigned n;

	if (!vhost_ctx)
		return;
	repair_close(vhost_ctx);
	if (load)
		return;
	n = tcp_mig_handshakes_drop();
	if (n)
		info("migration: %u TCP connection%s in the handshake reset",
		     n, n == 1 ? "" : "s");
	info("migration complete%s",
	     vhost_ctx->c.migrate_exit ? ", exiting" : "");
	if (vhost_ctx->c.migrate_exit) {
		vhost_ctx->quit = true;
		vhost_ctx->quit_now = true;
		vhost_ctx->exit_status = 0;
	}
}

/**
 * vhost_state_prepare() - A migration may be starting: the front-end logs
 *			   dirty pages (SET_LOG_BASE), the guest still runs
 *
 * Reads what each TCP connection's record needs and won't change
 * (tcp_mig_prepare()), so that the guest stands still for less time.
 */
static void vhost_state_prepare(void)
{
	if (vhost_ctx)
		tcp_mig_prepare();
}

static const struct vu_state_ops vhost_state_ops = {
	.save = vhost_state_save,
	.load = vhost_state_load,
	.done = vhost_state_done,
	.prepare = vhost_state_prepare,
};

/**
 * vhost_start() - Take a vhost-user front-end's socket: watch it, hand it
 *		   to tap/vhost_user.c with our watch and state operations
 * @ctx:	Context
 * @s:		Its socket, non-blocking
 *
 * #syscalls:passt epoll_ctl
 * Return: 0, or -errno (the caller closes @s)
 */
int vhost_start(struct ctx *ctx, int s)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_VHOST_CMD,
				.fd = (uint32_t)s & EPOLL_REF_FD_MAX };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP,
				  .data.u64 = ref.u64 };

	vhost_epollfd = ctx->epollfd;
	vhost_ctx = ctx;
	vu_set_watch(vhost_watch);
	vu_offer_upstream_only(ctx->c.upstream_features);
	vu_set_state_ops(vhost_state_watch, &vhost_state_ops);
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev) < 0)
		return -errno;
	tap_init(TAP_VHOST, s, false);
	vu_attach(s);
	return 0;
}

/**
 * vhost_resume() - Hitless restart: take the old process's front-end
 * @ctx:	Context
 * @s:		The front-end's socket, non-blocking
 * @snap:	The device's state, descriptors ours (vu_resume())
 *
 * Return: 0, or -errno (the caller dies: the old process is gone)
 */
int vhost_resume(struct ctx *ctx, int s, struct vu_snap *snap)
{
	int rc = vhost_start(ctx, s);

	if (rc < 0)
		return rc;
	return vu_resume(s, snap);
}
