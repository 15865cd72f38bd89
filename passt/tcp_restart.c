// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp_restart.c - Tap-side TCP connections in a hitless restart
 *
 * The old process writes one RESTART_REC_TCP record per connection that
 * has a host socket (passt/restart.c); the new one checks each record's
 * events (tcp_restart_check()) before it confirms the hand-over, then
 * rebuilds the connection around the same socket (tcp_restart_adopt()).
 * Sequence numbers, windows, scaling and MSS stay as they were: the
 * socket's receive queue still starts at SND.UNA (MSG_PEEK), and its
 * SO_PEEK_OFF, a property of the socket, still points at SND.NXT.  Frames
 * the old process queued for the tap and never wrote are sent again by the
 * retransmission timer, as any loss.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/util.h"
#include "passt.h"
#include "restart.h"
#include "tcp.h"
#include "tcp_internal.h"
#include "tcp_seq.h"

/* Flags that still mean something in another process: the others are about
 * this process's queues and batches, and come back by themselves
 */
#define TCP_RESTART_FLAGS	(TFL_SOCK_RDHUP | TFL_SNDBUF_WAIT |	\
				 TFL_WND_PROBE | TFL_IPV4 |		\
				 TFL_RST_AFTER_HS | TFL_RECOVERY |	\
				 TFL_ORPHAN | TFL_SOCK_DATA)

/**
 * tcp_restart_save() - Old process: a record per connection with a socket
 * @b:		Stream being written
 * @fds:	Descriptors to send
 * @max:	Room in @fds
 *
 * Context: restart_give(), between batches
 */
void tcp_restart_save(struct restart_buf *b, int *fds, size_t max)
{
	unsigned i;

	for (i = 0; i < flow_hwm(); i++) {
		union flow *flow = flow_at(i);
		const struct tcp_conn *c = &flow->tcp;
		struct restart_rec r = { .type = RESTART_REC_TCP };
		struct restart_tcp *t = &r.u.tcp;

		if (flow->f.state != FLOW_STATE_ACTIVE ||
		    flow->f.type != FLOW_TCP || c->sock < 0)
			continue;
		t->gaddr = c->f.key.gaddr.a6;
		t->faddr = c->f.key.faddr.a6;
		t->gport = c->f.key.gport;
		t->fport = c->f.key.fport;
		t->events = c->events;
		t->flags = c->flags & TCP_RESTART_FLAGS;
		t->reader = c->reader;
		t->retrans = c->retrans;
		t->ws_from_tap = c->ws_from_tap;
		t->ws_to_tap = c->ws_to_tap;
		t->mss_to_tap = c->mss_to_tap;
		t->iss_to_tap = c->iss_to_tap;
		t->seq_ack_from_tap = c->seq_ack_from_tap;
		t->seq_to_tap = c->seq_to_tap;
		t->seq_max_to_tap = c->seq_max_to_tap;
		t->seq_fin_to_tap = c->seq_fin_to_tap;
		t->seq_recover_to_tap = c->seq_recover_to_tap;
		t->wnd_from_tap = c->wnd_from_tap;
		t->wnd_from_tap_max = c->wnd_from_tap_max;
		t->wnd_from_tap_last_unscaled = c->wnd_from_tap_last_unscaled;
		t->seq_from_tap = c->seq_from_tap;
		t->seq_wnd_edge_to_tap = c->seq_wnd_edge_to_tap;
		t->wnd_to_tap = c->wnd_to_tap;
		t->rto_ms = c->rto_ms;
		t->srtt_ms = c->srtt_ms;
		t->rttvar_ms = c->rttvar_ms;
		t->sock_sndbuf = c->sock_sndbuf;
		t->orphan_until_ms = c->orphan_until_ms;
		t->fd = restart_fd_add(b, fds, max, c->sock);
		restart_put(b, &r);
	}
}

/**
 * tcp_restart_events_next() - Next step of replaying a set of events
 * @cur:	Events set so far
 * @events:	Target set
 *
 * The opening pair first (outbound: the guest's SYN; inbound: accepted and
 * SYN sent together), then the other bits one at a time in bit order,
 * which is the order they can happen in.
 *
 * Return: the next set, @events once there
 */
static unsigned tcp_restart_events_next(unsigned cur, unsigned events)
{
	unsigned bit;

	if (!cur)
		return events & TEV_SOCK_ACCEPTED ?
		       (TEV_SOCK_ACCEPTED | TEV_TAP_SYN_SENT) :
		       TEV_TAP_SYN_RCVD;
	for (bit = 1; bit < (1U << TEV_COUNT); bit <<= 1) {
		if ((events & bit) && !(cur & bit))
			return cur | bit;
	}
	return cur;
}

/**
 * tcp_restart_check() - New process, before confirming: can a record's
 *			 events be set through tcp_events_set()?
 * @t:		Record (field ranges already checked)
 *
 * Return: 0, or -EINVAL (the hand-over is refused)
 */
int tcp_restart_check(const struct restart_tcp *t)
{
	enum tcp_state st = TCP_STATE_CLOSED;
	unsigned cur = 0, n;
	int i;

	if (t->events & ~((1U << TEV_COUNT) - 1) ||
	    t->reader >= TCP_RD_COUNT || (t->flags & ~(uint32_t)TCP_RESTART_FLAGS))
		return -EINVAL;
	for (i = 0; i <= TEV_COUNT && cur != t->events; i++) {
		enum tcp_state next;

		n = tcp_restart_events_next(cur, t->events);
		if (!tcp_events_allowed(cur, n))
			return -EINVAL;
		next = tcp_state_next(st, n);
		if (next != st && !tcp_state_allowed(st, next))
			return -EINVAL;
		st = next;
		cur = n;
	}
	return cur == t->events ? 0 : -EINVAL;
}

/**
 * tcp_restart_adopt() - New process: a connection around a received socket
 * @ctx:	Context, TCP set up
 * @t:		Record, checked by tcp_restart_check()
 * @fd:		Its host socket
 *
 * A connection that can't be made (flow table full, its key taken, epoll)
 * is reset: its socket is closed with SO_LINGER 0 by tcp_rst().
 *
 * Context: set-up, restart_adopt()
 * #syscalls epoll_ctl
 */
void tcp_restart_adopt(struct ctx *ctx, const struct restart_tcp *t, int fd)
{
	union inany ga, fa;
	struct tcp_conn *conn;
	union flow *flow;
	unsigned ev = 0;

	if (fd < 0)
		return;
	flow = flow_alloc(ctx);
	if (!flow) {
		close(fd);
		return;
	}
	conn = &flow->tcp;
	flow_activate(flow, FLOW_TCP);
	conn->sock = fd;
	ga.a6 = t->gaddr;
	fa.a6 = t->faddr;
	flow_key_fill(&conn->f.key, IPPROTO_TCP, &ga, t->gport, &fa, t->fport);
	if (t->flags & TFL_IPV4)
		conn_flag(conn, TFL_IPV4);
	while (ev != t->events) {
		ev = tcp_restart_events_next(ev, t->events);
		tcp_events_set(conn, ev);
	}
	conn_flag(conn, t->flags & ~(uint32_t)TFL_IPV4);
	conn->reader = t->reader;
	conn->retrans = t->retrans;
	conn->ws_from_tap = t->ws_from_tap;
	conn->ws_to_tap = t->ws_to_tap;
	conn->mss_to_tap = t->mss_to_tap;
	conn->iss_to_tap = t->iss_to_tap;
	conn->seq_ack_from_tap = t->seq_ack_from_tap;
	conn->seq_to_tap = t->seq_to_tap;
	conn->seq_max_to_tap = t->seq_max_to_tap;
	conn->seq_fin_to_tap = t->seq_fin_to_tap;
	conn->seq_recover_to_tap = t->seq_recover_to_tap;
	conn->wnd_from_tap = t->wnd_from_tap;
	conn->wnd_from_tap_max = t->wnd_from_tap_max;
	conn->wnd_from_tap_last_unscaled = t->wnd_from_tap_last_unscaled;
	conn->seq_from_tap = t->seq_from_tap;
	conn->seq_wnd_edge_to_tap = t->seq_wnd_edge_to_tap;
	conn->wnd_to_tap = t->wnd_to_tap;
	conn->rto_ms = t->rto_ms ? t->rto_ms : RTO_INIT_MS;
	conn->srtt_ms = t->srtt_ms;
	conn->rttvar_ms = t->rttvar_ms;
	conn->sock_sndbuf = t->sock_sndbuf;
	conn->orphan_until_ms = t->orphan_until_ms;
	conn->last_active_ms = ctx->now;
	tcp_stats.flows_opened++;

	if (flow_hash_add(flow) < 0 ||
	    tcp_epoll_ctl(ctx, conn, EPOLL_CTL_ADD) < 0) {
		tcp_rst(ctx, conn, "restart: can't take the connection");
		return;
	}
	/* A window update for the guest, then reads resume (EPOLLET: the
	 * ADD above reports what is already readable)
	 */
	if (conn->events & TEV_ESTABLISHED)
		conn_flag(conn, TFL_ACK_DUE | TFL_SOCK_DATA);
	tcp_timer_arm(ctx, conn);
}
