// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp.c - TCP translation: guest segments <-> host stream sockets
 *
 * DOC: Theory of Operation
 *
 * Each connection the guest sees is carried by one ordinary TCP socket on
 * the host.  We don't run a TCP stack of our own: towards the guest we play
 * the far end of the connection with just enough of RFC 9293 to keep the
 * guest's stack happy (handshake, sequence and acknowledgement numbers,
 * windows, retransmission, FIN and RST), and the host kernel does the rest.
 *
 * Files.  This one is the state machine: segments from the guest, socket
 * events, timers, the end of connections.  New connections are opened in
 * tcp_open.c, frames and data towards the guest are built in tcp_buf.c;
 * the reader back-ends are tcp_reader.c and tcp_devmem.c.  What they share
 * is in tcp_internal.h.
 *
 * Outbound (guest connects out).  A SYN from the guest allocates a flow
 * and starts a non-blocking connect() to the translated destination
 * (fwd_nat_to_host_port(): addresses, and DNS to --dns-host).  The SYN-ACK goes to the guest only once connect()
 * completes; a refusal becomes an RST, an unreachable destination (no
 * route, or forbidden) an ICMP destination unreachable quoting the SYN.  Inbound (-t): a connection accepted
 * on a forwarded port becomes a SYN to the guest; its SYN-ACK completes the
 * handshake, its RST resets the accepted socket.
 *
 * Host -> guest data.  Bytes stay in the host socket's receive queue until
 * the guest ACKs them: a reader back-end (tcp_reader.c) peeks new bytes
 * straight into the payload areas of frames laid out in the tap transmit
 * arena, one recvmsg() for up to IOV_MAX_DATA segments of MSS bytes, bounded
 * by the guest's window.  ACKs from the guest remove the ACKed bytes with
 * recv(MSG_TRUNC).  Retransmission (RTO per RFC 6298, or three duplicate
 * ACKs) rewinds SND.NXT to SND.UNA and peeks again.  End of stream on the
 * socket becomes a FIN after the last byte.  With a devmem binding
 * (--devmem, devmem.c) the reader may hand out the payload as pieces of a
 * mapped dma-buf or of its own store instead (tcp_devmem.c): those frames
 * are headers in the arena plus the pieces (tap_tx_add_ext()), and the
 * reader, not the socket, keeps the bytes for retransmission.
 *
 * Back-pressure.  Every data segment and FIN we queue is tagged with its
 * flow and sequence number (tap_tx_tag()); one the tap didn't write comes
 * back through tcp_tap_dropped(), and SND.NXT and the reader go back to it
 * (tcp_drop_apply()) before the connection sends again.  A connection that
 * finds the tap blocked (tap_tx_blocked()), or that sent TCP_TURN_BYTES in
 * one turn, waits (TFL_TAP_WAIT) and tcp_tap_resume() gives the waiting
 * ones their turns, round robin.  Segments are at most half the largest
 * window the guest offered (tcp_snd_mss()), and an inbound connection sends
 * one segment until the guest ACKs data (tcp_snd_wnd_usable(): SYN
 * cookies).  A SYN-ACK again on an established inbound connection means
 * the guest dropped our handshake ACK: we ACK and go back to SND.UNA.
 *
 * Exit.  tcp_flow_drain() closes cleanly the connections whose guest sent its
 * FIN once the host peer has ACKed everything; tcp_orphan() gives up on a
 * connection without discarding what we ACKed: it waits until the host
 * socket's queue is ACKed (SO_MEMINFO), then resets both sides.
 *
 * Guest -> host data.  In-order payload of a batch of segments goes to the
 * host socket with one sendmsg() whose iovecs point into the received
 * frames.  We ACK only what the socket took.  The window we advertise is
 * the free space of the socket's send buffer (SO_MEMINFO: sk_sndbuf minus
 * sk_wmem_queued, less 1/8 for per-skb overhead), so a guest that respects
 * it never sends more than the socket accepts and never falls into
 * retransmission timeouts.  We never move the right edge of the window back
 * (RFC 9293 3.8.6).  When the free space falls below a third of the buffer
 * the socket stops being writable (sk_stream_min_wspace()); we then re-arm
 * EPOLLOUT, and the wake-up that comes when it drains sends a window
 * update.  Out-of-order segments are dropped and answered with a duplicate
 * ACK, so the guest retransmits (we don't queue: no userspace buffers).
 *
 * Timers.  Each connection has one deadline (tcp_conn.timer_at): SYN and
 * SYN-ACK retransmission, connect() timeout, RTO, zero-window probes, and
 * the idle timeout.  The main loop's epoll_wait() timeout is the earliest of
 * them (timer_want()); the flow layer's timer pass (flow_timer()) runs
 * tcp_flow_timer() for each connection when it's reached.
 *
 * Limits: flow table capacity (--flow-max); window scale 8 towards the guest
 * (windows up to 16 MiB); no SACK, no timestamps (RFC 9293 allows a peer to
 * ignore options it doesn't implement).  No memory is allocated per packet.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/visible.h"
#include "../tap/csum.h"
#include "../tap/tap.h"
#include "flow_table.h"
#include "fwd.h"
#include "devmem.h"
#include "icmp.h"
#include "limits.h"
#include "ctx.h"
#include "tcp.h"
#include "tcp_opt.h"
#include "tcp_rcvbuf.h"
#include "tcp_reader.h"
#include "tcp_internal.h"
#include "tcp_seq.h"


static enum tcp_reader_kind tcp_reader_v4, tcp_reader_v6;
struct tcp_stats tcp_stats;

static bool tcp_sock_unacked(const struct tcp_conn *conn);
static bool tcp_sock_handover(const struct tcp_conn *conn);
static void tcp_orphan_end(struct ctx *ctx, struct tcp_conn *conn,
			   bool timeout);


/**
 * tcp_reader_of() - Reader back-end for new connections of a family
 * @af:		AF_INET or AF_INET6 (of the host socket)
 *
 * Return: enum tcp_reader_kind, chosen by tcp_init()
 */
enum tcp_reader_kind tcp_reader_of(int af)
{
	return af == AF_INET ? tcp_reader_v4 : tcp_reader_v6;
}

/**
 * tcp_init() - Choose the reader back-ends, seed the ISN key
 * @ctx:	Context
 */
void tcp_init(struct ctx *ctx)
{
	tcp_open_init();
	tcp_buf_init();
	if (ctx->c.no_tcp)
		return;
	tcp_reader_select(ctx->c.peek_fallback, devmem_bound(), &tcp_reader_v4,
			  &tcp_reader_v6);
}

/**
 * tcp_reader_name() - Name of the reader tcp_init() chose for a family
 * @af:		AF_INET or AF_INET6
 *
 * Return: the name (struct tcp_reader_ops), for status lines
 */
const char *tcp_reader_name(int af)
{
	return tcp_readers[af == AF_INET6 ? tcp_reader_v6 : tcp_reader_v4]->name;
}

/**
 * tcp_snd_wnd_set() - Record the guest's window (SND.WND)
 * @conn:	Connection
 * @wnd:	Window, bytes, already scaled
 */
void tcp_snd_wnd_set(struct tcp_conn *conn, uint32_t wnd)
{
	conn->wnd_from_tap = wnd;
	if (wnd > conn->wnd_from_tap_max)
		conn->wnd_from_tap_max = wnd;
}

/**
 * tcp_timer_arm() - Recompute a connection's deadline
 * @ctx:	Context
 * @conn:	Connection
 */
void tcp_timer_arm(struct ctx *ctx, struct tcp_conn *conn)
{
	int64_t at;

	if (!(conn->events & TEV_ESTABLISHED)) {
		if ((conn->events & TEV_TAP_SYN_RCVD) &&
		    !(conn->events & TEV_SOCK_CONNECTED))
			at = conn->last_active_ms + CONNECT_TIMEOUT_MS;
		else
			at = ctx->now + conn->rto_ms;
	} else if (conn->seq_ack_from_tap != conn->seq_to_tap ||
		   (conn->flags & TFL_WND_PROBE)) {
		/* RFC 6298 5.1: start the RTO only if it isn't running */
		if (conn->timer_at_ms > ctx->now &&
		    conn->timer_at_ms <= ctx->now + conn->rto_ms)
			at = conn->timer_at_ms;
		else
			at = ctx->now + conn->rto_ms;
	} else {
		at = conn->last_active_ms + IDLE_TIMEOUT_MS;
	}
	conn->timer_at_ms = at;
	timer_want(ctx, at);
}

/**
 * tcp_rto_restart() - Restart the RTO after progress (RFC 6298 5.3)
 * @ctx:	Context
 * @conn:	Connection
 */
static void tcp_rto_restart(struct ctx *ctx, struct tcp_conn *conn)
{
	conn->timer_at_ms = 0;
	tcp_timer_arm(ctx, conn);
}

/**
 * tcp_rtt_sample() - Update SRTT, RTTVAR and RTO (RFC 6298 section 2)
 * @conn:	Connection
 * @r:		New RTT measurement, ms
 */
static void tcp_rtt_sample(struct tcp_conn *conn, uint32_t r)
{
	uint32_t rto;

	if (!conn->srtt_ms && !conn->rttvar_ms) {
		conn->srtt_ms = r ? r : 1;
		conn->rttvar_ms = r / 2;
	} else {
		uint32_t d = conn->srtt_ms > r ? conn->srtt_ms - r :
						 r - conn->srtt_ms;

		conn->rttvar_ms = (3 * conn->rttvar_ms + d) / 4;
		conn->srtt_ms = (7 * conn->srtt_ms + r) / 8;
	}
	rto = conn->srtt_ms + MAX(1U, 4 * conn->rttvar_ms);
	conn->rto_ms = MIN(MAX(rto, (uint32_t)RTO_MIN_MS), (uint32_t)RTO_MAX_MS);
}

/**
 * tcp_epoll_ctl() - Register a connection's socket, or re-poll it
 * @ctx:	Context
 * @conn:	Connection
 * @op:		EPOLL_CTL_ADD to register, EPOLL_CTL_MOD to re-poll so that a
 *		full send buffer sets SOCK_NOSPACE and its draining wakes us
 *		with EPOLLOUT
 *
 * Edge-triggered: every arrival of data, and EPOLLOUT after the send buffer
 * was found full, wakes us once.
 *
 * #syscalls epoll_ctl
 * Return: 0 or -errno
 */
int tcp_epoll_ctl(struct ctx *ctx, struct tcp_conn *conn, int op)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TCP,
				.fd = (uint32_t)conn->sock & EPOLL_REF_FD_MAX,
				.flow = flow_idx((union flow *)conn) };
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		.data.u64 = ref.u64,
	};

	if (epoll_ctl(ctx->epollfd, op, conn->sock, &ev) < 0)
		return -errno;
	return 0;
}

/* RFC 9293 3.3.2 names (also for the migration's log, tcp_mig_flows.c) */
const char *const tcp_state_str[TCP_STATE_COUNT] = {
	[TCP_STATE_CLOSED] = "CLOSED",
	[TCP_STATE_SYN_SENT] = "SYN-SENT",
	[TCP_STATE_SYN_RECEIVED] = "SYN-RECEIVED",
	[TCP_STATE_ESTABLISHED] = "ESTABLISHED",
	[TCP_STATE_FIN_WAIT_1] = "FIN-WAIT-1",
	[TCP_STATE_FIN_WAIT_2] = "FIN-WAIT-2",
	[TCP_STATE_CLOSE_WAIT] = "CLOSE-WAIT",
	[TCP_STATE_CLOSING] = "CLOSING",
	[TCP_STATE_LAST_ACK] = "LAST-ACK",
	[TCP_STATE_TIME_WAIT] = "TIME-WAIT",
};

/* Names of the bits of enum tcp_ev and enum tcp_fl, by bit number */
static const char *const tcp_ev_str[TEV_COUNT] = {
	"TEV_TAP_SYN_RCVD", "TEV_SOCK_CONNECTED", "TEV_SOCK_ACCEPTED",
	"TEV_TAP_SYN_SENT", "TEV_ESTABLISHED", "TEV_TAP_FIN_RCVD",
	"TEV_SOCK_EOF", "TEV_TAP_FIN_SENT", "TEV_TAP_FIN_ACKED",
};
static const char *const tcp_fl_str[TFL_COUNT] = {
	"TFL_SOCK_RDHUP", "TFL_SNDBUF_WAIT", "TFL_PARTIAL_SEND",
	"TFL_ACK_DUE", "TFL_DUP_ACK", "TFL_WND_PROBE", "TFL_RTT_PENDING",
	"TFL_IPV4", "TFL_RST_AFTER_HS", "TFL_RECOVERY", "TFL_ORPHAN",
	"TFL_SOCK_DATA", "TFL_TAP_WAIT", "TFL_TAP_DROP", "TFL_RETRANS_ALL",
};
_Static_assert(TEV_TAP_FIN_ACKED == 1U << (TEV_COUNT - 1) &&
	       TFL_RETRANS_ALL == 1U << (TFL_COUNT - 1),
	       "tcp_ev_str or tcp_fl_str out of sync");

#define TEV_ALL		((1U << TEV_COUNT) - 1)
#define TEV_OPENING	(TEV_TAP_SYN_RCVD | TEV_SOCK_ACCEPTED |		\
			 TEV_TAP_SYN_SENT)

/**
 * tcp_events_valid() - Is a set of events one a connection can have?
 * @events:	enum tcp_ev bits
 *
 * A connection is either outbound (TEV_TAP_SYN_RCVD, then
 * TEV_SOCK_CONNECTED) or inbound (TEV_SOCK_ACCEPTED with TEV_TAP_SYN_SENT);
 * it is established only after its half of the handshake; FINs come after
 * the handshake; our FIN is sent or ACKed only once it is due
 * (TEV_SOCK_EOF).  0 is the zeroed entry.
 *
 * Return: true if possible
 */
static bool tcp_events_valid(unsigned events)
{
	if (!events)
		return true;
	if (events & ~TEV_ALL)
		return false;
	if (!(events & TEV_TAP_SYN_RCVD) == !(events & TEV_SOCK_ACCEPTED))
		return false;			/* neither or both ways */
	if ((events & TEV_SOCK_CONNECTED) && !(events & TEV_TAP_SYN_RCVD))
		return false;
	if (!(events & TEV_SOCK_ACCEPTED) != !(events & TEV_TAP_SYN_SENT))
		return false;
	if ((events & TEV_ESTABLISHED) &&
	    !(events & (TEV_SOCK_CONNECTED | TEV_TAP_SYN_SENT)))
		return false;
	if ((events & (TEV_TAP_FIN_RCVD | TEV_SOCK_EOF)) &&
	    !(events & TEV_ESTABLISHED))
		return false;
	if ((events & (TEV_TAP_FIN_SENT | TEV_TAP_FIN_ACKED)) &&
	    !(events & TEV_SOCK_EOF))
		return false;
	return true;
}

/**
 * tcp_events_allowed() - May a connection's events change from one set to
 *			  another?
 * @old:	Current enum tcp_ev bits (valid)
 * @events:	New bits
 *
 * The opening events are set together, at once, on a zeroed entry; others
 * are added one step at a time; the only one taken back is
 * TEV_TAP_FIN_SENT (the FIN didn't reach the tap, or a retransmission goes
 * back before it: it must be sent again).
 *
 * Return: true if allowed (also if nothing changes)
 */
bool tcp_events_allowed(unsigned old, unsigned events)
{
	if (!tcp_events_valid(events))
		return false;
	if (old & ~events & ~(unsigned)TEV_TAP_FIN_SENT)
		return false;
	if (!old)
		return !events || events == TEV_TAP_SYN_RCVD ||
		       events == (TEV_SOCK_ACCEPTED | TEV_TAP_SYN_SENT);
	return !((old ^ events) & TEV_OPENING);
}

/**
 * tcp_state_next() - The RFC 9293 state a set of events puts a connection in
 * @old:	Current state (orders the two FINs: which came first)
 * @events:	New enum tcp_ev bits (tcp_events_allowed())
 *
 * We are the guest's peer: inbound connections open actively (SYN-SENT),
 * outbound ones passively (SYN-RECEIVED on the guest's SYN, the LISTEN
 * being the forwarding itself).  Our CLOSE is the host peer's end of stream
 * (TEV_SOCK_EOF): from there we are in FIN-WAIT-1 or LAST-ACK even while
 * the FIN waits behind data (RFC 9293 3.10.4, CLOSE in ESTABLISHED or
 * CLOSE-WAIT); the guest's FIN is TEV_TAP_FIN_RCVD, the ACK of ours
 * TEV_TAP_FIN_ACKED.  LAST-ACK ends in CLOSED, the other ways to close in
 * TIME-WAIT.
 *
 * Return: enum tcp_state
 */
enum tcp_state tcp_state_next(enum tcp_state old, unsigned events)
{
	bool fin_out = events & TEV_SOCK_EOF;
	bool fin_in = events & TEV_TAP_FIN_RCVD;
	bool acked = events & TEV_TAP_FIN_ACKED;

	if (!events)
		return TCP_STATE_CLOSED;
	if (!(events & TEV_ESTABLISHED))
		return events & TEV_TAP_SYN_SENT ? TCP_STATE_SYN_SENT :
						   TCP_STATE_SYN_RECEIVED;
	if (!fin_out)
		return fin_in ? TCP_STATE_CLOSE_WAIT : TCP_STATE_ESTABLISHED;
	if (!fin_in)
		return acked ? TCP_STATE_FIN_WAIT_2 : TCP_STATE_FIN_WAIT_1;
	if (old == TCP_STATE_CLOSE_WAIT || old == TCP_STATE_LAST_ACK ||
	    old == TCP_STATE_CLOSED)	/* the guest closed first */
		return acked ? TCP_STATE_CLOSED : TCP_STATE_LAST_ACK;
	return acked ? TCP_STATE_TIME_WAIT : TCP_STATE_CLOSING;
}

/**
 * tcp_state_allowed() - Is a state change an edge of RFC 9293's diagram?
 * @from:	Current state
 * @to:		Next state (not @from)
 *
 * The edges of RFC 9293 3.3.2, Figure 5, that a connection of ours can
 * take, plus FIN-WAIT-1 to TIME-WAIT (3.10.7.4, eighth step: a FIN that
 * also ACKs ours), and CLOSED to SYN-RECEIVED for LISTEN to SYN-RECEIVED.
 * No simultaneous open (SYN-SENT to SYN-RECEIVED: we don't answer a SYN
 * with a SYN), no way back to LISTEN, no ABORT edges (a reset frees the
 * connection without a state change).
 *
 * Return: true if allowed
 */
bool tcp_state_allowed(enum tcp_state from, enum tcp_state to)
{
	switch (from) {
	case TCP_STATE_CLOSED:
		return to == TCP_STATE_SYN_SENT || to == TCP_STATE_SYN_RECEIVED;
	case TCP_STATE_SYN_SENT:
	case TCP_STATE_SYN_RECEIVED:
		return to == TCP_STATE_ESTABLISHED;
	case TCP_STATE_ESTABLISHED:
		return to == TCP_STATE_FIN_WAIT_1 || to == TCP_STATE_CLOSE_WAIT;
	case TCP_STATE_FIN_WAIT_1:
		return to == TCP_STATE_FIN_WAIT_2 || to == TCP_STATE_CLOSING ||
		       to == TCP_STATE_TIME_WAIT;
	case TCP_STATE_FIN_WAIT_2:
	case TCP_STATE_CLOSING:
		return to == TCP_STATE_TIME_WAIT;
	case TCP_STATE_CLOSE_WAIT:
		return to == TCP_STATE_LAST_ACK;
	case TCP_STATE_LAST_ACK:
		return to == TCP_STATE_CLOSED;
	default:
		return false;
	}
}

/**
 * tcp_events_set() - Write a connection's events: the only writer
 * @conn:	Connection
 * @events:	New enum tcp_ev bits
 *
 * Asserts that the change is allowed (tcp_events_allowed()) and that the
 * RFC 9293 state it leads to is an edge of the diagram
 * (tcp_state_allowed()), updates @conn->state, and logs the change at debug
 * level: "flow N TCP: +TEV_ESTABLISHED: SYN-RECEIVED -> ESTABLISHED".
 */
void tcp_events_set(struct tcp_conn *conn, unsigned events)
{
	enum tcp_state old = (enum tcp_state)conn->state, state;
	char buf[160];

	if (events == conn->events)
		return;
	ASSERT(tcp_events_allowed(conn->events, events));
	state = tcp_state_next(old, events);
	ASSERT(state == old || tcp_state_allowed(old, state));
	if (log_level >= LOG_DEBUG) {
		log_bits_fmt(conn->events, events, tcp_ev_str, TEV_COUNT, buf,
			     sizeof(buf));
		if (state != old)
			flow_dbg(conn, "%s: %s -> %s", buf, tcp_state_str[old],
				 tcp_state_str[state]);
		else
			flow_dbg(conn, "%s: %s", buf, tcp_state_str[state]);
	}
	conn->events = (uint16_t)events;
	conn->state = (uint8_t)state;
}

/**
 * tcp_flags_log() - Trace a change of a connection's flags
 * @conn:	Connection, with the old flags
 * @flags:	New enum tcp_fl bits
 */
void tcp_flags_log(const struct tcp_conn *conn, uint32_t flags)
{
	char buf[256];

	log_bits_fmt(conn->flags, flags, tcp_fl_str, TFL_COUNT, buf,
		     sizeof(buf));
	trace("flow %u TCP: %s", flow_idx((const union flow *)conn), buf);
}

/**
 * tcp_conn_free() - Close the host socket and release the flow
 * @conn:	Connection
 * @rst:	Make the host peer see an RST (SO_LINGER with zero timeout)
 * @why:	Reason, for the debug log
 *
 * #syscalls setsockopt close
 */
void tcp_conn_free(struct tcp_conn *conn, bool rst, const char *why)
{
	flow_dbg(conn, "closing (%s) in %s", why, tcp_state_str[conn->state]);
	tcp_wait_clear(conn);
	if (conn->sock >= 0) {
		if (rd(conn)->close)
			rd(conn)->close(conn);
		if (rst) {
			struct linger l = { .l_onoff = 1, .l_linger = 0 };

			setsockopt(conn->sock, SOL_SOCKET, SO_LINGER, &l,
				   sizeof(l));
			tcp_stats.rst_to_sock++;
		}
		/* No EPOLL_CTL_DEL: nothing else holds the socket (it is
		 * ours from socket() or accept4()), and close() of its last
		 * reference takes it off the epoll set (epoll(7), Q6)
		 */
		close(conn->sock);
		conn->sock = -1;
	}
	tcp_stats.flows_closed++;
	flow_free((union flow *)conn);
}

/**
 * tcp_rst() - Reset both sides: RST to the guest, RST to the host peer
 * @ctx:	Context
 * @conn:	Connection
 * @why:	Reason, for the debug log
 */
void tcp_rst(struct ctx *ctx, struct tcp_conn *conn, const char *why)
{
	/* With ACK = RCV.NXT: a guest in SYN-SENT accepts an RST only if it
	 * acknowledges its SYN (RFC 9293 3.10.7.3)
	 */
	tcp_send_flags(ctx, conn, F_RST | F_ACK);
	tcp_stats.rst_to_tap++;
	tcp_conn_free(conn, true, why);
}

/**
 * tcp_sndbuf_free() - Free space of the host socket's send buffer
 * @conn:	Connection
 * @queued:	Result: sk_wmem_queued, bytes (0 if unknown)
 *
 * SO_MEMINFO gives sk_sndbuf and sk_wmem_queued, the two numbers
 * tcp_sendmsg() compares (include/uapi/linux/sock_diag.h).
 *
 * #syscalls getsockopt
 * Return: sk_sndbuf - sk_wmem_queued (0 if negative), bytes of truesize
 */
static uint32_t tcp_sndbuf_free(struct tcp_conn *conn, uint32_t *queued)
{
	uint32_t sndbuf;

	if (flow_sock_meminfo(conn->sock, &sndbuf, queued) < 0) {
		*queued = 0;
		return 65535;
	}
	conn->sock_sndbuf = sndbuf;
	return sndbuf > *queued ? sndbuf - *queued : 0;
}

/**
 * tcp_rcv_wnd_update() - Compute the window to advertise to the guest
 * @ctx:	Context
 * @conn:	Connection
 *
 * The window follows the socket's free send space (SO_MEMINFO), less 1/8
 * for per-skb overhead (queued memory counts skb truesize), but its right
 * edge never moves left (RFC 9293 3.8.6).  If the socket isn't writable
 * any more (free space below half the queued memory:
 * sk_stream_min_wspace(), include/net/sock.h), re-arm epoll: the poll sets
 * SOCK_NOSPACE, and the kernel wakes us with EPOLLOUT once it's writable
 * again; not after the guest's FIN (shut down for writing).
 *
 * #syscalls getsockopt
 */
void tcp_rcv_wnd_update(struct ctx *ctx, struct tcp_conn *conn)
{
	uint32_t queued, free_b = tcp_sndbuf_free(conn, &queued);
	uint32_t max = conn->ws_to_tap ? TCP_WND_MAX : 65535;
	uint32_t wnd = free_b - free_b / 8;

	wnd = MIN(wnd, max);
	if (seq_lt(conn->seq_from_tap + wnd, conn->seq_wnd_edge_to_tap)) {
		/* Round up: the scaled field must not fall short of the edge */
		wnd = conn->seq_wnd_edge_to_tap - conn->seq_from_tap +
		      (1U << conn->ws_to_tap) - 1;
		wnd = MIN(wnd, max);
	}
	conn->wnd_to_tap = wnd;
	conn->seq_wnd_meas = conn->seq_from_tap;
	conn->wnd_meas = conn->wnd_to_tap;
	conn->wnd_meas_ms = (uint32_t)ctx->now;
	tcp_stats.wnd_read++;

	/* Once the guest's FIN is in, the socket is shut down for writing:
	 * nothing more to write, and tcp_poll() reports a socket with
	 * SEND_SHUTDOWN writable at all times, so EPOLLOUT would wake us
	 * again at once, for as long as the host peer doesn't read
	 */
	if (free_b < queued / 2 && !(conn->flags & TFL_SNDBUF_WAIT) &&
	    !(conn->events & TEV_TAP_FIN_RCVD)) {
		conn_flag(conn, TFL_SNDBUF_WAIT);
		tcp_epoll_ctl(ctx, conn, EPOLL_CTL_MOD);
	}
}

/**
 * tcp_rcv_wnd_ack() - The window for an ACK: read again, or keep the edge
 * @ctx:	Context
 * @conn:	Connection
 *
 * Between two readings of the socket's free space, the guest can only send
 * up to the right edge we advertised, and the space the socket had then is
 * still there for it (sk_sndbuf doesn't shrink, ACKs from the host peer only
 * free memory): keeping the edge read last is always safe, it only lets
 * the window close as data arrives, as a receiver's does while its
 * application doesn't read (RFC 9293 3.8.6.2.2).  With window scaling the
 * edge of one ACK can be up to 2^shift - 1 bytes left of the previous
 * one's, which was rounded up: RFC 7323 2.4 foresees it, senders handle it.
 *
 * So the socket is read again only once the guest has sent a quarter of
 * the window read last, TCP_WND_READ_MS after that reading, or while a
 * write is pending (partial send, socket full).  Once the guest has sent
 * its FIN, nothing more comes: the window isn't read again.  A
 * request/response flow then makes one getsockopt() per few dozen round
 * trips instead of one per ACK; a bulk flow reads on most
 * batches, as a batch carries a good part of its window.
 */
static void tcp_rcv_wnd_ack(struct ctx *ctx, struct tcp_conn *conn)
{
	uint32_t sent = conn->seq_from_tap - conn->seq_wnd_meas;
	bool fin = conn->events & TEV_TAP_FIN_RCVD;	/* nothing more comes */

	if (conn->wnd_meas &&
	    (sent < conn->wnd_meas / 4 || (fin && sent < conn->wnd_meas)) &&
	    ((uint32_t)ctx->now - conn->wnd_meas_ms < TCP_WND_READ_MS || fin) &&
	    !(conn->flags & (TFL_SNDBUF_WAIT | TFL_PARTIAL_SEND))) {
		uint32_t max = conn->ws_to_tap ? TCP_WND_MAX : 65535;
		uint32_t unit = (1U << conn->ws_to_tap) - 1;

		/* The edge read last, rounded up to the scale's unit: the
		 * edge of the previous ACK may have been rounded further
		 * (RFC 7323 2.4), but it doesn't creep right ACK after ACK
		 */
		conn->wnd_to_tap = MIN((conn->wnd_meas - sent + unit) & ~unit,
				       max);
		tcp_stats.wnd_kept++;
		return;
	}
	tcp_rcv_wnd_update(ctx, conn);
}

/**
 * tcp_established() - Handshake with the guest done: start moving data
 * @ctx:	Context
 * @conn:	Connection
 *
 * Return: 0, or -1 if the connection was reset (and freed)
 */

static int tcp_established(struct ctx *ctx, struct tcp_conn *conn)
{
	int ret;

	conn_event(conn, TEV_ESTABLISHED);
	conn->seq_ack_from_tap = conn->seq_to_tap = conn->seq_max_to_tap =
		conn->iss_to_tap + 1;
	conn->retrans = 0;
	ret = rd(conn)->start(conn);
	if (ret < 0 && (conn->reader == TCP_RD_PEEK_OFF ||
			conn->reader == TCP_RD_DEVMEM)) {
		conn->reader = TCP_RD_PEEK_DISCARD;	/* can't happen on a probed kernel */
		flow_dbg(conn, "SO_PEEK_OFF failed: %s, falling back",
			 strerror(-ret));
	}
	flow_dbg(conn, "established");
	tcp_rcv_wnd_ack(ctx, conn);	/* read at the SYN, unless it's old */
	tcp_rto_restart(ctx, conn);
	conn_flag(conn, TFL_SOCK_DATA);	/* events before now were ignored */
	return tcp_data_from_sock(ctx, conn);
}

/**
 * tcp_ack_from_tap() - Process an acknowledgement from the guest
 * @ctx:	Context
 * @conn:	Connection (established)
 * @s:		Segment
 *
 * Return: 0, or -1 if the connection was reset
 */
static int tcp_ack_from_tap(struct ctx *ctx, struct tcp_conn *conn,
			    const struct tcp_seg *s)
{
	uint32_t wnd = (uint32_t)s->wnd << conn->ws_from_tap;

	if (seq_gt(s->ack, conn->seq_max_to_tap) ||
	    seq_lt(s->ack, conn->seq_ack_from_tap)) {
		/* RFC 9293 3.10.7.4: ACK of something not yet sent: ACK and
		 * drop; old duplicate: ignore
		 */
		if (seq_gt(s->ack, conn->seq_max_to_tap))
			conn_flag(conn, TFL_ACK_DUE);
		return 0;
	}

	if (seq_gt(s->ack, conn->seq_ack_from_tap)) {
		uint32_t data_end = s->ack, data;
		int ret;

		/* Our FIN takes one sequence number but no byte in the queue */
		if ((conn->events & TEV_SOCK_EOF) &&
		    seq_gt(s->ack, conn->seq_fin_to_tap)) {
			data_end = conn->seq_fin_to_tap;
			conn_event(conn, TEV_TAP_FIN_ACKED);
		}
		data = seq_gt(data_end, conn->seq_ack_from_tap) ?
		       data_end - conn->seq_ack_from_tap : 0;
		if (data) {
			ret = rd(conn)->ack(conn, data);
			if (ret < 0) {
				tcp_rst(ctx, conn, "can't drop ACKed data");
				return -1;
			}
			tcp_rcvbuf_taken(ctx, conn, data);
		}
		if (seq_lt(conn->seq_to_tap, s->ack)) {
			/* ACK beyond what we resent after a rewind: the guest
			 * had it already.  Resynchronise the peek offset.
			 */
			conn->seq_to_tap = s->ack;
			if (!(conn->events & TEV_TAP_FIN_ACKED) &&
			    (ret = rd(conn)->rewind(conn, 0)) < 0) {
				flow_dbg(conn, "rewind after ACK: %s",
					 strerror(-ret));
				tcp_rst(ctx, conn, "reader rewind failed");
				return -1;
			}
		}
		conn->seq_ack_from_tap = s->ack;
		conn->dup_acks = 0;
		conn->retrans = 0;
		if ((conn->flags & TFL_RECOVERY) &&
		    !seq_lt(s->ack, conn->seq_recover_to_tap))
			conn_flag_clear(conn, TFL_RECOVERY);	/* RFC 6582 3.2 step 3 */
		if ((conn->flags & TFL_RTT_PENDING) &&
		    seq_ge(s->ack, conn->rtt_seq_to_tap)) {
			conn_flag_clear(conn, TFL_RTT_PENDING);
			tcp_rtt_sample(conn, (uint32_t)(ctx->now -
							conn->rtt_start_ms));
		}
		tcp_snd_wnd_set(conn, wnd);
		conn->wnd_from_tap_last_unscaled = s->wnd;
		tcp_rto_restart(ctx, conn);
		return 0;
	}

	/* s->ack == SND.UNA */
	if (!s->len && !(s->flags & (F_SYN | F_FIN)) &&
	    conn->seq_to_tap != conn->seq_ack_from_tap &&
	    s->wnd == conn->wnd_from_tap_last_unscaled) {
		/* RFC 5681 section 2: duplicate ACK; the third one starts
		 * fast recovery (RFC 6582 3.2 step 2) unless we're in it
		 */
		if (++conn->dup_acks == DUP_ACK_THRESH &&
		    !(conn->flags & TFL_RECOVERY)) {
			tcp_stats.fast_retrans++;
			flow_dbg(conn, "fast retransmit from %u",
				 conn->seq_ack_from_tap);
			conn_flag(conn, TFL_RECOVERY | TFL_RETRANS_ALL);
			conn->seq_recover_to_tap = conn->seq_max_to_tap;
		}
	}
	tcp_snd_wnd_set(conn, wnd);
	conn->wnd_from_tap_last_unscaled = s->wnd;
	return 0;
}

/**
 * tcp_data_to_sock() - Send in-order guest payload to the host socket
 * @ctx:	Context
 * @conn:	Connection
 * @segs:	Segments of this batch
 * @n:		Number of segments
 *
 * #syscalls sendmsg getsockopt shutdown
 * Return: 0, or -1 if the connection was reset (and freed)
 */
static int tcp_data_to_sock(struct ctx *ctx, struct tcp_conn *conn,
			     const struct tcp_seg *segs, unsigned n)
{
	struct iovec iov[TCP_MAX_BATCH];
	uint32_t seq = conn->seq_from_tap, fin_seq = 0;
	struct msghdr mh = { 0 };
	bool fin = false, gap = false;
	size_t total = 0;
	unsigned i, niov = 0;
	ssize_t r;

	for (i = 0; i < n; i++) {
		const struct tcp_seg *s = &segs[i];
		uint32_t end = s->seq + (uint32_t)s->len;
		size_t skip;

		if (s->flags & F_RST)
			continue;
		if (!s->len && !(s->flags & F_FIN)) {
			/* RFC 9293 3.10.7.4: a segment that isn't acceptable
			 * is answered with an ACK.  Keepalives and zero-window
			 * probes are such segments, SEG.SEQ = RCV.NXT - 1
			 * (Linux: tcp_xmit_probe_skb()): without the answer,
			 * the peer's keepalive gives the connection up, and a
			 * peer in persist state waits for its next probe
			 */
			if (s->seq != seq)
				conn_flag(conn, TFL_ACK_DUE);
			continue;
		}

		if (seq_gt(s->seq, seq)) {
			gap = true;		/* out of order: drop */
			tcp_stats.ooo++;
			continue;
		}
		if (s->len && seq_gt(end, seq)) {
			if (conn->events & TEV_TAP_FIN_RCVD)
				continue;	/* data after FIN */
			skip = seq - s->seq;
			iov[niov].iov_base = UNCONST(uint8_t *, s->payload) + skip;
			iov[niov].iov_len = s->len - skip;
			total += s->len - skip;
			seq = end;
			niov++;
		} else if (s->len) {
			conn_flag(conn, TFL_ACK_DUE);	/* duplicate */
		}
		if ((s->flags & F_FIN) && end == seq)
			fin = true, fin_seq = end;
	}

	if (gap)
		conn_flag(conn, TFL_DUP_ACK | TFL_ACK_DUE);

	if (niov) {
		mh.msg_iov = iov;
		mh.msg_iovlen = niov;
		do
			r = sendmsg(conn->sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		while (r < 0 && errno == EINTR);

		if (r < 0) {
			if (errno != EAGAIN) {
				tcp_rst(ctx, conn, "host socket write error");
				return -1;
			}
			r = 0;
		}
		conn->seq_from_tap += (uint32_t)r;
		tcp_stats.bytes_from_tap += (uint64_t)r;
		conn_flag(conn, TFL_ACK_DUE);
		if ((size_t)r < total) {
			flow_dbg(conn, "partial send: %zd of %zu, wnd %u edge-nxt %d sndbuf %u",
				 r, total, conn->wnd_to_tap,
				 (int)(conn->seq_wnd_edge_to_tap -
				       conn->seq_from_tap), conn->sock_sndbuf);
			tcp_stats.partial_send++;
			conn_flag(conn, TFL_PARTIAL_SEND);
			fin = false;
		}
	}

	if (fin && conn->seq_from_tap == fin_seq &&
	    !(conn->events & TEV_TAP_FIN_RCVD)) {
		conn->seq_from_tap++;
		conn_event(conn, TEV_TAP_FIN_RCVD);
		conn_flag(conn, TFL_ACK_DUE);
		shutdown(conn->sock, SHUT_WR);
		flow_dbg(conn, "FIN from guest");
	} else if (fin && (conn->events & TEV_TAP_FIN_RCVD)) {
		conn_flag(conn, TFL_ACK_DUE);	/* retransmitted FIN */
	}
	return 0;
}

/**
 * tcp_check_done() - Free the connection once both directions are closed
 * @conn:	Connection
 *
 * Return: true if freed
 */
static bool tcp_check_done(struct tcp_conn *conn)
{
	if ((conn->events & TEV_TAP_FIN_RCVD) &&
	    (conn->events & TEV_TAP_FIN_ACKED)) {
		tcp_conn_free(conn, false, "both FINs done");
		return true;
	}
	return false;
}

/**
 * tcp_send_ack() - Send a pure ACK with the current window (and duplicates
 *		    if asked for)
 * @ctx:	Context
 * @conn:	Connection
 */
static void tcp_send_ack(struct ctx *ctx, struct tcp_conn *conn)
{
	tcp_rcv_wnd_ack(ctx, conn);
	tcp_send_flags(ctx, conn, F_ACK);
	if (conn->flags & TFL_DUP_ACK) {
		/* Three duplicates with an unchanged window make the guest
		 * retransmit at once (RFC 5681 3.2) instead of waiting for
		 * its RTO
		 */
		tcp_send_flags(ctx, conn, F_ACK);
		tcp_send_flags(ctx, conn, F_ACK);
		tcp_send_flags(ctx, conn, F_ACK);
	}
	conn_flag_clear(conn, TFL_ACK_DUE | TFL_DUP_ACK);
}

/**
 * tcp_established_segs() - Handle a batch of segments of an established
 *			    (or closing) connection
 * @ctx:	Context
 * @conn:	Connection
 * @segs:	Segments
 * @n:		Count
 */
static void tcp_established_segs(struct ctx *ctx, struct tcp_conn *conn,
				 const struct tcp_seg *segs, unsigned n)
{
	unsigned i;

	conn->last_active_ms = ctx->now;

	for (i = 0; i < n; i++) {
		const struct tcp_seg *s = &segs[i];

		if (s->flags & F_RST) {
			/* RFC 5961 3.2: accept an RST in the window */
			if (seq_in(s->seq, conn->seq_from_tap,
				   conn->seq_from_tap +
				   MAX(conn->wnd_to_tap, 1U))) {
				tcp_conn_free(conn, true, "RST from guest");
				return;
			}
			continue;
		}
		if (s->flags & F_SYN) {
			/* Retransmitted SYN-ACK (inbound): our ACK was lost,
			 * or the guest's listener dropped it with a full
			 * accept queue, and our data with it.  ACK again and
			 * resend from SND.UNA now, not at the next RTO
			 */
			conn_flag(conn, TFL_ACK_DUE);
			if ((conn->events & TEV_TAP_SYN_SENT) &&
			    (s->flags & F_ACK) &&
			    s->ack == conn->iss_to_tap + 1 &&
			    conn->seq_ack_from_tap == conn->iss_to_tap + 1 &&
			    conn->seq_to_tap != conn->seq_ack_from_tap) {
				conn_flag(conn, TFL_RETRANS_ALL);
				tcp_stats.synack_rexmit++;
			}
			continue;
		}
		if (!(s->flags & F_ACK))
			continue;	/* RFC 9293 3.10.7.4: drop */
		if (tcp_ack_from_tap(ctx, conn, s) < 0)
			return;
	}

	if (tcp_data_to_sock(ctx, conn, segs, n) < 0)
		return;

	if (conn->flags & TFL_ACK_DUE)
		tcp_send_ack(ctx, conn);

	if (tcp_check_done(conn))
		return;

	if (conn->flags & TFL_RETRANS_ALL) {
		conn_flag_clear(conn, TFL_RETRANS_ALL);
		if (tcp_retransmit(ctx, conn) < 0)
			return;
	}
	/* Only if the queue may hold unsent bytes: an ACK that opens the
	 * window doesn't need a peek that would find nothing (EAGAIN)
	 */
	if ((conn->flags & TFL_SOCK_DATA) && tcp_data_from_sock(ctx, conn) < 0)
		return;
	tcp_timer_arm(ctx, conn);
}

/**
 * tcp_connect_done() - Outbound connect() finished: SYN-ACK, ICMP
 *			destination unreachable or RST to the guest
 * @ctx:	Context
 * @conn:	Connection in TAP_SYN_RCVD
 *
 * A failure a router's ICMP error caused goes to the guest as that error
 * (tcp_syn_icmp_relay()); one of the host's own as the error that gives
 * the same errno (tcp_syn_unreach()); anything else as an RST.  Success
 * switches IP_RECVERR off again (tcp_sock_recverr()).
 *
 * #syscalls getsockopt
 */
static void tcp_connect_done(struct ctx *ctx, struct tcp_conn *conn)
{
	int err = 0;
	socklen_t sl = sizeof(err);

	if (getsockopt(conn->sock, SOL_SOCKET, SO_ERROR, &err, &sl) < 0)
		err = errno;
	if (err) {
		flow_dbg(conn, "connect(): %s", strerror(err));
		if (tcp_syn_icmp_relay(ctx, conn) ||
		    tcp_syn_unreach(ctx, conn, err))
			tcp_conn_free(conn, false, "unreachable");
		else
			tcp_rst(ctx, conn, "connect() failed");
		return;
	}
	tcp_sock_recverr(conn->sock, inany_v4(&conn->f.key.gaddr), false);
	conn_event(conn, TEV_SOCK_CONNECTED);
	tcp_rcv_wnd_update(ctx, conn);
	conn->wnd_to_tap = MIN(conn->wnd_to_tap, 65535U << conn->ws_to_tap);
	if (tcp_send_flags(ctx, conn, F_SYN | F_ACK) == 0) {
		conn->seq_to_tap = conn->iss_to_tap + 1;
		conn->seq_max_to_tap = conn->seq_to_tap;
	}
	conn->last_active_ms = ctx->now;
	conn->timer_at_ms = 0;
	tcp_timer_arm(ctx, conn);
}

/**
 * tcp_handshake_segs() - Segments for a connection still in its handshake
 * @ctx:	Context
 * @conn:	Connection
 * @f:		Frames
 * @segs:	Their fields
 * @n:		Count
 */
static void tcp_handshake_segs(struct ctx *ctx, struct tcp_conn *conn,
			       const struct frame *f, const struct tcp_seg *segs,
			       unsigned n)
{
	const struct tcp_seg *s = &segs[0];

	if (s->flags & F_RST) {
		tcp_conn_free(conn, true, "RST from guest in handshake");
		return;
	}

	if (conn->events & TEV_TAP_SYN_SENT) {
		/* Inbound: we sent SYN, expect SYN-ACK acking ISS + 1 */
		struct tcp_opts o;
		int mss;

		if (!(s->flags & F_SYN) || !(s->flags & F_ACK) ||
		    s->ack != conn->iss_to_tap + 1)
			return;
		if (tcp_opt_parse(f->l4 + TCP_HLEN, f->l4_hlen - TCP_HLEN,
				  &o) < 0) {
			tcp_stats.bad_opts++;
			return;
		}
		conn->seq_from_tap = s->seq + 1;
		conn->seq_wnd_edge_to_tap = conn->seq_from_tap;
		if (o.ws >= 0) {
			conn->ws_from_tap = (uint8_t)o.ws;
		} else {
			conn->ws_from_tap = 0;
			conn->ws_to_tap = 0;	/* RFC 7323 1.3: both or none */
		}
		mss = o.mss ? o.mss : conn_af(conn) == AF_INET ?
				      TCP_MSS_DEFAULT4 : TCP_MSS_DEFAULT6;
		conn->mss_to_tap = (uint16_t)MIN(mss, (int)conn->mss_to_tap);
		tcp_snd_wnd_set(conn, s->wnd);
		conn->wnd_from_tap_last_unscaled = s->wnd;
		conn->last_active_ms = ctx->now;
		conn_flag_clear(conn, TFL_RTT_PENDING);
		tcp_rtt_sample(conn, (uint32_t)(ctx->now - conn->rtt_start_ms));
		conn->seq_to_tap = conn->iss_to_tap + 1;
		tcp_send_ack(ctx, conn);
		if (conn->flags & TFL_RST_AFTER_HS) {
			conn_event(conn, TEV_ESTABLISHED);
			tcp_rst(ctx, conn, "peer reset before the guest accepted");
			return;
		}
		if (tcp_established(ctx, conn) < 0)
			return;
		if (n > 1)
			tcp_established_segs(ctx, conn, segs + 1, n - 1);
		return;
	}

	/* Outbound */
	if (s->flags & F_SYN) {
		if (!(s->flags & F_ACK) && (conn->events & TEV_SOCK_CONNECTED))
			tcp_send_flags_seq(ctx, conn, F_SYN | F_ACK,
					   conn->iss_to_tap);
		return;	/* retransmitted SYN while connecting */
	}
	if (!(conn->events & TEV_SOCK_CONNECTED) || !(s->flags & F_ACK) ||
	    s->ack != conn->iss_to_tap + 1)
		return;

	tcp_snd_wnd_set(conn, (uint32_t)s->wnd << conn->ws_from_tap);
	conn->wnd_from_tap_last_unscaled = s->wnd;
	conn->last_active_ms = ctx->now;
	if (tcp_established(ctx, conn) < 0)
		return;
	tcp_established_segs(ctx, conn, segs, n);
}

/**
 * tcp_tap_handler() - Segments from the guest with one 4-tuple
 * @ctx:	Context
 * @f:		Parsed frames, all TCP with the same addresses and ports
 * @n:		Number of frames (at most TCP_MAX_BATCH are used)
 *
 * Context: main loop, after tap_rx()
 * Return: frames consumed: @n (at most TCP_MAX_BATCH), or fewer, up to and
 *	   including an RST for an existing flow (the caller passes the rest
 *	   again)
 */
unsigned tcp_tap_handler(struct ctx *ctx, const struct frame *f, unsigned n)
{
	struct tcp_seg segs[TCP_MAX_BATCH];
	struct flow_key key;
	union flow *flow;
	unsigned i, done;

	n = MIN(n, (unsigned)TCP_MAX_BATCH);
	if (ctx->c.no_tcp)
		return n;

	flow_key_fill(&key, IPPROTO_TCP, &f->src, f->sport, &f->dst, f->dport);

	/* Segments with no flow one at a time, each looked up again: a bare
	 * SYN may open the flow the following ones belong to.  A loop, not
	 * recursion: stack use doesn't depend on what the guest sends.
	 */
	for (done = 0; done < n; done++) {
		flow = flow_lookup(&key);
		if (flow)
			break;
		tcp_seg_get(&f[done], &segs[0]);
		if ((segs[0].flags & (F_SYN | F_ACK | F_RST)) == F_SYN)
			tcp_conn_from_tap(ctx, &f[done], &segs[0]);
		else
			tcp_rst_reply(ctx, &f[done]);
	}
	if (done == n)
		return n;

	if (flow->f.type != FLOW_TCP || (flow->tcp.flags & TFL_ORPHAN))
		return n;

	/* An RST may free the flow: the batch ends with it, and what follows
	 * (a SYN reusing the 4-tuple at once, as after SO_LINGER 0) comes
	 * back in the next call and is looked up again.  Before, such a SYN
	 * went to the freed flow, unanswered: the guest resent it after 1 s.
	 */
	f += done;
	for (i = 0; i < n - done; i++) {
		tcp_seg_get(&f[i], &segs[i]);
		if (segs[i].flags & F_RST) {
			n = done + i + 1;
			break;
		}
	}
	if (!(flow->tcp.events & TEV_ESTABLISHED))
		tcp_handshake_segs(ctx, &flow->tcp, f, segs, n - done);
	else
		tcp_established_segs(ctx, &flow->tcp, segs, n - done);
	return n;
}

/**
 * tcp_sock_handler() - Event on a connection's host socket
 * @ctx:	Context
 * @ref:	epoll reference (flow index)
 * @events:	epoll events
 *
 * Context: main loop
 * #syscalls getsockopt
 */
VISIBLE_IF_UNIT
void tcp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events)
{
	union flow *flow = flow_at(ref.flow);
	struct tcp_conn *conn = &flow->tcp;

	if (flow->f.type != FLOW_TCP || conn->sock != (int)ref.fd)
		return;

	if (events & EPOLLRDHUP)
		conn_flag(conn, TFL_SOCK_RDHUP);

	if (!(conn->events & TEV_ESTABLISHED)) {
		if ((conn->events & TEV_TAP_SYN_RCVD) &&
		    !(conn->events & TEV_SOCK_CONNECTED) &&
		    (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			tcp_connect_done(ctx, conn);
		else if ((conn->events & TEV_TAP_SYN_SENT) &&
			 (events & (EPOLLERR | EPOLLHUP)))
			/* The peer reset an accepted connection before the
			 * guest answered our SYN: finish the handshake, then
			 * reset, so the guest's application sees what a
			 * direct peer would (accept(), then ECONNRESET)
			 */
		{
			int err = 0;
			socklen_t sl = sizeof(err);

			getsockopt(conn->sock, SOL_SOCKET, SO_ERROR, &err, &sl);
			flow_dbg(conn, "peer gone in handshake: events 0x%x, %s",
				 events, strerror(err));
			conn_flag(conn, TFL_RST_AFTER_HS);
		}
		else if (events & EPOLLERR)
			tcp_rst(ctx, conn, "socket error in handshake");
		return;
	}

	if (events & EPOLLERR) {
		int err = 0;
		socklen_t sl = sizeof(err);

		getsockopt(conn->sock, SOL_SOCKET, SO_ERROR, &err, &sl);
		if (err) {
			flow_dbg(conn, "host socket error: %s", strerror(err));
			tcp_rst(ctx, conn, "host socket error");
			return;
		}
	}

	if ((events & EPOLLOUT) &&
	    (conn->flags & (TFL_SNDBUF_WAIT | TFL_PARTIAL_SEND))) {
		uint32_t edge = conn->seq_wnd_edge_to_tap;
		bool partial = conn->flags & TFL_PARTIAL_SEND;

		conn_flag_clear(conn, TFL_SNDBUF_WAIT | TFL_PARTIAL_SEND);
		tcp_rcv_wnd_update(ctx, conn);
		/* Only a real window update: an ACK with the same window
		 * would count as a duplicate (RFC 5681 section 2).  After a
		 * partial send, add duplicates on purpose so the guest
		 * resends what the socket couldn't take.
		 */
		if (partial)
			conn_flag(conn, TFL_DUP_ACK);
		if (partial ||
		    seq_ge(conn->seq_from_tap + (conn->wnd_to_tap >>
						 conn->ws_to_tap <<
						 conn->ws_to_tap),
			   edge + (1U << conn->ws_to_tap)))
			tcp_send_ack(ctx, conn);
	}

	if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) &&
	    !(conn->flags & TFL_ORPHAN)) {
		conn_flag(conn, TFL_SOCK_DATA);
		tcp_data_from_sock(ctx, conn);
	}
}

/**
 * tcp_timer_conn() - A connection's deadline passed
 * @ctx:	Context
 * @conn:	Connection
 */
static void tcp_timer_conn(struct ctx *ctx, struct tcp_conn *conn)
{
	conn->timer_at_ms = 0;

	if (conn->flags & TFL_ORPHAN) {
		if (!tcp_sock_unacked(conn) || tcp_sock_handover(conn)) {
			tcp_orphan_end(ctx, conn, false);
		} else if (ctx->now >= conn->orphan_until_ms) {
			tcp_orphan_end(ctx, conn, true);
		} else {
			conn->timer_at_ms = MIN(ctx->now + TCP_ORPHAN_POLL_MS,
						conn->orphan_until_ms);
			timer_want(ctx, conn->timer_at_ms);
		}
		return;
	}

	if (!(conn->events & TEV_ESTABLISHED)) {
		if (conn->events & TEV_TAP_SYN_SENT ||
		    conn->events & TEV_SOCK_CONNECTED) {
			if (conn->retrans++ >= SYN_RETRIES) {
				tcp_rst(ctx, conn, "handshake timeout");
				return;
			}
			conn->rto_ms = MIN(conn->rto_ms * 2, (uint32_t)RTO_MAX_MS);
			tcp_send_flags_seq(ctx, conn,
					   (conn->events & TEV_TAP_SYN_SENT) ?
					   F_SYN : F_SYN | F_ACK,
					   conn->iss_to_tap);
			tcp_stats.retrans++;
		} else if (ctx->now - conn->last_active_ms >=
			   CONNECT_TIMEOUT_MS) {
			tcp_rst(ctx, conn, "connect() timeout");
			return;
		}
		tcp_timer_arm(ctx, conn);
		return;
	}

	if (conn->seq_ack_from_tap != conn->seq_to_tap) {
		if (conn->retrans++ >= DATA_RETRIES) {
			tcp_rst(ctx, conn, "too many retransmissions");
			return;
		}
		tcp_stats.rto++;
		flow_dbg(conn, "RTO (%u ms), retransmitting from %u",
			 conn->rto_ms, conn->seq_ack_from_tap);
		conn->rto_ms = MIN(conn->rto_ms * 2, (uint32_t)RTO_MAX_MS);
		conn_flag_clear(conn, TFL_RECOVERY | TFL_RETRANS_ALL);
		if (tcp_retransmit(ctx, conn) == 0)
			tcp_timer_arm(ctx, conn);
		return;
	}

	if (conn->flags & TFL_WND_PROBE) {
		/* Zero window: an ACK with SEQ = SND.NXT - 1 makes the guest
		 * answer with its current window (RFC 9293 3.8.6.1)
		 */
		tcp_send_flags_seq(ctx, conn, F_ACK, conn->seq_to_tap - 1);
		conn->rto_ms = MIN(conn->rto_ms * 2, (uint32_t)RTO_MAX_MS);
		tcp_timer_arm(ctx, conn);
		return;
	}

	if (ctx->now - conn->last_active_ms >= IDLE_TIMEOUT_MS) {
		tcp_rst(ctx, conn, "idle timeout");
		return;
	}
	tcp_timer_arm(ctx, conn);
}

/**
 * tcp_flow_timer() - Run a connection's timer if it expired (flow_timer())
 * @ctx:	Context; @ctx->now is current
 * @flow:	Flow of type FLOW_TCP
 *
 * Return: the connection's next deadline, ms, INT64_MAX if none or freed
 */
static int64_t tcp_flow_timer(struct ctx *ctx, union flow *flow)
{
	if (flow->tcp.timer_at_ms && flow->tcp.timer_at_ms <= ctx->now)
		tcp_timer_conn(ctx, &flow->tcp);
	if (flow->f.type == FLOW_TCP && flow->tcp.timer_at_ms)
		return flow->tcp.timer_at_ms;
	return INT64_MAX;
}

/**
 * tcp_flow_abort() - Exit: end a tap-side connection (flow_abort_all())
 * @ctx:	Context
 * @flow:	Flow of type FLOW_TCP
 *
 * One whose guest finished its stream is closed, and the kernel delivers
 * what is still queued (tcp_sock_handover()); any other is reset.
 */
static void tcp_flow_abort(struct ctx *ctx, union flow *flow)
{
	(void)ctx;
	if (tcp_sock_handover(&flow->tcp)) {
		tcp_stats.drained++;
		tcp_conn_free(&flow->tcp, false, "drained at exit");
		return;
	}
	tcp_conn_free(&flow->tcp, true, "guest gone");
}

/**
 * tcp_sock_unacked() - Does the host socket still hold bytes its peer
 *			hasn't acknowledged?
 * @conn:	Connection
 *
 * sk_wmem_queued (SO_MEMINFO, include/uapi/linux/sock_diag.h) counts the
 * write queue and the retransmission queue: it drops to 0 once the peer
 * has ACKed every byte (and the FIN) we wrote.
 *
 * #syscalls getsockopt
 * Return: true if something is unacknowledged (or we can't tell)
 */
static bool tcp_sock_unacked(const struct tcp_conn *conn)
{
	uint32_t sndbuf, queued;

	return flow_sock_meminfo(conn->sock, &sndbuf, &queued) < 0 || queued;
}

/**
 * tcp_sock_handover() - Can the kernel finish the connection without us?
 * @conn:	Connection
 *
 * Once the guest's FIN is passed on (shutdown(SHUT_WR)), everything the
 * guest sent is in the host socket: a plain close() leaves the kernel to
 * deliver what is still queued and then the FIN, as for any program that
 * writes and exits.  Only if nothing waits to be read, or close() would
 * reset the connection and discard the queue (tcp_close()).
 *
 * Return: true if a close() now loses nothing we acknowledged
 */
static bool tcp_sock_handover(const struct tcp_conn *conn)
{
	return (conn->events & TEV_TAP_FIN_RCVD) &&
	       flow_sock_rqueue_empty(conn->sock);
}

/**
 * tcp_orphan_end() - Close a connection we are giving up, now that its host
 *		      peer has what we acknowledged (or time is up)
 * @ctx:	Context
 * @conn:	Connection
 * @timeout:	The peer hasn't ACKed everything, but time is up
 *
 * A guest that sent its FIN finished its stream: the host peer gets the
 * end of it, as it would from the guest.  Otherwise both sides get an RST:
 * the stream was cut (RFC 9293 3.6, ABORT).
 */
static void tcp_orphan_end(struct ctx *ctx, struct tcp_conn *conn,
			   bool timeout)
{
	if ((!timeout && (conn->events & TEV_TAP_FIN_RCVD)) ||
	    tcp_sock_handover(conn)) {
		tcp_stats.drained++;
		tcp_conn_free(conn, false, "drained");
		return;
	}
	if (timeout)
		tcp_stats.orphan_timeout++;
	if (!timeout)
		tcp_stats.orphan_rst++;
	if (tap_connected())
		tcp_rst(ctx, conn, timeout ? "abort, host peer hasn't ACKed all"
					   : "abort");
	else
		tcp_conn_free(conn, true, "abort, guest gone");
}

/**
 * tcp_orphan() - Give up on a connection without losing what we ACKed
 * @ctx:	Context
 * @conn:	Connection
 * @until:	Reset it at this time at the latest, ms
 *
 * Bytes the guest sent and we acknowledged may still sit in the host
 * socket's send queue: an RST (or a close() with unread data) would make
 * the kernel discard them.  So the connection stops moving data and waits
 * until the host peer has ACKed all of it (tcp_sock_unacked()), then ends
 * (tcp_orphan_end()); tcp_flow_timer() checks every TCP_ORPHAN_POLL_MS.
 */
static void tcp_orphan(struct ctx *ctx, struct tcp_conn *conn, int64_t until)
{
	if (!tcp_sock_unacked(conn)) {
		tcp_orphan_end(ctx, conn, false);
		return;
	}
	if (!(conn->flags & TFL_ORPHAN))
		flow_dbg(conn, "orphaned: waiting for the host peer's ACKs");
	tcp_wait_clear(conn);
	conn_flag(conn, TFL_ORPHAN);
	conn->orphan_until_ms = until;
	conn->timer_at_ms = MIN(ctx->now + TCP_ORPHAN_POLL_MS, until);
	timer_want(ctx, conn->timer_at_ms);
}

/**
 * tcp_flow_guest_gone() - The guest went away: end a tap-side connection
 * @ctx:	Context
 * @flow:	Flow of type FLOW_TCP
 * @ms:		How long the host peer may take to ACK what we ACKed, ms;
 *		0: we are exiting, the exit drain gives it up (tcp_flow_drain())
 *
 * Nothing more can come from the guest; what it sent and we ACKed still
 * reaches the host peer (tcp_orphan()).
 */
static void tcp_flow_guest_gone(struct ctx *ctx, union flow *flow,
				unsigned ms)
{
	if (ms)		/* else the exit drain does it (--one-off) */
		tcp_orphan(ctx, &flow->tcp, ctx->now + ms);
}

/**
 * tcp_flow_guest_attached() - A guest attached: the SYN of an inbound
 *			       connection that waited for one goes out now,
 *			       same ISN
 * @ctx:	Context
 * @flow:	Flow of type FLOW_TCP
 *
 * Context: passt, when a client connects to the UNIX socket
 */
static void tcp_flow_guest_attached(struct ctx *ctx, union flow *flow)
{
	struct tcp_conn *conn = &flow->tcp;

	if ((conn->flags & TFL_ORPHAN) || (conn->events & TEV_ESTABLISHED) ||
	    !(conn->events & TEV_TAP_SYN_SENT))
		return;
	tcp_send_flags_seq(ctx, conn, F_SYN, conn->iss_to_tap);
	conn_flag_clear(conn, TFL_RTT_PENDING);
	conn->rtt_start_ms = ctx->now;
	conn->timer_at_ms = 0;
	tcp_timer_arm(ctx, conn);
}

/**
 * tcp_flow_drain() - Exit drain: close a connection if it has finished
 * @ctx:	Context, with @ctx->drain_soft and @ctx->drain_hard set
 * @flow:	Flow of type FLOW_TCP
 * @abort:	The soft deadline passed: give up on it too (tcp_orphan(),
 *		until @ctx->drain_hard)
 *
 * Finished: the guest's FIN was received and passed on (shutdown()), and
 * the host peer has ACKed everything (tcp_sock_unacked()).  Without a
 * guest, nothing can finish any more: every connection is given up.
 *
 * Context: main loop, while @ctx->draining (flow_drain())
 * Return: true if the connection is still open
 */
static bool tcp_flow_drain(struct ctx *ctx, union flow *flow, bool abort)
{
	struct tcp_conn *conn = &flow->tcp;

	if (!(conn->flags & TFL_ORPHAN)) {
		if ((conn->events & TEV_TAP_FIN_RCVD) &&
		    (!tcp_sock_unacked(conn) || tcp_sock_handover(conn))) {
			tcp_stats.drained++;
			tcp_conn_free(conn, false, "drained");
			return false;
		}
		if (abort || !tap_connected())
			tcp_orphan(ctx, conn, ctx->drain_hard);
	}
	return flow->f.type == FLOW_TCP;
}

/**
 * tcp_count() - Add to a counter of the TCP path on behalf of another file
 * @what:	Counter
 * @n:		How much: events, or bytes for TCP_COUNT_BYTES_TO_TAP
 *
 * Context: main loop (single threaded: plain additions)
 */
void tcp_count(enum tcp_count what, uint64_t n)
{
	switch (what) {
	case TCP_COUNT_FLOWS_OPENED:
		tcp_stats.flows_opened += n;
		break;
	case TCP_COUNT_RST_TO_TAP:
		tcp_stats.rst_to_tap += n;
		break;
	case TCP_COUNT_RETRANS:
		tcp_stats.retrans += n;
		break;
	case TCP_COUNT_BYTES_TO_TAP:
		tcp_stats.bytes_to_tap += n;
		break;
	case TCP_COUNT_BAD_OPTS:
		tcp_stats.bad_opts += n;
		break;
	case TCP_COUNT_TAP_DROPPED:
		tcp_stats.tap_dropped += n;
		break;
	case TCP_COUNT_TAP_WAITS:
		tcp_stats.tap_waits += n;
		break;
	case TCP_COUNT_REFUSED_NO_SOURCE:
		tcp_stats.refused_no_source += n;
		break;
	}
}

/**
 * tcp_stats_print() - Print the counters of the tap-side TCP path
 */
static void tcp_stats_print(void)
{
	info_always("stats: TCP flows opened %lu closed %lu, refused (table full) %lu, refused (no source address) %lu, RST to guest %lu, RST to host %lu",
		    tcp_stats.flows_opened, tcp_stats.flows_closed,
		    flow_stats.tcp_refused_full, tcp_stats.refused_no_source,
		    tcp_stats.rst_to_tap, tcp_stats.rst_to_sock);
	info_always("stats: TCP bytes to guest %lu, from guest %lu, retransmissions %lu (fast %lu, RTO %lu), partial sends %lu, out-of-order %lu, bad options %lu",
		    tcp_stats.bytes_to_tap, tcp_stats.bytes_from_tap,
		    tcp_stats.retrans, tcp_stats.fast_retrans, tcp_stats.rto,
		    tcp_stats.partial_send, tcp_stats.ooo, tcp_stats.bad_opts);
	info_always("stats: TCP tap drops %lu (tagged %lu), turns waited %lu, SYN-ACK resends %lu; at exit: drained %lu, reset %lu, reset before the peer ACKed %lu",
		    tcp_stats.tap_dropped, tap_stats.tx_dropped_tagged,
		    tcp_stats.tap_waits, tcp_stats.synack_rexmit,
		    tcp_stats.drained, tcp_stats.orphan_rst,
		    tcp_stats.orphan_timeout);
	info_always("stats: TCP windows read from the socket %lu, ACKs that kept the right edge %lu; bytes peeked again (no SO_PEEK_OFF) %lu; receive buffers raised %lu",
		    tcp_stats.wnd_read, tcp_stats.wnd_kept,
		    tcp_reader_peeked_again(), tcp_rcvbuf_raised());
}

/**
 * tcp_flow_host_changed() - Reset a connection whose host-side address the
 *			     host no longer has
 * @ctx:	Context
 * @flow:	TCP flow
 * @has_addr:	Does the host have this address (family, network order)?
 *
 * The kernel keeps such a socket (nothing tells it the address is gone
 * for good): its segments leave from an address the peer can't answer,
 * and the connection would hang until a timeout.  The guest and the
 * host peer get an RST at once instead (RFC 9293 3.10.7: ABORT).
 * Loopback and unbound sockets are left alone (flow_sock_addr_gone()).
 */
static void tcp_flow_host_changed(struct ctx *ctx, union flow *flow,
				  bool (*has_addr)(int af, const void *addr))
{
	struct tcp_conn *conn = &flow->tcp;

	if (flow_sock_addr_gone(conn->sock, has_addr))
		tcp_rst(ctx, conn, "host-side address gone");
}

static const struct flow_ops tcp_flow_ops = {
	.name		= "TCP",
	.epoll_type	= EPOLL_TYPE_TCP,
	.sock		= tcp_sock_handler,
	.timer		= tcp_flow_timer,
	.drain		= tcp_flow_drain,
	.abort		= tcp_flow_abort,
	.guest_gone	= tcp_flow_guest_gone,
	.guest_attached	= tcp_flow_guest_attached,
	.host_changed	= tcp_flow_host_changed,
	.stats_print	= tcp_stats_print,
	.counters	= (const uint64_t *)&tcp_stats,
	.ncounters	= sizeof(tcp_stats) / sizeof(uint64_t),
	.describe	= flow_describe_key,
};

/**
 * tcp_flow_register() - Register the operations of the tap-side TCP path
 *
 * Context: start of main() (the entry point names each flow type)
 */
void tcp_flow_register(void)
{
	flow_ops_register(FLOW_TCP, &tcp_flow_ops);
}
