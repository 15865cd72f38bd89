// SPDX-License-Identifier: GPL-2.0-or-later
/* splice/tcp_splice.c - Loopback TCP forwarding between namespaces with
 *			 splice(2)
 *
 * Connections between loopback addresses on both sides never become frames:
 * two sockets are joined by a pair of pipes, and data moves socket -> pipe
 * -> socket inside the kernel.
 *
 * DOC: Theory of Operation
 *
 * Which connections.  pasta only.  A connection accepted on a -t port
 * whose peer is a loopback address of the host (127.0.0.0/8, ::1, also
 * IPv4-mapped on a dual-stack listener) is carried by a new connection
 * inside the namespace to its own address (its loopback with
 * --host-lo-to-ns-lo), target port, so services bound to the namespace's
 * loopback only stay private.  A
 * connection accepted on a -T port (listening on the namespace's loopback,
 * 0.0.0.0 bound to lo for all of 127.0.0.0/8, and ::1) is carried by a new
 * connection to the same loopback address of the host at the target port
 * (127.0.0.53 to 127.0.0.53); one to the namespace's own address, which lo
 * carries too, is reset.  The family follows the peer.
 * Other -t connections, and all of them with --no-splice, take the tap
 * path (passt/tcp.c); -T connections have no tap path and are always
 * spliced.
 *
 * Sockets.  The daemon's own network namespace is the host's, so sockets
 * towards the host are plain socket() calls.  Sockets towards the
 * namespace come from a helper process that entered the namespace once at
 * start-up (passt/nsock.c), through a pool: the daemon never enters the
 * namespace per connection, and nothing here needs privileges once set up.
 *
 * Data.  Side 0 is the accepted socket, side 1 the one we connect.  Each
 * direction d has its own pipe: splice() moves bytes from s[d] into
 * pipe[d], then from pipe[d] into s[!d], with SPLICE_F_NONBLOCK on
 * non-blocking sockets and pipes, so no byte is ever copied to userspace.
 * We read into a pipe only once it's empty, so EAGAIN from the reading
 * splice() always means "socket empty", never "pipe full".  Each event
 * runs at most SPLICE_ROUNDS read/write rounds per direction and goes back
 * to epoll: sockets are level-triggered, so whatever is left is reported
 * again, and one busy connection can't starve the others.
 *
 * Back-pressure.  When the writing splice() gets EAGAIN, the bytes stay in
 * the pipe, the direction is marked SFL_OUT_WAIT, the reading socket loses
 * EPOLLIN (its data stays in its receive queue, so its window closes and
 * the sender slows down) and the writing socket gains EPOLLOUT.  When that
 * fires the pipe is flushed first, then reading resumes.
 *
 * Events, level-triggered.  The interest set of each socket is derived from
 * the state after every change (splice_mask()) and epoll_ctl() is called
 * only when it differs from what is registered.  EPOLLHUP can't be masked:
 * it comes once a socket is shut down both ways, and a socket we can't
 * read from then (pipe still full) would report it in a loop, so a socket
 * whose write side we have shut down leaves the epoll set when it has
 * nothing else to wait for.  Sockets we still write to stay in the set
 * even with an empty mask, so an error (a reset) on them is seen at once.
 *
 * Closing.  EOF read from s[d] (the peer's FIN) becomes shutdown(s[!d],
 * SHUT_WR) once pipe[d] is drained: the other direction keeps flowing
 * (half-close).  When both directions have done that, both sockets are
 * closed and the pipes, empty, go back to the pool.  An error on either
 * socket (EPOLLERR with SO_ERROR set, or a failing splice()), a refused
 * connect() and a connect() that doesn't complete within
 * SPLICE_CONNECT_TIMEOUT_MS reset the other side: SO_LINGER with a zero
 * timeout, then close(), sends an RST; pipes that may hold data are closed.
 *
 * Pools and limits.  Pipes are created with O_NONBLOCK and resized to
 * SPLICE_PIPE_SIZE with F_SETPIPE_SZ (a refusal, say over the user's pipe
 * quota, keeps the default size and isn't an error).  256 KiB: 1 MiB pipes
 * saved about 7% of CPU time per byte in our iperf3 runs, but unprivileged
 * users have a pipe quota (fs.pipe-user-pages-soft, 64 MiB by default)
 * that 1 MiB pipes would exhaust at 32 connections, after which the kernel
 * hands out pipes of two pages.  Up to SPLICE_PIPE_POOL idle pipes are
 * kept: connections take two and give them back if they are empty; the
 * pool is refilled from the timer, which a connection that took from a
 * pool asks for right after the current wake-up.  A connection costs one
 * flow table entry (--flow-max bounds them), two sockets and four pipe
 * ends; no memory is allocated.
 *
 * Timers.  Only connect() has a deadline: the flow layer's timer pass
 * calls splice_tick() (refills the pipe pool) and splice_flow_timer() for
 * each connection (resets an expired connect()).  The namespace socket
 * pools are refilled by the core (passt/nsock.c).
 *
 * The core never calls this file by name: it registers the operations of
 * FLOW_TCP_SPLICE (socket events, accept, timer, drain, abort, counters)
 * with the flow layer, and passt/fwd.c decides which connections come
 * here (fwd_tcp_path()).
 *
 * Stale events.  One epoll_wait() can return an event for a socket that
 * an earlier event of the same batch closed, and the flow entry may have
 * been taken again since: events whose fd isn't the entry's socket are
 * dropped, and EPOLLERR is only trusted if SO_ERROR holds an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/visible.h"
#include "../passt/epoll_ref.h"
#include "../passt/flow_table.h"
#include "../passt/fwd.h"
#include "../passt/nsock.h"
#include "../passt/ctx.h"
#include "../passt/restart.h"
#include "splice.h"
#include "tcp_splice.h"
#include "tcp_splice_internal.h"

/* Our entries are cast from union flow, which doesn't list this type */
_Static_assert(sizeof(struct tcp_splice_conn) <= sizeof(union flow),
	       "struct tcp_splice_conn doesn't fit in a flow table entry");

VISIBLE_IF_UNIT
struct splice_stats splice_stats;

/**
 * splice_conn_of() - The spliced connection in a flow table entry
 * @flow:	Entry of type FLOW_TCP_SPLICE
 *
 * Return: the same entry, as struct tcp_splice_conn
 */
static struct tcp_splice_conn *splice_conn_of(union flow *flow)
{
	return (struct tcp_splice_conn *)(void *)flow;
}

static int splice_pipe_pool[SPLICE_PIPE_POOL][2];
static unsigned splice_pipe_n;		/* idle pipes in the pool */
static bool splice_on;			/* splice_init() enabled the path */
static bool splice_no_reads;		/* exit drain gave up: pipes only */

/* Names of the bits of enum splice_ev and enum splice_fl, by bit number */
static const char *const splice_ev_str[SEV_COUNT] = {
	"SEV_CONNECTING", "SEV_FIN_RCVD_0", "SEV_FIN_RCVD_1",
	"SEV_FIN_SENT_0", "SEV_FIN_SENT_1",
};
static const char *const splice_fl_str[SFL_COUNT] = {
	"SFL_OUT_WAIT_0", "SFL_OUT_WAIT_1", "SFL_FROM_NS", "SFL_IPV6",
	"SFL_V4_FALLBACK",
};
_Static_assert(SEV_FIN_SENT_1 == 1U << (SEV_COUNT - 1) &&
	       SFL_V4_FALLBACK == 1U << (SFL_COUNT - 1),
	       "splice_ev_str or splice_fl_str out of sync");

/**
 * splice_ev_fmt() - Names of the event bits set, for logs
 * @events:	enum splice_ev bits
 * @buf:	Output
 * @len:	Size of @buf
 *
 * Return: @buf
 */
static const char *splice_ev_fmt(unsigned events, char *buf, size_t len)
{
	size_t off = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < SEV_COUNT && off < len; i++) {
		int n;

		if (!(events & (1U << i)))
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off ? "|" : "",
			     splice_ev_str[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}

/**
 * splice_events_valid() - Is a set of events one a connection can have?
 * @events:	enum splice_ev bits
 *
 * Nothing is read while connect() is in progress, so no EOF either; a
 * direction is shut (SEV_FIN_SENT_x) only after its EOF (SEV_FIN_RCVD_x).
 *
 * Return: true if possible
 */
static bool splice_events_valid(unsigned events)
{
	unsigned d;

	if (events & ~((1U << SEV_COUNT) - 1))
		return false;
	if ((events & SEV_CONNECTING) && (events & ~(unsigned)SEV_CONNECTING))
		return false;
	for (d = 0; d < 2; d++)
		if ((events & SEV_FIN_SENT(d)) && !(events & SEV_FIN_RCVD(d)))
			return false;
	return true;
}

/**
 * splice_events_allowed() - May a connection's events change like this?
 * @old:	Current enum splice_ev bits (valid)
 * @events:	New bits
 *
 * SEV_CONNECTING comes and goes (an IPv4 fallback connects again); the
 * end-of-stream events are never taken back.
 *
 * Return: true if allowed (also if nothing changes)
 */
VISIBLE_IF_UNIT
bool splice_events_allowed(unsigned old, unsigned events)
{
	return splice_events_valid(events) &&
	       !(old & ~events & ~(unsigned)SEV_CONNECTING);
}

/**
 * splice_flags_allowed() - May a connection's flags change like this?
 * @events:	Its enum splice_ev bits
 * @old:	Current enum splice_fl bits
 * @flags:	New bits
 *
 * SFL_FROM_NS and SFL_IPV6 are set at accept, before any event, and never
 * change; SFL_V4_FALLBACK is set once, for an IPv6 connection from the
 * host, and never cleared; SFL_OUT_WAIT_x come and go.
 *
 * Return: true if allowed
 */
VISIBLE_IF_UNIT
bool splice_flags_allowed(unsigned events, unsigned old, unsigned flags)
{
	unsigned changed = old ^ flags;

	if (flags & ~((1U << SFL_COUNT) - 1))
		return false;
	if ((changed & (SFL_FROM_NS | SFL_IPV6)) && events)
		return false;
	if (changed & SFL_V4_FALLBACK)
		return (flags & SFL_V4_FALLBACK) && (flags & SFL_IPV6) &&
		       !(flags & SFL_FROM_NS);
	return true;
}

/**
 * splice_events_set() - Write a connection's events: the only writer
 * @conn:	Connection
 * @events:	New enum splice_ev bits (splice_events_allowed(), asserted)
 *
 * Logs the change at debug level: "flow N spliced TCP: +SEV_FIN_RCVD_0".
 */
static void splice_events_set(struct tcp_splice_conn *conn, unsigned events)
{
	char buf[96];

	if (events == conn->events)
		return;
	ASSERT(splice_events_allowed(conn->events, events));
	if (log_level >= LOG_DEBUG)
		flow_dbg(conn, "%s", log_bits_fmt(conn->events, events,
						  splice_ev_str, SEV_COUNT,
						  buf, sizeof(buf)));
	conn->events = (uint8_t)events;
}

/**
 * splice_event() - Events happened on a connection
 * @conn:	Connection
 * @ev:		enum splice_ev bits to set
 */
static void splice_event(struct tcp_splice_conn *conn, unsigned ev)
{
	splice_events_set(conn, conn->events | ev);
}

/**
 * splice_event_clear() - Take an event back (SEV_CONNECTING only)
 * @conn:	Connection
 * @ev:		enum splice_ev bits to clear
 */
static void splice_event_clear(struct tcp_splice_conn *conn, unsigned ev)
{
	splice_events_set(conn, conn->events & ~ev);
}

/**
 * splice_flags_set() - Write a connection's flags: the only writer
 * @conn:	Connection
 * @flags:	New enum splice_fl bits (splice_flags_allowed(), asserted)
 *
 * Logs the change at trace level (SFL_OUT_WAIT_x follow back-pressure).
 */
static void splice_flags_set(struct tcp_splice_conn *conn, unsigned flags)
{
	char buf[96];

	if (flags == conn->flags)
		return;
	ASSERT(splice_flags_allowed(conn->events, conn->flags, flags));
	if (log_trace_on)
		trace("flow %u spliced TCP: %s",
		      flow_idx((const union flow *)conn),
		      log_bits_fmt(conn->flags, flags, splice_fl_str,
				   SFL_COUNT, buf, sizeof(buf)));
	conn->flags = (uint8_t)flags;
}

/**
 * splice_flag() - Set flags of a connection
 * @conn:	Connection
 * @fl:		enum splice_fl bits to set
 */
static void splice_flag(struct tcp_splice_conn *conn, unsigned fl)
{
	splice_flags_set(conn, conn->flags | fl);
}

/**
 * splice_flag_clear() - Clear flags of a connection
 * @conn:	Connection
 * @fl:		enum splice_fl bits to clear
 */
static void splice_flag_clear(struct tcp_splice_conn *conn, unsigned fl)
{
	splice_flags_set(conn, conn->flags & ~fl);
}

/**
 * splice_pipe_new() - Create a non-blocking pipe and try to enlarge it
 * @p:		Result: read end, write end
 *
 * #syscalls pipe2 fcntl
 * Return: 0, or -errno from pipe2() (-EMFILE, -ENFILE)
 */
static int splice_pipe_new(int p[2])
{
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC))
		return -errno;
	/* May fail (pipe-max-size, pipe-user-pages-soft): keep the default */
	fcntl(p[0], F_SETPIPE_SZ, SPLICE_PIPE_SIZE);
	return 0;
}

/**
 * splice_pipe_take() - An empty pipe: from the pool, else a new one
 * @p:		Result: read end, write end; both -1 on failure
 *
 * Return: 0, or -errno from pipe2()
 */
VISIBLE_IF_UNIT
int splice_pipe_take(int p[2])
{
	int ret;

	if (splice_pipe_n) {
		splice_pipe_n--;
		p[0] = splice_pipe_pool[splice_pipe_n][0];
		p[1] = splice_pipe_pool[splice_pipe_n][1];
		return 0;
	}
	if ((ret = splice_pipe_new(p)) < 0)
		p[0] = p[1] = -1;
	return ret;
}

/**
 * splice_pipe_close() - Close both ends of a pipe
 * @p:		Read end, write end (set to -1)
 *
 * #syscalls close
 */
static void splice_pipe_close(int p[2])
{
	close(p[0]);
	close(p[1]);
	p[0] = p[1] = -1;
}

/**
 * splice_pipe_put() - Give back a connection's pipe: pool if empty and room
 * @p:		Read end, write end, or -1 (set to -1)
 * @empty:	No bytes left in it
 */
static void splice_pipe_put(int p[2], bool empty)
{
	if (p[0] < 0)
		return;
	if (empty && splice_pipe_n < SPLICE_PIPE_POOL) {
		splice_pipe_pool[splice_pipe_n][0] = p[0];
		splice_pipe_pool[splice_pipe_n][1] = p[1];
		splice_pipe_n++;
		p[0] = p[1] = -1;
		return;
	}
	splice_pipe_close(p);
}

/**
 * splice_pipe_refill() - Fill the pipe pool up to SPLICE_PIPE_POOL
 *
 * Context: set-up and timer; stops quietly at the first failure (EMFILE:
 *	    connections create pipes themselves then)
 */
static void splice_pipe_refill(void)
{
	while (splice_pipe_n < SPLICE_PIPE_POOL &&
	       !splice_pipe_new(splice_pipe_pool[splice_pipe_n]))
		splice_pipe_n++;
}

/**
 * splice_pipe_pool_count() - Idle pipes in the pool (for tests)
 *
 * Return: count
 */
VISIBLE_IF_UNIT
unsigned splice_pipe_pool_count(void)
{
	return splice_pipe_n;
}

/**
 * splice_mask() - epoll events a socket needs in the current state
 * @conn:	Connection
 * @x:		Side
 *
 * Return: EPOLLIN if we read from s[x] now, EPOLLOUT if we wait to write to
 *	   it (or for its connect() to complete), or 0
 */
static uint32_t splice_mask(const struct tcp_splice_conn *conn, unsigned x)
{
	uint32_t m = 0;

	if (conn->events & SEV_CONNECTING)
		return x ? EPOLLOUT : 0;
	if (!(conn->events & SEV_FIN_RCVD(x)) &&
	    !(conn->flags & SFL_OUT_WAIT(x)) && !splice_no_reads)
		m |= EPOLLIN;
	if (conn->flags & SFL_OUT_WAIT(!x))
		m |= EPOLLOUT;
	return m;
}

/**
 * splice_epoll_set() - Bring a socket's epoll registration up to date
 * @ctx:	Context
 * @conn:	Connection
 * @x:		Side
 *
 * A socket stays registered with an empty mask (for EPOLLERR) while we may
 * still write to it; once its write side is shut down, an empty mask takes
 * it out of the set (it would report EPOLLHUP endlessly).
 *
 * #syscalls epoll_ctl
 * Return: 0, or -errno from epoll_ctl()
 */
static int splice_epoll_set(const struct ctx *ctx,
			    struct tcp_splice_conn *conn, unsigned x)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TCP_SPLICE };
	uint32_t m = splice_mask(conn, x);
	struct epoll_event ev;
	uint8_t want;
	int op;

	if (m)
		want = (uint8_t)(m | SPLICE_EP_REG);
	else
		want = conn->events & SEV_FIN_SENT(!x) ? 0 : SPLICE_EP_REG;
	if (want == conn->ep[x])
		return 0;

	if (!(conn->ep[x] & SPLICE_EP_REG))
		op = EPOLL_CTL_ADD;
	else if (!(want & SPLICE_EP_REG))
		op = EPOLL_CTL_DEL;
	else
		op = EPOLL_CTL_MOD;

	ref.fd = (uint32_t)conn->s[x] & EPOLL_REF_FD_MAX;
	ref.flow = flow_idx((const union flow *)conn) | (x ? FLOW_SIDE_BIT : 0);
	ev.events = m;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, op, conn->s[x], &ev))
		return -errno;
	conn->ep[x] = want;
	return 0;
}

/**
 * splice_conn_close() - Close both sockets, release the pipes and the flow
 * @ctx:	Context (unused: the sockets leave the epoll set as they close)
 * @conn:	Connection
 * @rst:	Reset the sockets (SO_LINGER 0) instead of closing cleanly
 * @reason:	What happened, for the debug log
 *
 * #syscalls setsockopt close
 */
static void splice_conn_close(struct ctx *ctx, struct tcp_splice_conn *conn,
			      bool rst, const char *reason)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };
	char evs[96];
	unsigned x;

	(void)ctx;
	if (log_level >= LOG_DEBUG)
		flow_dbg(conn, "%s: %s (events %s)", rst ? "reset" : "closed",
			   reason,
			   splice_ev_fmt(conn->events, evs, sizeof(evs)));

	for (x = 0; x < 2; x++) {
		if (conn->s[x] < 0)
			continue;
		if (rst)
			setsockopt(conn->s[x], SOL_SOCKET, SO_LINGER, &l,
				   sizeof(l));
		close(conn->s[x]);	/* also leaves the epoll set */
		conn->s[x] = -1;
	}
	for (x = 0; x < 2; x++)
		splice_pipe_put(conn->pipe[x], !conn->pipe_used[x]);

	if (conn->events & SEV_CONNECTING)
	if (rst)
		splice_stats.resets++;
	splice_stats.flows_closed++;
	flow_free((union flow *)conn);
}

/**
 * splice_handover() - Can the kernel finish the connection without us?
 * @conn:	Connection
 *
 * Once the stream out of the namespace has ended (its FIN passed on, its
 * pipe empty), all of it is in the host-side socket: a plain close() of
 * that socket leaves the kernel to deliver the rest, then the FIN, unless
 * something waits to be read there (tcp_close() would reset).
 *
 * Return: true if closing now loses nothing we acknowledged
 */
static bool splice_handover(const struct tcp_splice_conn *conn)
{
	/* s[0] is in the namespace for -T, s[1] for -t */
	unsigned d_ns = (conn->flags & SFL_FROM_NS) ? 0 : 1;

	return (conn->events & SEV_FIN_SENT(d_ns)) && !conn->pipe_used[d_ns] &&
	       conn->s[!d_ns] >= 0 && flow_sock_rqueue_empty(conn->s[!d_ns]);
}

/**
 * splice_flow_abort() - Reset a spliced connection: we are exiting
 * @ctx:	Context
 * @flow:	Flow of type FLOW_TCP_SPLICE
 *
 * Whatever is still in a pipe will never arrive: both peers must see an
 * abort (RST), not the end of a complete stream (FIN), as RFC 9293 3.6
 * tells ABORT from CLOSE.  A connection still here is not finished.
 *
 * Context: after the main loop (flow_abort_all())
 */
static void splice_flow_abort(struct ctx *ctx, union flow *flow)
{
	struct tcp_splice_conn *conn = splice_conn_of(flow);

	if (splice_handover(conn)) {
		splice_conn_close(ctx, conn, false, "drained at exit");
		return;
	}
	splice_conn_close(ctx, conn, true, "exiting");
}

/**
 * splice_sock_unacked() - Does a socket hold bytes its peer hasn't ACKed?
 * @s:		Socket, or -1
 *
 * sk_wmem_queued (SO_MEMINFO) is 0 once every byte written, and the FIN,
 * has been acknowledged.
 *
 * #syscalls getsockopt
 * Return: true if so, or if we can't tell
 */
static bool splice_sock_unacked(int s)
{
	uint32_t sndbuf, queued;

	if (s < 0)
		return false;
	return flow_sock_meminfo(s, &sndbuf, &queued) < 0 || queued;
}

static void splice_conn_update(struct ctx *ctx, struct tcp_splice_conn *conn);

/**
 * splice_flow_drain() - Exit drain: close a spliced connection if finished
 * @ctx:	Context
 * @flow:	Flow of type FLOW_TCP_SPLICE
 * @abort:	The soft deadline passed: stop reading, only empty the
 *		pipes, and reset the connections whose peers have everything
 *		that was written to them (empty pipes, nothing
 *		unacknowledged), so that no acknowledged byte is discarded
 *
 * Finished: the direction out of the namespace reached its end (the
 * namespace side's FIN passed on, its pipe empty) and the host peer has
 * ACKed all of it.  Such a connection is closed cleanly.
 *
 * Context: main loop, while draining (flow_drain())
 * Return: true if the connection is still open
 */
static bool splice_flow_drain(struct ctx *ctx, union flow *flow, bool abort)
{
	struct tcp_splice_conn *conn = splice_conn_of(flow);
	/* s[0] is in the namespace for -T, s[1] for -t */
	unsigned d_ns = (conn->flags & SFL_FROM_NS) ? 0 : 1;

	if (abort)
		splice_no_reads = true;
	if ((conn->events & SEV_FIN_SENT(d_ns)) && !conn->pipe_used[d_ns] &&
	    (!splice_sock_unacked(conn->s[!d_ns]) || splice_handover(conn))) {
		splice_conn_close(ctx, conn, false, "drained");
		return false;
	}
	if (abort && !conn->pipe_used[0] && !conn->pipe_used[1] &&
	    !splice_sock_unacked(conn->s[0]) &&
	    !splice_sock_unacked(conn->s[1])) {
		splice_conn_close(ctx, conn, true, "exiting, peers have all");
		return false;
	}
	if (abort)
		splice_conn_update(ctx, conn);	/* no more EPOLLIN */
	return flow->f.type == FLOW_TCP_SPLICE;
}

/**
 * splice_sock_error() - Pending error of a socket (clears it)
 * @s:		Socket
 *
 * #syscalls getsockopt
 * Return: errno value, 0 if none
 */
static int splice_sock_error(int s)
{
	socklen_t sl = sizeof(int);
	int e = 0;

	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &sl))
		return errno;
	return e;
}

/**
 * splice_dir_forward() - Move what is available in one direction
 * @conn:	Connection, established
 * @d:		Direction: read from s[d], write to s[!d]
 *
 * Flushes pipe[d] into s[!d]; when it's empty, reads from s[d] into it and
 * flushes again, for up to SPLICE_ROUNDS reads.  Stops when s[d] has
 * nothing more (EAGAIN), when s[!d] is full (SFL_OUT_WAIT set, the bytes
 * stay in the pipe), or at EOF on s[d]: then, once the pipe is drained,
 * s[!d] is shut down for writing (SEV_FIN_SENT).  Never blocks.
 *
 * Context: main loop; the caller updates epoll interest afterwards
 * #syscalls splice shutdown
 * Return: 0, or -errno of a failing splice() (the connection must be reset)
 */
VISIBLE_IF_UNIT
int splice_dir_forward(struct tcp_splice_conn *conn, unsigned d)
{
	int from = conn->s[d], to = conn->s[!d];
	unsigned rounds = 0;
	ssize_t n;

	for (;;) {
		while (conn->pipe_used[d]) {
			n = splice(conn->pipe[d][0], NULL, to, NULL,
				   conn->pipe_used[d],
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				conn->pipe_used[d] -= (uint32_t)n;
				splice_stats.bytes += (uint64_t)n;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN) {
				splice_flag(conn, SFL_OUT_WAIT(d));
				return 0;
			}
			return n < 0 ? -errno : -EIO;
		}
		splice_flag_clear(conn, SFL_OUT_WAIT(d));

		if (conn->events & SEV_FIN_RCVD(d)) {
			if (!(conn->events & SEV_FIN_SENT(d))) {
				/* ENOTCONN if the peer is gone already: its
				 * error comes with the next event
				 */
				shutdown(to, SHUT_WR);
				splice_event(conn, SEV_FIN_SENT(d));
			}
			return 0;
		}
		if (rounds++ == SPLICE_ROUNDS || splice_no_reads)
			return 0;	/* level-triggered: epoll reports
					 * the rest
					 */

		n = splice(from, NULL, conn->pipe[d][1], NULL, SPLICE_PIPE_SIZE,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			conn->pipe_used[d] = (uint32_t)n;
		} else if (n == 0) {
			splice_event(conn, SEV_FIN_RCVD(d));
		} else if (errno == EAGAIN) {
			return 0;
		} else if (errno != EINTR) {
			return -errno;
		}
	}
}

/**
 * splice_conn_update() - Close a finished connection, else sync epoll
 * @ctx:	Context
 * @conn:	Connection
 */
static void splice_conn_update(struct ctx *ctx, struct tcp_splice_conn *conn)
{
	unsigned x;
	int ret;

	if ((conn->events & (SEV_FIN_SENT(0) | SEV_FIN_SENT(1))) ==
	    (SEV_FIN_SENT(0) | SEV_FIN_SENT(1))) {
		splice_conn_close(ctx, conn, false, "both sides closed");
		return;
	}
	for (x = 0; x < 2; x++) {
		if ((ret = splice_epoll_set(ctx, conn, x)) < 0) {
			splice_conn_close(ctx, conn, true,
					  "epoll_ctl() failed");
			return;
		}
	}
}

/**
 * splice_refuse() - Reset an accepted socket we can't carry
 * @s:		Socket
 *
 * #syscalls setsockopt close
 */
static void splice_refuse(int s)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(s);
}

/**
 * splice_connect() - Start connecting s[1] to the other side's port
 * @c:		Configuration
 * @conn:	Connection with s[1] open (its family is @af)
 * @af:		AF_INET or AF_INET6
 * @port:	Port, host order
 * @local:	Local address of the accepted socket (-T), NULL if unknown
 *
 * Towards the host (-T): the loopback address the namespace's client
 * connected to (any of 127.0.0.0/8, or ::1), else 127.0.0.1 or ::1.  Towards the
 * namespace (-t): the namespace's own address of @af, so that services
 * bound to its loopback only stay private, or its loopback with
 * --host-lo-to-ns-lo (fwd_splice_ns_target()).
 *
 * #syscalls connect
 * Return: 0 if connected already, 1 if in progress, -errno on failure
 */
static int splice_connect(const struct conf *c, struct tcp_splice_conn *conn,
			  int af, uint16_t port, const union inany *local)
{
	struct sockaddr_storage sa;
	union inany dst;
	socklen_t sl;
	int ret;

	if (!(conn->flags & SFL_FROM_NS)) {
		ret = fwd_splice_ns_target(c, af, &dst);
		if (ret < 0)
			return ret;
	} else if (local && inany_is_loopback(local)) {
		dst = *local;		/* 127.0.0.53 in, 127.0.0.53 out */
	} else if (af == AF_INET) {
		struct in_addr lo4 = { .s_addr = htonl(INADDR_LOOPBACK) };

		inany_from_v4(&dst, lo4);
	} else {
		dst.a6 = in6addr_loopback;
	}
	sl = sockaddr_from_inany(&sa, &dst, port, 0);
	if (!connect(conn->s[1], (struct sockaddr *)&sa, sl))
		return 0;
	if (errno == EINPROGRESS)
		return 1;
	return -errno;
}

/**
 * splice_v4_fallback() - Retry a refused -t connection over IPv4
 * @ctx:	Context
 * @conn:	Connection from the host's ::1 whose IPv6 connect() in the
 *		namespace was refused
 *
 * "localhost" clients try ::1 first, but many servers in the namespace
 * listen on 0.0.0.0 only: as a dual-stack client would (RFC 8305), we try
 * the other family once, from a new namespace socket, to the namespace's
 * IPv4 address (or 127.0.0.1 with --host-lo-to-ns-lo).
 *
 * Return: true if a new connect() is under way or done, false to reset
 */
static bool splice_v4_fallback(struct ctx *ctx, struct tcp_splice_conn *conn)
{
	int t, ret;

	if ((conn->flags & (SFL_FROM_NS | SFL_V4_FALLBACK)) ||
	    !(conn->flags & SFL_IPV6) || !ctx->c.ip4.enabled)
		return false;
	t = nsock_get(AF_INET);
	if (t < 0)
		return false;
	close(conn->s[1]);		/* leaves the epoll set with it */
	conn->ep[1] = 0;
	conn->s[1] = t;
	splice_flag(conn, SFL_V4_FALLBACK);
	ret = splice_connect(&ctx->c, conn, AF_INET, conn->to_port, NULL);
	if (ret < 0)
		return false;
	flow_dbg(conn, "IPv6 refused in the namespace, trying IPv4");
	if (ret > 0) {
		splice_event(conn, SEV_CONNECTING);
		conn->deadline_ms = ctx->now + SPLICE_CONNECT_TIMEOUT_MS;
		timer_want(ctx, conn->deadline_ms);
	} else {
		splice_event_clear(conn, SEV_CONNECTING);
	}
	return true;
}

/**
 * splice_pools_low() - Does either pool miss anything?
 *
 * Return: true if the timer should refill
 */
static bool splice_pools_low(void)
{
	return splice_pipe_n < SPLICE_PIPE_POOL || nsock_refill_due();
}

/**
 * splice_tcp_accept() - Take an accepted connection for the splice path
 * @ctx:	Context
 * @s:		Accepted socket, non-blocking
 * @peer:	Peer address
 * @peer_port:	Peer port, host order
 * @port:	Listening port, host order
 * @to_port:	Target port, host order
 * @from_ns:	Accepted in the namespace (-T) rather than on the host (-t)
 *
 * Host side (-t): only loopback peers, and only unless --no-splice; the
 * socket towards the namespace comes from the helper's pool.  Namespace
 * side (-T): always taken.  Connections we take but can't carry (flow
 * table full, out of fds, no helper reply, connect() refused at once) are
 * reset.
 *
 * -T connections to a local address other than a loopback one (the
 * namespace's own address, which lo also carries) are reset.
 *
 * Context: main loop, from tcp_listen_handler() (flow_accept(), through
 *	    splice_accept())
 * #syscalls socket setsockopt getsockname
 * Return: true if the splice path owns @s now, false to leave it to the
 *	   tap path
 */
VISIBLE_IF_UNIT
bool splice_tcp_accept(struct ctx *ctx, int s, const union inany *peer,
		       uint16_t peer_port, uint16_t port, uint16_t to_port,
		       bool from_ns)
{
	int af = inany_af(peer), one = 1, t, ret;
	union inany local = { 0 };
	struct tcp_splice_conn *conn;
	const char *why = NULL;
	union flow *flow;
	char a[INET6_ADDRSTRLEN];

	if (!from_ns && (!splice_on || ctx->c.no_splice ||
			 !inany_is_loopback(peer) || !nsock_ready()))
		return false;
	if (!splice_on) {
		splice_refuse(s);
		return true;
	}
	if (from_ns) {
		/* -T listens on 0.0.0.0 bound to lo, for all of 127.0.0.0/8:
		 * the namespace's own addresses are reached over lo too, and
		 * aren't forwarded
		 */
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		uint16_t lport;

		if (getsockname(s, (struct sockaddr *)&ss, &sl) < 0) {
			splice_refuse(s);
			return true;
		}
		inany_from_sockaddr(&local, &lport, &ss);
		if (!inany_is_loopback(&local)) {
			splice_refuse(s);
			return true;
		}
	}

	flow = flow_alloc(ctx);
	if (!flow) {
		flow_tcp_refused_full();
		warn_ratelimit(ctx->now, "flow table full (%u flows): refusing spliced TCP connection",
			       flow_max());
		splice_refuse(s);
		return true;
	}

	conn = splice_conn_of(flow);
	flow_activate(flow, FLOW_TCP_SPLICE);
	conn->s[0] = s;
	conn->s[1] = -1;
	conn->pipe[0][0] = conn->pipe[0][1] = -1;
	conn->pipe[1][0] = conn->pipe[1][1] = -1;
	conn->port = port;
	conn->to_port = to_port;
	if (from_ns)
		splice_flag(conn, SFL_FROM_NS);
	if (af == AF_INET6)
		splice_flag(conn, SFL_IPV6);
	if (log_level >= LOG_DEBUG)
		flow_dbg(conn, "accepted from %s:%u", inany_ntop(peer, a),
			   peer_port);

	if (from_ns) {
		t = socket(af, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			   IPPROTO_TCP);
		if (t < 0)
			t = -errno;
		else
			setsockopt(t, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
	} else {
		t = nsock_get(af);
		if (t == -ENOTCONN) {	/* no helper: the tap path it is */
			flow_free(flow);
			return false;
		}
	}
	if (t < 0) {
		if (t == -EMFILE || t == -ENFILE)
			flow_refused_nofile();
		why = "no socket for the other side";
		goto reset;
	}
	conn->s[1] = t;		/* s has TCP_NODELAY from its listener */

	if (splice_pipe_take(conn->pipe[0]) || splice_pipe_take(conn->pipe[1])) {
		flow_refused_nofile();
		why = "pipe2() failed";
		goto reset;
	}

	ret = splice_connect(&ctx->c, conn, af, to_port, from_ns ? &local : NULL);
	if ((ret == -ECONNREFUSED || ret == -EADDRNOTAVAIL) &&
	    splice_v4_fallback(ctx, conn)) {
		splice_stats.flows_opened++;
		splice_conn_update(ctx, conn);
		return true;
	}
	if (ret < 0) {
		splice_stats.connect_failed++;
		why = "connect() failed";
		goto reset;
	}
	if (ret > 0) {
		splice_event(conn, SEV_CONNECTING);
		conn->deadline_ms = ctx->now + SPLICE_CONNECT_TIMEOUT_MS;
		timer_want(ctx, conn->deadline_ms);
	}

	splice_stats.flows_opened++;
	if (splice_pools_low())
		timer_want(ctx, ctx->now);
	splice_conn_update(ctx, conn);
	return true;

reset:
	splice_conn_close(ctx, conn, true, why);
	if (splice_pools_low())
		timer_want(ctx, ctx->now);
	return true;
}

/**
 * splice_tcp_handler() - Event on one socket of a spliced connection
 * @ctx:	Context
 * @ref:	epoll reference: flow index, FLOW_SIDE_BIT for side 1, fd
 * @events:	epoll events
 *
 * EPOLLIN and EPOLLHUP move data from this socket, EPOLLOUT flushes the
 * pipe towards it (or completes connect()), EPOLLERR with an error set on
 * the socket resets the connection.
 *
 * Context: main loop
 */
VISIBLE_IF_UNIT
void splice_tcp_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events)
{
	unsigned idx = ref.flow & ~FLOW_SIDE_BIT, x = !!(ref.flow & FLOW_SIDE_BIT);
	struct tcp_splice_conn *conn;
	int ret = 0, e;

	if (idx >= flow_max())
		return;
	conn = splice_conn_of(flow_at(idx));
	/* An earlier event of this wake-up may have closed the flow (and a
	 * new one may have taken the entry)
	 */
	if (conn->f.type != FLOW_TCP_SPLICE || conn->s[x] != (int)ref.fd)
		return;

	trace("spliced flow %u: side %u events 0x%x", idx, x, events);

	if ((events & EPOLLERR) && (e = splice_sock_error(conn->s[x]))) {
		char why[64];

		if ((conn->events & SEV_CONNECTING) && x == 1 &&
		    e == ECONNREFUSED && splice_v4_fallback(ctx, conn)) {
			splice_conn_update(ctx, conn);
			return;
		}

		snprintf(why, sizeof(why), "%s on side %u%s", strerror(e), x,
			 (conn->events & SEV_CONNECTING) && x == 1 ?
			 " (connect)" : "");
		if ((conn->events & SEV_CONNECTING) && x == 1)
			splice_stats.connect_failed++;
		splice_conn_close(ctx, conn, true, why);
		return;
	}

	if (conn->events & SEV_CONNECTING) {
		if (x != 1 || !(events & EPOLLOUT))
			return;
		splice_event_clear(conn, SEV_CONNECTING);
		flow_dbg(conn, "connected");
		ret = splice_dir_forward(conn, 0);
	} else {
		if (events & (EPOLLIN | EPOLLHUP))
			ret = splice_dir_forward(conn, x);
		if (!ret && (events & EPOLLOUT))
			ret = splice_dir_forward(conn, !x);
	}

	if (ret < 0) {
		char why[64];

		snprintf(why, sizeof(why), "splice(): %s", strerror(-ret));
		splice_conn_close(ctx, conn, true, why);
		return;
	}
	splice_conn_update(ctx, conn);
}

/**
 * splice_tick() - Timer pass: refill the pipe pool
 * @ctx:	Context (unused)
 *
 * Context: main loop, flow_timer(), before the flows' timers
 */
static void splice_tick(struct ctx *ctx)
{
	(void)ctx;
	if (splice_on)
		splice_pipe_refill();
}

/**
 * splice_flow_timer() - Reset a connection whose connect() expired
 * @ctx:	Context
 * @flow:	Flow of type FLOW_TCP_SPLICE
 *
 * Context: main loop, flow_timer()
 * Return: its connect() deadline, ms, or INT64_MAX if none (or closed)
 */
static int64_t splice_flow_timer(struct ctx *ctx, union flow *flow)
{
	struct tcp_splice_conn *conn = splice_conn_of(flow);

	if (!(conn->events & SEV_CONNECTING))
		return INT64_MAX;
	if (conn->deadline_ms > ctx->now)
		return conn->deadline_ms;
	splice_stats.connect_failed++;
	splice_conn_close(ctx, conn, true, "connect() timed out");
	return INT64_MAX;
}

/**
 * splice_init() - Enable the splice path: pipe pool, namespace helper
 * @ctx:	Context, after the namespace is set up
 *
 * Nothing to do in passt mode, or with no -t and no -T ports.  The helper
 * that makes namespace sockets is only needed for -t without --no-splice;
 * if it can't be started, -t connections from loopback take the tap path.
 * Call after daemonizing (the helper is a child process) and before
 * dropping privileges (it enters the namespace).
 *
 * Context: set-up
 * Return: 0 (failures degrade to the tap path, with a warning)
 */
VISIBLE_IF_UNIT
int splice_init(struct ctx *ctx)
{
	const struct conf *c = &ctx->c;
	bool in = !c->no_tcp && fwd_table_on(&c->tcp_in) && !c->no_splice;
	bool out = !c->no_tcp && fwd_table_on(&c->tcp_out);
	bool udp_in = !c->no_udp && c->udp_in.n && !c->no_splice;
	/* -T/-U auto: listeners opened in the namespace at run time; -u auto:
	 * namespace sockets for loopback datagrams, on demand (no pool kept
	 * filled: they cost descriptors)
	 */
	bool ns_listen = (!c->no_tcp && c->tcp_out.auto_on) ||
			 (!c->no_udp && c->udp_out.auto_on) ||
			 (!c->no_udp && c->udp_in.auto_on && !c->no_splice) ||
			 *c->conf_path;	/* -T, -U at run time (-c) */
	int ret;

	if (c->mode != MODE_PASTA || (!in && !out && !udp_in && !ns_listen))
		return 0;

	if (in || out) {
		splice_on = true;
		splice_pipe_refill();
	}
	if ((in || udp_in || ns_listen) &&
	    (ret = nsock_init(ctx, in, udp_in)) < 0)
		warn("can't start the namespace socket helper (%s): loopback traffic to -t/-u ports takes the tap path",
		     strerror(-ret));
	debug("splice: %u pipes of %u bytes pooled, namespace sockets %u (IPv4) %u (IPv6)",
	      splice_pipe_n, SPLICE_PIPE_SIZE, nsock_avail(AF_INET),
	      nsock_avail(AF_INET6));
	return 0;
}

/**
 * splice_stats_print() - Print the counters of the splice path
 */
static void splice_stats_print(void)
{
	info_always("stats: spliced flows %lu closed %lu, bytes %lu, resets %lu, connect failures %lu",
		    splice_stats.flows_opened, splice_stats.flows_closed,
		    splice_stats.bytes, splice_stats.resets,
		    splice_stats.connect_failed);
}

/**
 * splice_accept() - The @accept operation: take an accepted TCP socket
 * @ctx:	Context
 * @a:		The socket, its source and ports
 *
 * Return: false for any protocol but TCP (the caller keeps the socket),
 *	   else as splice_tcp_accept()
 */
static bool splice_accept(struct ctx *ctx, const struct flow_accept *a)
{
	if (a->proto != IPPROTO_TCP)
		return false;
	return splice_tcp_accept(ctx, a->s, &a->peer, a->peer_port, a->port,
				 a->to_port, a->from_ns);
}

/**
 * splice_restart_save() - Old process: a record per spliced connection
 * @b:		Stream being written (passt/restart.h)
 * @fds:	Descriptors to send
 * @max:	Room in @fds
 *
 * Context: restart_give(), between batches
 */
static void splice_restart_save(struct restart_buf *b, int *fds,
				size_t max)
{
	unsigned i, x;

	for (i = 0; i < flow_hwm(); i++) {
		union flow *flow = flow_at(i);
		struct restart_rec r = { .type = RESTART_REC_SPLICE };
		struct restart_splice *s = &r.u.splice;
		const struct tcp_splice_conn *conn;

		if (flow->f.state != FLOW_STATE_ACTIVE ||
		    flow->f.type != FLOW_TCP_SPLICE)
			continue;
		conn = splice_conn_of(flow);
		if (conn->s[0] < 0 || conn->s[1] < 0)
			continue;
		s->events = conn->events;
		s->flags = conn->flags;
		s->port = conn->port;
		s->to_port = conn->to_port;
		s->deadline_ms = conn->deadline_ms;
		for (x = 0; x < 2; x++) {
			s->pipe_used[x] = conn->pipe_used[x];
			s->fd[x] = restart_fd_add(b, fds, max, conn->s[x]);
		}
		for (x = 0; x < 2; x++) {
			bool both = conn->pipe[x][0] >= 0 &&
				    conn->pipe[x][1] >= 0;

			s->fd[2 + 2 * x] = restart_fd_add(b, fds, max, both ?
							  conn->pipe[x][0] : -1);
			s->fd[3 + 2 * x] = restart_fd_add(b, fds, max, both ?
							  conn->pipe[x][1] : -1);
		}
		restart_put(b, &r);
	}
}

/**
 * splice_restart_check() - New process: is a spliced connection's record
 *			    consistent?
 * @r:		Record, RESTART_REC_SPLICE
 *
 * Its events and flags must be ones the setters accept, set in the order
 * they happen (flags of the accept first); a pipe can't hold more than
 * its size.
 *
 * Return: true if so
 */
static bool splice_restart_check(const struct restart_rec *r)
{
	const struct restart_splice *s = &r->u.splice;
	unsigned fl = s->flags & (SFL_FROM_NS | SFL_IPV6);

	return splice_events_allowed(0, s->events) &&
	       splice_flags_allowed(0, 0, fl) &&
	       splice_flags_allowed(s->events, fl, s->flags) &&
	       s->pipe_used[0] <= SPLICE_PIPE_SIZE * 4U &&
	       s->pipe_used[1] <= SPLICE_PIPE_SIZE * 4U;
}

/**
 * splice_restart_adopt() - New process: a spliced connection from a record
 * @ctx:	Context
 * @r:		Record, RESTART_REC_SPLICE (descriptor indices checked by
 *		restart_parse())
 * @fds:	Its descriptors: s[0], s[1], pipe[0][0..1], pipe[1][0..1],
 *		-1 for a missing pipe (one is taken from the pool then)
 *
 * Flags and events go through their setters, after the same checks;
 * a record that doesn't pass, or a table that is full, resets both
 * sockets.  Both sockets are registered from scratch (@ep zero), with the
 * masks the state calls for (splice_conn_update()).
 *
 * Context: set-up, restart_adopt()
 */
static void splice_restart_adopt(struct ctx *ctx,
				 const struct restart_rec *r, const int *fds)
{
	const struct restart_splice *s = &r->u.splice;
	unsigned fl = s->flags & (SFL_FROM_NS | SFL_IPV6), x;
	struct tcp_splice_conn *conn;
	union flow *flow;

	if (!splice_restart_check(r) || !(flow = flow_alloc(ctx))) {
		for (x = 0; x < 2; x++)
			splice_refuse(fds[x]);
		for (x = 2; x < 6; x++) {
			if (fds[x] >= 0)
				close(fds[x]);
		}
		warn("restart: a spliced connection couldn't be taken over: "
		     "reset");
		return;
	}
	conn = splice_conn_of(flow);
	flow_activate(flow, FLOW_TCP_SPLICE);
	conn->s[0] = fds[0];
	conn->s[1] = fds[1];
	conn->pipe[0][0] = fds[2];
	conn->pipe[0][1] = fds[3];
	conn->pipe[1][0] = fds[4];
	conn->pipe[1][1] = fds[5];
	conn->port = s->port;
	conn->to_port = s->to_port;
	conn->deadline_ms = s->deadline_ms;
	splice_flags_set(conn, fl);
	splice_flags_set(conn, s->flags);
	splice_events_set(conn, s->events);
	for (x = 0; x < 2; x++) {
		conn->pipe_used[x] = s->pipe_used[x];
		if (conn->pipe[x][0] < 0 && splice_pipe_take(conn->pipe[x])) {
			splice_conn_close(ctx, conn, true, "restart: no pipe");
			return;
		}
	}
	if (conn->events & SEV_CONNECTING)
		timer_want(ctx, conn->deadline_ms);
	splice_stats.flows_opened++;
	splice_conn_update(ctx, conn);
}

/**
 * splice_flow_describe() - What flow_log() says of a spliced connection
 * @flow:	Spliced connection (struct tcp_splice_conn)
 * @buf:	Output: "(host port P -> Q)" or "(namespace port P -> Q)"
 * @len:	Size of @buf, bytes
 */
static void splice_flow_describe(const union flow *flow, char *buf,
				 size_t len)
{
	const struct tcp_splice_conn *conn =
		(const struct tcp_splice_conn *)flow;

	snprintf(buf, len, "(%s port %u -> %u)",
		 conn->flags & SFL_FROM_NS ? "namespace" : "host",
		 conn->port, conn->to_port);
}

static const struct flow_ops splice_flow_ops = {
	.name		= "spliced TCP",
	.epoll_type	= EPOLL_TYPE_TCP_SPLICE,
	.sock		= splice_tcp_handler,
	.init		= splice_init,
	.timer		= splice_flow_timer,
	.tick		= splice_tick,
	.drain		= splice_flow_drain,
	.abort		= splice_flow_abort,
	.accept		= splice_accept,
	.stats_print	= splice_stats_print,
	.counters	= (const uint64_t *)&splice_stats,
	.ncounters	= sizeof(splice_stats) / sizeof(uint64_t),
	.describe	= splice_flow_describe,
};

/**
 * splice_flow_register() - Register the operations of the splice path
 *
 * Context: start of main() (the entry point names each flow type)
 */
void splice_flow_register(void)
{
	static const struct flow_restart_ops ops = {
		.save	= splice_restart_save,
		.check	= splice_restart_check,
		.adopt	= splice_restart_adopt,
	};

	flow_ops_register(FLOW_TCP_SPLICE, &splice_flow_ops);
	flow_restart_register(FLOW_TCP_SPLICE, &ops);
}

