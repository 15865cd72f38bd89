// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp_mig_flows.c - Hand the guest's TCP connections to another passt
 *
 * Source (tcp_mig_save(), the guest is stopped): every established
 * connection's host socket goes into repair mode through passt-repair, all
 * of them in a few messages (repair_set(): up to 253 sockets each), is
 * dumped (passt/tcp_repair.c), and its flow and extended records are
 * written in upstream's layout (passt/tcp_migrate.h) into the device state.
 * Then the flows are released without a segment to anyone: their sockets
 * stay open in repair mode (late segments from the host peers meet a
 * socket that answers nothing, rather than none, which would reset them),
 * until we exit, or are closed at once with --migrate-no-linger.  If
 * anything fails before that, the sockets leave repair mode and the
 * migration is refused: the guest stays, with its connections.
 *
 * Destination (tcp_mig_load()): the whole section is checked first; then a
 * socket per connection, repair mode on all, each rebuilt bound to its old
 * address, repair mode off on all, and each flow resumes: we send the guest
 * an ACK (its window may have been waiting for one) and whatever it hasn't
 * acknowledged again, from SND.UNA (the bytes are still in the socket's
 * receive queue).  A connection that can't be rebuilt is reset on both
 * sides; the others go on.  Connections in the handshake are not moved: the
 * guest's retransmitted SYN opens a new one on the destination, and the
 * source resets their host peers once the migration is done
 * (tcp_mig_handshakes_drop()).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/util.h"
#include "../lib/visible.h"
#include "passt.h"
#include "repair.h"
#include "tcp.h"
#include "tcp_internal.h"
#include "tcp_mig_flows.h"
#include "tcp_migrate.h"
#include "tcp_repair.h"
#include "tcp_seq.h"

#define TCP_MIG_FLOWS_MAX	65536	/* connections per migration */

static int mig_fds[TCP_MIG_FLOWS_MAX];
static struct tcp_conn *mig_conns[TCP_MIG_FLOWS_MAX];
static struct tcp_mig_flow mig_rec[TCP_MIG_FLOWS_MAX];
static struct tcp_mig_ext mig_ext[TCP_MIG_FLOWS_MAX];
static const uint8_t *mig_q[TCP_MIG_FLOWS_MAX];
static bool mig_failed[TCP_MIG_FLOWS_MAX];
static int mig_linger[TCP_MIG_FLOWS_MAX];
static unsigned mig_nlinger;

/**
 * struct tcp_mig_pre - A connection's host side, read before the guest stops
 * @valid:	Read (by tcp_mig_prepare())
 * @sock:	The connection's socket then
 * @iss:	Its iss_to_tap then (random: a later connection in the same
 *		flow slot with the same descriptor doesn't have it)
 * @gport:	Its guest-side port then
 * @fport:	Its far-side port then
 * @side:	Host side: @side.oaddr, @side.oport our end (getsockname()),
 *		@side.eaddr, @side.eport the peer (getpeername())
 */
struct tcp_mig_pre {
	bool valid;
	int sock;
	uint32_t iss;
	uint16_t gport;
	uint16_t fport;
	struct tcp_mig_side side;
};

/* by flow index, below TCP_MIG_FLOWS_MAX */
static struct tcp_mig_pre mig_pre[TCP_MIG_FLOWS_MAX];

/**
 * tcp_mig_cpu_us() - CPU time of this thread (CLOCK_THREAD_CPUTIME_ID)
 *
 * For the log lines of a migration: the wall time a migration takes on a
 * loaded machine is mostly waiting for a CPU, its CPU time is our cost.
 *
 * #syscalls:passt clock_gettime
 * Return: microseconds, 0 if the clock can't be read
 */
static int64_t tcp_mig_cpu_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/**
 * tcp_mig_established() - Connections a migration moves
 * @ctx:	Context (unused)
 * @out:	Filled with them, TCP_MIG_FLOWS_MAX at most
 *
 * Return: their count, or -E2BIG if there are more than TCP_MIG_FLOWS_MAX
 */
static int tcp_mig_established(struct tcp_conn **out)
{
	unsigned i, n = 0;

	for (i = 0; i < flow_hwm(); i++) {
		union flow *flow = flow_at(i);

		if (flow->f.state != FLOW_STATE_ACTIVE ||
		    flow->f.type != FLOW_TCP ||
		    !(flow->tcp.events & TEV_ESTABLISHED) ||
		    flow->tcp.sock < 0)
			continue;
		if (n == TCP_MIG_FLOWS_MAX)
			return -E2BIG;
		out[n++] = &flow->tcp;
	}
	return (int)n;
}

/**
 * tcp_mig_side_from_sa() - Address and port of a socket address
 * @sa:		sockaddr_in or sockaddr_in6
 * @addr:	Set: IPv6, or IPv4-mapped
 * @port:	Set: host order
 */
static void tcp_mig_side_from_sa(const struct sockaddr_storage *sa,
				 struct in6_addr *addr, uint16_t *port)
{
	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)sa;
		union inany a;

		inany_from_v4(&a, a4->sin_addr);
		*addr = a.a6;
		*port = ntohs(a4->sin_port);
	} else {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)sa;

		*addr = a6->sin6_addr;
		*port = ntohs(a6->sin6_port);
	}
}

/**
 * tcp_mig_sa_from_side() - Socket address of an address and port
 * @sa:		Filled
 * @addr:	IPv6, or IPv4-mapped (then an AF_INET address)
 * @port:	Host order
 *
 * Return: length of @sa
 */
static socklen_t tcp_mig_sa_from_side(struct sockaddr_storage *sa,
				      const struct in6_addr *addr,
				      uint16_t port)
{
	memset(sa, 0, sizeof(*sa));
	if (IN6_IS_ADDR_V4MAPPED(addr)) {
		struct sockaddr_in *a4 = (struct sockaddr_in *)sa;

		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		memcpy(&a4->sin_addr, &addr->s6_addr[12], 4);
		return sizeof(*a4);
	} else {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)sa;

		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		a6->sin6_addr = *addr;
		return sizeof(*a6);
	}
}

/**
 * tcp_mig_host_side() - Read a connection's host-side addresses and ports
 * @conn:	Connection, socket connected
 * @side:	Filled: @oaddr, @oport our end, @eaddr, @eport the peer
 *
 * #syscalls:passt getsockname getpeername
 * Return: 0, or -errno from getsockname() or getpeername()
 */
static int tcp_mig_host_side(const struct tcp_conn *conn,
			     struct tcp_mig_side *side)
{
	struct sockaddr_storage a;
	socklen_t sl;

	sl = sizeof(a);
	if (getsockname(conn->sock, (struct sockaddr *)&a, &sl))
		return -errno;
	tcp_mig_side_from_sa(&a, &side->oaddr, &side->oport);
	sl = sizeof(a);
	if (getpeername(conn->sock, (struct sockaddr *)&a, &sl))
		return -errno;
	tcp_mig_side_from_sa(&a, &side->eaddr, &side->eport);
	return 0;
}

/**
 * tcp_mig_pre_get() - A connection's host side as tcp_mig_prepare() read it
 * @conn:	Connection
 *
 * Return: the host side, or NULL if not read, or read for another
 *	   connection that had the same flow slot
 */
static const struct tcp_mig_side *tcp_mig_pre_get(const struct tcp_conn *conn)
{
	unsigned i = flow_idx((const union flow *)conn);
	const struct tcp_mig_pre *p;

	if (i >= TCP_MIG_FLOWS_MAX)
		return NULL;
	p = &mig_pre[i];
	if (!p->valid || p->sock != conn->sock ||
	    p->iss != conn->iss_to_tap || p->gport != conn->f.key.gport ||
	    p->fport != conn->f.key.fport)
		return NULL;
	return &p->side;
}

/**
 * tcp_mig_prepare() - Read the host side of every connection a migration
 *		       would move, while the guest still runs
 *
 * A connected socket's addresses and ports don't change: tcp_mig_save()
 * then needs two system calls fewer per connection while the guest is
 * stopped.  Connections opened after this are read by tcp_mig_save()
 * itself.
 *
 * Context: migration source, dirty-page logging just started
 * Return: connections read
 */
unsigned tcp_mig_prepare(void)
{
	int64_t t0 = now_ms();
	unsigned i, n = 0;

	for (i = 0; i < flow_hwm() && i < TCP_MIG_FLOWS_MAX; i++) {
		union flow *flow = flow_at(i);
		struct tcp_mig_pre *p = &mig_pre[i];
		struct tcp_conn *conn = &flow->tcp;

		p->valid = false;
		if (flow->f.state != FLOW_STATE_ACTIVE ||
		    flow->f.type != FLOW_TCP ||
		    !(conn->events & TEV_ESTABLISHED) || conn->sock < 0 ||
		    tcp_mig_host_side(conn, &p->side))
			continue;
		p->sock = conn->sock;
		p->iss = conn->iss_to_tap;
		p->gport = conn->f.key.gport;
		p->fport = conn->f.key.fport;
		p->valid = true;
		n++;
	}
	if (n)
		info("migration: host side of %u TCP connection%s read "
		     "ahead in %lld ms", n, n == 1 ? "" : "s",
		     (long long)(now_ms() - t0));
	return n;
}

/**
 * tcp_mig_events_out() - Upstream's event bits for one of our connections
 * @conn:	Connection (established)
 *
 * Return: TCP_MIG_EV_* bits
 */
static uint8_t tcp_mig_events_out(const struct tcp_conn *conn)
{
	uint8_t ev = TCP_MIG_EV_ESTABLISHED;

	if (conn->events & TEV_SOCK_EOF)
		ev |= TCP_MIG_EV_SOCK_FIN_RCVD;
	if (conn->events & TEV_TAP_FIN_RCVD)	/* and shutdown() done */
		ev |= TCP_MIG_EV_TAP_FIN_RCVD | TCP_MIG_EV_SOCK_FIN_SENT;
	if (conn->events & TEV_TAP_FIN_SENT)
		ev |= TCP_MIG_EV_TAP_FIN_SENT;
	if (conn->events & TEV_TAP_FIN_ACKED)
		ev |= TCP_MIG_EV_TAP_FIN_ACKED;
	return ev;
}

/**
 * tcp_mig_record() - The flow record of one of our connections
 * @conn:	Connection (established), socket connected
 * @r:		Filled
 * @sndq:	Its host socket's send queue, bytes (dumped already)
 *
 * The guest side is the initiating one for connections the guest opened,
 * the target side for those we accepted on a forwarded port.  Windows go
 * unscaled, as upstream keeps them; upstream's seq_init_from_tap is the
 * sequence number whose ACK its destination derives from the host peer's
 * tcpi_bytes_acked on the new socket (which starts at 0): RCV.NXT less
 * the bytes the host peer hasn't ACKed.  The host side comes from
 * tcp_mig_prepare() if it read this connection's.
 *
 * Return: 0, or -errno from getsockname() or getpeername()
 */
static int tcp_mig_record(const struct tcp_conn *conn, struct tcp_mig_flow *r,
			  uint32_t sndq)
{
	int tap = conn->events & TEV_SOCK_ACCEPTED ? 1 : 0, host = !tap;
	const struct tcp_mig_side *pre = tcp_mig_pre_get(conn);
	int rc;

	memset(r, 0, sizeof(*r));
	r->pif[tap] = TCP_MIG_PIF_TAP;
	r->pif[host] = TCP_MIG_PIF_HOST;
	r->side[tap].eaddr = conn->f.key.gaddr.a6;
	r->side[tap].eport = conn->f.key.gport;
	r->side[tap].oaddr = conn->f.key.faddr.a6;
	r->side[tap].oport = conn->f.key.fport;
	if (pre)
		r->side[host] = *pre;
	else if ((rc = tcp_mig_host_side(conn, &r->side[host])))
		return rc;

	r->retries = conn->retrans > 7 ? 7 : conn->retrans;
	r->ws_from_tap = conn->ws_from_tap;
	r->ws_to_tap = conn->ws_to_tap;
	r->events = tcp_mig_events_out(conn);
	r->tap_mss = conn->mss_to_tap;
	r->sndbuf = conn->sock_sndbuf >> 8;
	if (conn->seq_ack_from_tap != conn->seq_to_tap)
		r->flags |= TCP_MIG_FL_ACK_FROM_TAP_DUE;
	r->dup_ack = (uint8_t)conn->seq_from_tap;
	r->wnd_from_tap = (uint16_t)MIN(conn->wnd_from_tap >> conn->ws_from_tap,
					65535U);
	r->wnd_to_tap = (uint16_t)MIN(conn->wnd_to_tap >> conn->ws_to_tap,
				      65535U);
	r->seq_to_tap = conn->seq_to_tap;
	r->seq_ack_from_tap = conn->seq_ack_from_tap;
	r->seq_from_tap = conn->seq_from_tap;
	r->seq_ack_to_tap = conn->seq_from_tap;
	r->seq_init_from_tap = conn->seq_from_tap - sndq;
	return 0;
}

/**
 * tcp_mig_save() - Dump the established connections into the device state
 * @ctx:	Context
 * @buf:	Where the flow section goes (after the flow count)
 * @room:	Bytes available at @buf
 * @nflows:	Set: connections written
 * @len:	Set: bytes written
 *
 * Context: migration source, guest stopped (SET_DEVICE_STATE_FD)
 * #syscalls:passt close
 * Return: 0 (the connections are gone from the table), or -errno with
 *	   nothing changed: -EBUSY without passt-repair or with a devmem
 *	   connection, -ENOBUFS if @room is too small, -EIO if the helper
 *	   failed, -E2BIG with too many connections
 */
int tcp_mig_save(struct ctx *ctx, uint8_t *buf, size_t room,
		 uint32_t *nflows, size_t *len)
{
	int64_t t0 = now_ms(), c0 = tcp_mig_cpu_us();
	size_t off;
	int n, i, rc;

	*nflows = 0;
	*len = 0;
	n = tcp_mig_established(mig_conns);
	if (n < 0) {
		warn("migration refused: more than %u TCP connections",
		     TCP_MIG_FLOWS_MAX);
		return n;
	}
	if (!n)
		return 0;
	if (!repair_connected()) {
		warn("migration refused: %d TCP connection%s open and no "
		     "passt-repair connected to move them; the guest stays "
		     "here", n, n == 1 ? "" : "s");
		return -EBUSY;
	}
	if ((size_t)n * (TCP_MIG_FLOW_LEN + TCP_MIG_EXT_LEN) > room)
		return -ENOBUFS;
	for (i = 0; i < n; i++) {
		if (mig_conns[i]->reader == TCP_RD_DEVMEM) {
			warn("migration refused: a TCP connection reads "
			     "through devmem, which can't be dumped");
			return -EBUSY;
		}
		mig_fds[i] = mig_conns[i]->sock;
	}
	if ((rc = repair_set(mig_fds, (unsigned)n, TCP_REPAIR_ON))) {
		warn("migration refused: passt-repair: %s", strerror(-rc));
		repair_set(mig_fds, (unsigned)n, TCP_REPAIR_OFF);
		return -EIO;
	}

	off = (size_t)n * TCP_MIG_FLOW_LEN;
	for (i = 0; i < n; i++) {
		struct tcp_conn *conn = mig_conns[i];
		uint8_t *x = buf + off;
		struct tcp_mig_ext e;
		struct tcp_mig_flow r;

		if (room - off < TCP_MIG_EXT_LEN) {
			rc = -ENOBUFS;
			goto rollback;
		}
		rc = tcp_repair_dump(conn->sock, &e, x + TCP_MIG_EXT_LEN,
				     room - off - TCP_MIG_EXT_LEN);
		if (rc == -ENOBUFS)
			goto rollback;
		if (rc) {
			/* as upstream: the destination drops this one */
			flow_dbg(conn, "can't dump for migration: %s",
				 strerror(-rc));
			memset(&e, 0, sizeof(e));
		}
		if ((rc = tcp_mig_record(conn, &r, e.sndq)))
			goto rollback;
		tcp_mig_flow_encode(&r, buf + (size_t)i * TCP_MIG_FLOW_LEN);
		tcp_mig_ext_encode(&e, x);
		off += TCP_MIG_EXT_LEN + (e.tcpi_state ? e.sndq + e.rcvq : 0);
		flow_dbg(conn, "migrating: state %u, send queue %u (not sent "
			 "%u), receive queue %u", e.tcpi_state, e.sndq,
			 e.notsent, e.rcvq);
	}

	/* Committed: let the flows go without a segment */
	for (i = 0; i < n; i++) {
		struct tcp_conn *conn = mig_conns[i];

		if (ctx->c.migrate_no_linger ||
		    mig_nlinger == TCP_MIG_FLOWS_MAX)
			close(conn->sock);
		else
			mig_linger[mig_nlinger++] = conn->sock;
		conn->sock = -1;
		tcp_conn_free(conn, false, "migrated");
	}
	info("migration: %d TCP connection%s handed over (%zu bytes) in %lld "
	     "ms (%.1f ms CPU)", n, n == 1 ? "" : "s", off,
	     (long long)(now_ms() - t0),
	     (double)(tcp_mig_cpu_us() - c0) / 1000.0);
	*nflows = (uint32_t)n;
	*len = off;
	return 0;

rollback:
	warn("migration refused: TCP connections don't fit in the device "
	     "state: %s", strerror(-rc));
	repair_set(mig_fds, (unsigned)n, TCP_REPAIR_OFF);
	/* the dump turned SO_PEEK_OFF off: the readers go on where they were */
	for (i = 0; i < n; i++) {
		struct tcp_conn *conn = mig_conns[i];

		if (rd(conn)->rewind(conn, conn->seq_to_tap -
					   conn->seq_ack_from_tap) < 0)
			tcp_rst(ctx, conn, "migration refused, can't rewind");
	}
	return rc;
}

/**
 * tcp_mig_handshakes_drop() - Source, migration done: end the connections
 *			       still in their handshake with the guest
 *
 * They don't move (neither upstream's stream nor ours carries one: the
 * guest side has no agreed state yet), and the guest, on the destination
 * now, will never finish them here.  A host peer whose connection we
 * accepted on a forwarded port, or that accepted ours, gets an RST at
 * once, rather than after our SYN (or SYN-ACK) retries to a guest that
 * is gone (SYN_RETRIES, about two minutes): it may try again, and reach
 * the guest where it runs now.  A connect() still in progress is just
 * closed, which sends nothing.  The guest, for its side: a SYN it sent
 * and saw no answer to is sent again to the destination, which opens the
 * connection afresh; a SYN-ACK it gets from the destination, or an ACK of
 * ours it answers there, finds no connection and is reset (RFC 9293
 * 3.10.7.1), as with upstream.  No segment to the guest from here.
 *
 * Context: migration source, after the front-end checked the state
 *	    (CHECK_DEVICE_STATE)
 * Return: connections ended
 */
unsigned tcp_mig_handshakes_drop(void)
{
	unsigned i, n = 0;

	for (i = 0; i < flow_hwm(); i++) {
		union flow *flow = flow_at(i);
		struct tcp_conn *conn = &flow->tcp;
		bool rst;

		if (flow->f.state != FLOW_STATE_ACTIVE ||
		    flow->f.type != FLOW_TCP ||
		    (conn->events & TEV_ESTABLISHED))
			continue;
		rst = conn->events & (TEV_SOCK_ACCEPTED | TEV_SOCK_CONNECTED);
		tcp_conn_free(conn, rst, "migrated in the handshake");
		n++;
	}
	return n;
}

/**
 * tcp_mig_check() - Check the flow section of a device state
 * @buf:	Section: @n flow records, then @n extended records each with
 *		its queues
 * @len:	Bytes in @buf (the whole rest of the stream)
 * @n:		Flow count
 *
 * Fills mig_rec[], mig_ext[] and mig_q[] (each connection's queues).
 *
 * Return: 0, or -EPROTO (logged) if anything is out of place
 */
VISIBLE_IF_UNIT
int tcp_mig_check(const uint8_t *buf, size_t len, uint32_t n)
{
	size_t off;
	uint32_t i;
	int rc;

	if (n > TCP_MIG_FLOWS_MAX ||
	    (size_t)n * (TCP_MIG_FLOW_LEN + TCP_MIG_EXT_LEN) > len) {
		warn("migration: %u TCP connections in %zu bytes: refused",
		     n, len);
		return -EPROTO;
	}
	for (i = 0; i < n; i++) {
		rc = tcp_mig_flow_decode(buf + (size_t)i * TCP_MIG_FLOW_LEN,
					 &mig_rec[i]);
		if (rc) {
			warn("migration: TCP connection %u: %s", i,
			     tcp_mig_err_str[-rc]);
			return -EPROTO;
		}
	}
	off = (size_t)n * TCP_MIG_FLOW_LEN;
	for (i = 0; i < n; i++) {
		struct tcp_mig_ext *e = &mig_ext[i];

		if (len - off < TCP_MIG_EXT_LEN) {
			warn("migration: TCP data truncated at connection %u",
			     i);
			return -EPROTO;
		}
		rc = tcp_mig_ext_decode(buf + off, e);
		if (rc) {
			warn("migration: TCP connection %u: %s", i,
			     tcp_mig_err_str[-rc]);
			return -EPROTO;
		}
		off += TCP_MIG_EXT_LEN;
		mig_q[i] = buf + off;
		if (!e->tcpi_state)
			continue;
		if (len - off < (size_t)e->sndq + e->rcvq) {
			warn("migration: TCP queues truncated at connection %u",
			     i);
			return -EPROTO;
		}
		off += (size_t)e->sndq + e->rcvq;
	}
	if (off != len) {
		warn("migration: %zu bytes after the TCP connections",
		     len - off);
		return -EPROTO;
	}
	return 0;
}

/**
 * tcp_mig_events_in() - Set our events for a migrated connection
 * @conn:	New connection (zeroed events)
 * @r:		Its flow record
 * @e:		Its extended record
 *
 * The opening events by who opened it, then ESTABLISHED, then the FIN
 * events one at a time, through the setter (tcp_events_set()), in the
 * order the kernel's state says the FINs came: in FIN-WAIT-1/2 or CLOSING
 * the guest closed first (the host socket sent its FIN), in CLOSE-WAIT or
 * LAST-ACK the host peer did.
 */
static void tcp_mig_events_in(struct tcp_conn *conn,
			      const struct tcp_mig_flow *r,
			      const struct tcp_mig_ext *e)
{
	bool guest_first = e->tcpi_state == TCP_MIG_ST_FIN_WAIT1 ||
			   e->tcpi_state == TCP_MIG_ST_FIN_WAIT2 ||
			   e->tcpi_state == TCP_MIG_ST_CLOSING;
	bool tap_fin = r->events & TCP_MIG_EV_TAP_FIN_RCVD;
	bool eof = r->events & TCP_MIG_EV_SOCK_FIN_RCVD;

	if (tcp_mig_flow_tap_side(r) == 0) {
		conn_event(conn, TEV_TAP_SYN_RCVD);
		conn_event(conn, TEV_SOCK_CONNECTED);
	} else {
		conn_event(conn, TEV_SOCK_ACCEPTED | TEV_TAP_SYN_SENT);
	}
	conn_event(conn, TEV_ESTABLISHED);
	if (tap_fin && guest_first)
		conn_event(conn, TEV_TAP_FIN_RCVD);
	if (eof) {
		conn_event(conn, TEV_SOCK_EOF);
		if (r->events & TCP_MIG_EV_TAP_FIN_SENT)
			conn_event(conn, TEV_TAP_FIN_SENT);
		if (r->events & TCP_MIG_EV_TAP_FIN_ACKED)
			conn_event(conn, TEV_TAP_FIN_SENT | TEV_TAP_FIN_ACKED);
	}
	if (tap_fin && !guest_first)
		conn_event(conn, TEV_TAP_FIN_RCVD);
}

/**
 * tcp_mig_conn_new() - A flow and a socket for a migrated connection
 * @ctx:	Context
 * @r:		Its flow record
 *
 * #syscalls:passt socket setsockopt
 * Return: the connection (socket open, not bound, not in epoll yet), or
 *	   NULL (flow table full, key taken, or no socket)
 */
static struct tcp_conn *tcp_mig_conn_new(struct ctx *ctx,
					 const struct tcp_mig_flow *r)
{
	int tap = tcp_mig_flow_tap_side(r), one = 1, af;
	const struct tcp_mig_side *g = &r->side[tap];
	union inany ga, fa;
	struct tcp_conn *conn;
	union flow *flow;

	flow = flow_alloc(ctx);
	if (!flow)
		return NULL;
	conn = &flow->tcp;
	flow_activate(flow, FLOW_TCP);
	conn->sock = -1;
	ga.a6 = g->eaddr;
	fa.a6 = g->oaddr;
	flow_key_fill(&conn->f.key, IPPROTO_TCP, &ga, g->eport, &fa,
		      g->oport);
	if (flow_hash_add(flow) < 0) {
		flow_free(flow);
		return NULL;
	}
	if (IN6_IS_ADDR_V4MAPPED(&g->eaddr))
		conn_flag(conn, TFL_IPV4);
	af = IN6_IS_ADDR_V4MAPPED(&r->side[!tap].eaddr) ? AF_INET : AF_INET6;
	conn->sock = socket(af, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    IPPROTO_TCP);
	if (conn->sock < 0) {
		flow_free(flow);
		return NULL;
	}
	setsockopt(conn->sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(conn->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(conn->sock, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	conn->reader = tcp_reader_of(af);
	tcp_stats.flows_opened++;
	return conn;
}

/**
 * tcp_mig_conn_state() - Our state of a migrated connection from its records
 * @ctx:	Context
 * @conn:	Connection, socket rebuilt
 * @r:		Flow record
 * @e:		Extended record
 *
 * Sending resumes at SND.UNA: what the guest hasn't ACKed is sent again
 * (the socket's receive queue starts with it); SND.NXT as the source had
 * it stays the highest sequence number the guest may ACK.  If the host
 * peer's FIN was in the socket before the move (CLOSE-WAIT, LAST-ACK),
 * the rebuilt socket doesn't hold it (tcp_repair.c): the stream ends after
 * the queue (TFL_SOCK_RDHUP, with the reader that honours it).
 */
static void tcp_mig_conn_state(struct ctx *ctx, struct tcp_conn *conn,
			       const struct tcp_mig_flow *r,
			       const struct tcp_mig_ext *e)
{
	int af = conn_af(conn);
	uint32_t mss_max = (uint32_t)ctx->c.mtu - (af == AF_INET ? 40U : 60U);

	conn->ws_from_tap = r->ws_from_tap;
	conn->ws_to_tap = r->ws_to_tap;
	conn->mss_to_tap = (uint16_t)MIN(r->tap_mss, mss_max);
	conn->iss_to_tap = r->seq_ack_from_tap - 1;
	conn->seq_ack_from_tap = r->seq_ack_from_tap;
	conn->seq_to_tap = r->seq_ack_from_tap;
	conn->seq_max_to_tap = r->seq_to_tap;
	if (seq_gt(conn->seq_to_tap, conn->seq_max_to_tap))
		conn->seq_max_to_tap = conn->seq_to_tap;
	tcp_snd_wnd_set(conn, (uint32_t)r->wnd_from_tap << r->ws_from_tap);
	conn->wnd_from_tap_last_unscaled = r->wnd_from_tap;
	conn->seq_from_tap = r->seq_from_tap;
	conn->wnd_to_tap = (uint32_t)r->wnd_to_tap << r->ws_to_tap;
	conn->seq_wnd_edge_to_tap = conn->seq_from_tap + conn->wnd_to_tap;
	conn->sock_sndbuf = r->sndbuf << 8;
	conn->rto_ms = RTO_INIT_MS;
	conn->last_active_ms = ctx->now;
	tcp_mig_events_in(conn, r, e);
	if (conn->events & TEV_SOCK_EOF) {
		conn->seq_fin_to_tap = conn->events & TEV_TAP_FIN_ACKED ?
				       r->seq_ack_from_tap - 1 :
				       r->seq_ack_from_tap + e->rcvq;
	}
	if (e->tcpi_state == TCP_MIG_ST_CLOSE_WAIT ||
	    e->tcpi_state == TCP_MIG_ST_LAST_ACK) {
		conn_flag(conn, TFL_SOCK_RDHUP);
		if (conn->reader == TCP_RD_PEEK_OFF)
			conn->reader = TCP_RD_PEEK_DISCARD;
	}
}

/**
 * tcp_mig_load() - Rebuild the connections of a device state's flow section
 * @ctx:	Context
 * @buf:	Section (after the flow count)
 * @len:	Its length, to the end of the stream
 * @n:		Flow count
 *
 * Context: migration destination, guest stopped; the stream is whole
 * #syscalls:passt close epoll_ctl
 * Return: 0 (connections that couldn't be rebuilt are reset), -EPROTO if
 *	   the section is invalid (nothing done), -ENOTCONN if no
 *	   passt-repair connected in time
 */
int tcp_mig_load(struct ctx *ctx, const uint8_t *buf, size_t len, uint32_t n)
{
	int64_t t0 = now_ms(), c0 = tcp_mig_cpu_us();
	unsigned i, k = 0, ok = 0;
	int rc;

	if (tcp_mig_check(buf, len, n))
		return -EPROTO;
	if (!n)
		return 0;
	if (!repair_wait(ctx, 10000)) {
		warn("migration: %u TCP connection%s to restore and no "
		     "passt-repair", n, n == 1 ? "" : "s");
		return -ENOTCONN;
	}

	for (i = 0; i < n; i++) {
		mig_conns[i] = NULL;
		if (!mig_ext[i].tcpi_state) {
			warn("migration: TCP connection %u not dumped by the "
			     "source: dropped", i);
			continue;
		}
		mig_conns[i] = tcp_mig_conn_new(ctx, &mig_rec[i]);
		if (!mig_conns[i]) {
			warn("migration: no flow or socket for TCP connection "
			     "%u: dropped", i);
			continue;
		}
		mig_fds[k++] = mig_conns[i]->sock;
	}
	if ((rc = repair_set(mig_fds, k, TCP_REPAIR_ON))) {
		warn("migration: passt-repair: %s", strerror(-rc));
		for (i = 0; i < n; i++)
			if (mig_conns[i])
				tcp_conn_free(mig_conns[i], false,
					      "no repair mode");
		return -EIO;
	}

	k = 0;
	for (i = 0; i < n; i++) {
		const struct tcp_mig_flow *r = &mig_rec[i];
		const struct tcp_mig_ext *e = &mig_ext[i];
		struct tcp_conn *conn = mig_conns[i];
		int host = !tcp_mig_flow_tap_side(r);
		struct sockaddr_storage la, pa;
		socklen_t sl;

		mig_failed[i] = false;
		if (!conn)
			continue;
		sl = tcp_mig_sa_from_side(&la, &r->side[host].oaddr,
					  r->side[host].oport);
		tcp_mig_sa_from_side(&pa, &r->side[host].eaddr,
				     r->side[host].eport);
		rc = tcp_repair_restore(conn->sock, (struct sockaddr *)&la,
					(struct sockaddr *)&pa, sl, e,
					mig_q[i], mig_q[i] + e->sndq);
		if (rc) {
			flow_dbg(conn, "can't rebuild: %s", strerror(-rc));
			warn("migration: TCP connection %u: can't rebuild its "
			     "socket: %s", i, strerror(-rc));
			mig_fds[k++] = conn->sock;	/* leave repair */
			tcp_mig_conn_state(ctx, conn, r, e);
			mig_failed[i] = true;
			continue;
		}
		mig_fds[k++] = conn->sock;
	}
	if ((rc = repair_set(mig_fds, k, TCP_REPAIR_OFF)))
		warn("migration: passt-repair, leaving repair mode: %s",
		     strerror(-rc));

	for (i = 0; i < n; i++) {
		const struct tcp_mig_ext *e = &mig_ext[i];
		struct tcp_conn *conn = mig_conns[i];

		if (!conn)
			continue;
		if (mig_failed[i]) {
			tcp_rst(ctx, conn, "migration: socket not rebuilt");
			continue;
		}
		tcp_mig_conn_state(ctx, conn, &mig_rec[i], e);
		if (rc || (rc = tcp_repair_restore_finish(conn->sock, e,
							   mig_q[i]))) {
			warn("migration: TCP connection %u: %s", i,
			     strerror(-rc));
			tcp_rst(ctx, conn, "migration: not resumed");
			rc = 0;
			continue;
		}
		if (tcp_epoll_ctl(ctx, conn, EPOLL_CTL_ADD) < 0 ||
		    rd(conn)->start(conn) < 0) {
			tcp_rst(ctx, conn, "migration: epoll or reader");
			continue;
		}
		if ((conn->events & TEV_TAP_FIN_RCVD) &&
		    e->tcpi_state != TCP_MIG_ST_FIN_WAIT1 &&
		    e->tcpi_state != TCP_MIG_ST_FIN_WAIT2 &&
		    e->tcpi_state != TCP_MIG_ST_CLOSING &&
		    e->tcpi_state != TCP_MIG_ST_LAST_ACK)
			shutdown(conn->sock, SHUT_WR);
		flow_dbg(conn, "migrated: %s, send queue %u, receive queue %u",
			 tcp_state_str[conn->state], e->sndq, e->rcvq);
		tcp_send_flags(ctx, conn, F_ACK);
		/* an empty queue and no end of stream: nothing to send, and
		 * no read() to find that out (epoll says when bytes come)
		 */
		if (e->rcvq || (conn->events & TEV_SOCK_EOF) ||
		    (conn->flags & TFL_SOCK_RDHUP)) {
			conn_flag(conn, TFL_SOCK_DATA);
			if (tcp_data_from_sock(ctx, conn) < 0)
				continue;
		}
		tcp_timer_arm(ctx, conn);
		ok++;
	}
	info("migration: %u of %u TCP connection%s restored in %lld ms (%.1f "
	     "ms CPU)", ok, n, n == 1 ? "" : "s", (long long)(now_ms() - t0),
	     (double)(tcp_mig_cpu_us() - c0) / 1000.0);
	return 0;
}
