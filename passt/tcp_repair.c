// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp_repair.c - Dump and rebuild a host TCP socket under TCP_REPAIR
 *
 * A socket in repair mode (TCP_REPAIR on, set by passt-repair: passt has no
 * CAP_NET_ADMIN) gives up its state (Documentation/networking/tcp-repair,
 * tcp(7), net/ipv4/tcp.c): TCP_INFO for the state, window shifts and
 * options, TCP_MAXSEG, TCP_TIMESTAMP, TCP_REPAIR_WINDOW; TCP_REPAIR_QUEUE
 * selects the send or receive queue, whose bytes a MSG_PEEK reads and whose
 * sequence number TCP_QUEUE_SEQ gives (the end of the queue: write_seq,
 * rcv_nxt).  A new socket in repair mode takes it back: bound to the old
 * address, queue sequences set, connect() goes to ESTABLISHED without a
 * segment, send() fills the selected queue without transmitting,
 * TCP_REPAIR_OPTIONS and TCP_REPAIR_WINDOW restore the rest; leaving repair
 * mode then resumes the connection.  Closing a socket in repair mode sends
 * nothing (no FIN, no RST).
 *
 * The stream's fields are upstream passt's, so that either side may be
 * upstream's.  Send queue: once our FIN is queued (FIN-WAIT-1/2, LAST-ACK,
 * CLOSING) it counts in write_seq, so in SIOCOUTQ and SIOCOUTQNSD
 * (write_seq - snd_una, write_seq - snd_nxt: tcp_ioctl()), and the MSG_PEEK
 * gives one byte less: the lengths are lowered by one, and seq_snd, the end
 * (write_seq) minus the length, is one past the first unacknowledged byte
 * while the FIN is unacknowledged (FIN-WAIT-1, LAST-ACK, CLOSING).  Upstream
 * sends it so, and restores it as it comes: the data would then go out one
 * sequence number late, and the peer, still waiting for SND.UNA, would
 * never take it nor the FIN (a hang).  So we send it as upstream does, and
 * take one off when restoring those states, whichever side sent it.
 * Receive queue: SIOCINQ doesn't count a received FIN (tcp_inq() takes it
 * off when SOCK_DONE is set), unlike upstream's belief: upstream lowers the
 * length by one in CLOSE-WAIT and LAST-ACK, and its last byte is lost.  We
 * send every byte: the length as SIOCINQ gives it, and seq_rcv, the end
 * (rcv_nxt, past the FIN) minus it, one past the first byte; restoring the
 * queue from there brings rcv_nxt back past the FIN, as the peer saw it
 * ACKed (an upstream destination restores it the same way).  The receive
 * window is widened by the FIN (rcv_wup - 1, rcv_wnd + 1) as upstream.  The
 * bytes never sent (notsent) go back through an ordinary send() after
 * repair mode, so that they are transmitted; a FIN in FIN-WAIT-2 is
 * restored in repair mode (already ACKed: not sent again), in FIN-WAIT-1,
 * LAST-ACK and CLOSING after it (it may not have arrived: sent again).
 *
 * Unlike upstream, a queue larger than the new socket's buffer doesn't fail
 * the connection: the buffer is raised first (SO_SNDBUF, SO_RCVBUF), which
 * ends the kernel's automatic sizing for that socket.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <unistd.h>

#include "tcp_repair.h"

#ifndef SO_PEEK_OFF
#define SO_PEEK_OFF	42	/* include/uapi/asm-generic/socket.h */
#endif

#define TCP_REPAIR_CHUNK_MIN	1024	/* smallest send() on ENOMEM, bytes */

/**
 * struct tcp_repair_info - struct tcp_info as the kernel has it, up to
 *			    tcpi_notsent_bytes (include/uapi/linux/tcp.h)
 * @ti:			glibc's struct tcp_info, up to tcpi_total_retrans
 * @pacing_rate:	tcpi_pacing_rate (unused)
 * @max_pacing_rate:	tcpi_max_pacing_rate (unused)
 * @bytes_acked:	tcpi_bytes_acked (unused)
 * @bytes_received:	tcpi_bytes_received (unused)
 * @segs_out:		tcpi_segs_out (unused)
 * @segs_in:		tcpi_segs_in (unused)
 * @notsent_bytes:	tcpi_notsent_bytes (Linux 4.6): write_seq - snd_nxt,
 *			what the SIOCOUTQNSD ioctl gives in a synchronised
 *			state (tcp_get_info(), tcp_ioctl()), bytes
 *
 * glibc's <netinet/tcp.h> stops at tcpi_total_retrans, and <linux/tcp.h>
 * can't be included beside it.
 */
struct tcp_repair_info {
	struct tcp_info ti;
	uint64_t pacing_rate;
	uint64_t max_pacing_rate;
	uint64_t bytes_acked;
	uint64_t bytes_received;
	uint32_t segs_out;
	uint32_t segs_in;
	uint32_t notsent_bytes;
};

/* the kernel's offsets: tcpi_pacing_rate at 104, tcpi_notsent_bytes at 144 */
_Static_assert(offsetof(struct tcp_repair_info, pacing_rate) == 104,
	       "struct tcp_info layout");
_Static_assert(offsetof(struct tcp_repair_info, notsent_bytes) == 144,
	       "struct tcp_info layout");

/**
 * tcp_repair_queue() - Select the queue the next operations work on
 * @s:		Socket in repair mode
 * @q:		TCP_RECV_QUEUE or TCP_SEND_QUEUE
 *
 * Return: 0, or -errno from setsockopt()
 */
static int tcp_repair_queue(int s, int q)
{
	if (setsockopt(s, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)))
		return -errno;
	return 0;
}

/**
 * tcp_repair_peek() - Copy the selected queue's bytes, leaving them there
 * @s:		Socket in repair mode, queue selected
 * @buf:	Destination
 * @len:	Bytes expected (the queue's length)
 *
 * A MSG_PEEK of the send queue in repair mode copies it from its head
 * (tcp_peek_sndq()); of the receive queue, from the first unread byte
 * (SO_PEEK_OFF is off: tcp_repair_dump()).
 *
 * Return: 0, -errno from recv(), or -ENXIO if fewer bytes came
 */
static int tcp_repair_peek(int s, uint8_t *buf, uint32_t len)
{
	ssize_t n;

	if (!len)
		return 0;
	n = recv(s, buf, len, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	return (uint32_t)n == len ? 0 : -ENXIO;
}

/**
 * tcp_repair_dump() - Read a socket's state and queues, in repair mode
 * @s:		Connected TCP socket, TCP_REPAIR on
 * @e:		Filled, host order (tcp_migrate.h); tcpi_state is 0 on error
 * @q:		Filled with the send queue's @e->sndq bytes, then the receive
 *		queue's @e->rcvq bytes (the stream's order)
 * @room:	Bytes available at @q
 *
 * The guest is stopped while this runs for each connection, so it makes
 * as few calls as it can: ten for an idle connection with timestamps.
 * The bytes not sent come with TCP_INFO (tcpi_notsent_bytes, the same
 * write_seq - snd_nxt as SIOCOUTQNSD; the ioctl only on a kernel older
 * than 4.6, whose struct is shorter), and SO_PEEK_OFF is turned off only
 * if there is a receive queue to peek at (it moves only the receive
 * queue's MSG_PEEK: tcp_recvmsg_locked()).
 *
 * The socket is left as it was, in repair mode (SO_PEEK_OFF off if there
 * was a receive queue): close() then sends nothing, and TCP_REPAIR off
 * gives back the connection.
 *
 * #syscalls:passt getsockopt setsockopt ioctl recvfrom
 * Return: 0, -ENOBUFS if a queue is larger than @room, -EINVAL if the
 *	   counts don't agree, -ENXIO if a queue read short, other -errno
 *	   from the calls
 */
int tcp_repair_dump(int s, struct tcp_mig_ext *e, uint8_t *q, size_t room)
{
	struct tcp_repair_info info;
	const struct tcp_info *ti = &info.ti;
	struct tcp_repair_window w;
	int v, rc, fin_sent, fin_rcvd;
	socklen_t sl, il = sizeof(info);

	memset(e, 0, sizeof(*e));
	if (getsockopt(s, IPPROTO_TCP, TCP_INFO, &info, &il))
		return -errno;
	if (il < offsetof(struct tcp_repair_info, pacing_rate))
		return -EINVAL;
	sl = sizeof(v);
	if (getsockopt(s, IPPROTO_TCP, TCP_MAXSEG, &v, &sl))
		return -errno;
	e->mss = (uint32_t)v;
	e->snd_ws = ti->tcpi_snd_wscale;
	e->rcv_ws = ti->tcpi_rcv_wscale;
	e->tcpi_options = ti->tcpi_options;
	if (ti->tcpi_options & TCPI_OPT_TIMESTAMPS) {
		sl = sizeof(v);
		if (getsockopt(s, IPPROTO_TCP, TCP_TIMESTAMP, &v, &sl))
			return -errno;
		e->timestamp = (uint32_t)v;
	}
	sl = sizeof(w);
	if (getsockopt(s, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, &sl))
		return -errno;
	e->snd_wl1 = w.snd_wl1;
	e->snd_wnd = w.snd_wnd;
	e->max_window = w.max_window;
	e->rcv_wnd = w.rcv_wnd;
	e->rcv_wup = w.rcv_wup;

	fin_sent = ti->tcpi_state == TCP_FIN_WAIT1 ||
		   ti->tcpi_state == TCP_FIN_WAIT2 ||
		   ti->tcpi_state == TCP_LAST_ACK ||
		   ti->tcpi_state == TCP_CLOSING;
	fin_rcvd = ti->tcpi_state == TCP_CLOSE_WAIT ||
		   ti->tcpi_state == TCP_LAST_ACK;
	if (fin_rcvd) {
		e->rcv_wup--;
		e->rcv_wnd++;
	}

	if ((rc = tcp_repair_queue(s, TCP_SEND_QUEUE)))
		return rc;
	if (ioctl(s, SIOCOUTQ, &v) < 0)
		return -errno;
	e->sndq = (uint32_t)v;
	if (!e->sndq) {
		e->notsent = 0;		/* write_seq - snd_nxt <= this */
	} else if (il >= offsetof(struct tcp_repair_info, notsent_bytes) +
			 sizeof(info.notsent_bytes)) {
		e->notsent = info.notsent_bytes;
	} else {
		if (ioctl(s, SIOCOUTQNSD, &v) < 0)
			return -errno;
		e->notsent = (uint32_t)v;
	}
	if (fin_sent) {
		if (e->sndq)
			e->sndq--;
		if (e->notsent)
			e->notsent--;
	}
	if (e->notsent > e->sndq)
		return -EINVAL;
	if (e->sndq > room || e->sndq > TCP_MIG_QUEUE_MAX)
		return -ENOBUFS;
	if ((rc = tcp_repair_peek(s, q, e->sndq)))
		return rc;
	sl = sizeof(e->seq_snd);
	if (getsockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ, &e->seq_snd, &sl))
		return -errno;

	if ((rc = tcp_repair_queue(s, TCP_RECV_QUEUE)))
		return rc;
	if (ioctl(s, SIOCINQ, &v) < 0)
		return -errno;
	e->rcvq = (uint32_t)v;		/* the FIN not counted: all bytes */
	if (e->rcvq > room - e->sndq || e->rcvq > TCP_MIG_QUEUE_MAX)
		return -ENOBUFS;
	if (e->rcvq) {
		v = -1;
		/* may fail (before Linux 4.4): then never set, and unused */
		setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &v, sizeof(v));
		if ((rc = tcp_repair_peek(s, q + e->sndq, e->rcvq)))
			return rc;
	}
	sl = sizeof(e->seq_rcv);
	if (getsockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ, &e->seq_rcv, &sl))
		return -errno;

	e->seq_snd -= e->sndq;
	e->seq_rcv -= e->rcvq;
	e->tcpi_state = ti->tcpi_state;
	return 0;
}

/**
 * tcp_repair_fin_unacked() - Was our FIN sent and not acknowledged yet?
 * @state:	Kernel TCP state (tcpi_state, include/net/tcp_states.h)
 *
 * Return: true in FIN-WAIT-1, LAST-ACK and CLOSING (RFC 9293 3.3.2): the
 *	   FIN counts in write_seq, and in the stream's seq_snd (see above)
 */
static bool tcp_repair_fin_unacked(uint8_t state)
{
	return state == TCP_FIN_WAIT1 || state == TCP_LAST_ACK ||
	       state == TCP_CLOSING;
}

/**
 * tcp_repair_room() - Make a socket buffer hold a queue we are about to write
 * @s:		Socket
 * @opt:	SO_SNDBUF or SO_RCVBUF
 * @len:	Bytes of payload to fit
 *
 * The kernel counts an skb's truesize, about twice the payload for small
 * segments, against the buffer (sk_wmem_queued, sk_rmem_alloc): ask for
 * twice @len plus 64 KiB (the kernel doubles the value set again, and
 * caps it at [wr]mem_max * 2; a failure is left to the send() to show).
 *
 * #syscalls:passt getsockopt setsockopt
 */
static void tcp_repair_room(int s, int opt, uint32_t len)
{
	uint64_t w = (uint64_t)len * 2 + 65536;
	int cur = 0, want = w > INT32_MAX / 2 ? INT32_MAX / 2 : (int)w;
	socklen_t sl = sizeof(cur);

	if (!getsockopt(s, SOL_SOCKET, opt, &cur, &sl) && cur >= want * 2)
		return;
	setsockopt(s, SOL_SOCKET, opt, &want, sizeof(want));
}

/**
 * tcp_repair_write() - Write bytes into the selected queue (or, out of repair
 *			mode, send them)
 * @s:		Socket
 * @buf:	Bytes
 * @len:	Their count
 *
 * ENOMEM and ENOBUFS (a receive queue the kernel can't charge at once)
 * halve the size of a send() down to TCP_REPAIR_CHUNK_MIN, as upstream.
 *
 * #syscalls:passt sendto
 * Return: 0, or -errno from send() (-EAGAIN: the buffer is full)
 */
static int tcp_repair_write(int s, const uint8_t *buf, uint32_t len)
{
	uint32_t chunk = len;

	while (len) {
		ssize_t n = send(s, buf, chunk < len ? chunk : len,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if ((errno == ENOMEM || errno == ENOBUFS) &&
			    chunk > TCP_REPAIR_CHUNK_MIN) {
				chunk /= 2;
				continue;
			}
			return -errno;
		}
		buf += n;
		len -= (uint32_t)n;
	}
	return 0;
}

/**
 * tcp_repair_restore() - Rebuild a connection on a new socket in repair mode
 * @s:		New TCP socket (same family as the addresses), SO_REUSEADDR,
 *		TCP_REPAIR on, not bound
 * @local:	Address and port the original socket had (getsockname())
 * @peer:	Its peer (getpeername())
 * @sl:		Length of @local and @peer
 * @e:		Extended record, checked by tcp_mig_ext_decode(), tcpi_state
 *		not 0
 * @sndq:	@e->sndq bytes: the send queue, sent bytes first
 * @rcvq:	@e->rcvq bytes: the receive queue
 *
 * Does all that takes repair mode: the caller then turns it off (through
 * passt-repair), and calls tcp_repair_restore_finish().
 *
 * #syscalls:passt bind connect setsockopt getsockopt shutdown sendto
 * Return: 0, or -errno of the first call that failed
 */
int tcp_repair_restore(int s, const struct sockaddr *local,
		       const struct sockaddr *peer, socklen_t sl,
		       const struct tcp_mig_ext *e, const uint8_t *sndq,
		       const uint8_t *rcvq)
{
	struct tcp_repair_opt opts[4] = {
		{ TCPOPT_WINDOW, e->snd_ws + ((uint32_t)e->rcv_ws << 16) },
		{ TCPOPT_MAXSEG, e->mss },
	};
	struct tcp_repair_window w = {
		.snd_wl1 = e->snd_wl1, .snd_wnd = e->snd_wnd,
		.max_window = e->max_window, .rcv_wnd = e->rcv_wnd,
		.rcv_wup = e->rcv_wup,
	};
	/* the first unacknowledged byte: see the conventions above */
	uint32_t snd_una = e->seq_snd - tcp_repair_fin_unacked(e->tcpi_state);
	unsigned nopt = 2, i;
	int rc, v, q[2];

	if (bind(s, local, sl))
		return -errno;
	if (e->tcpi_options & TCPI_OPT_TIMESTAMPS) {
		v = (int)e->timestamp;
		if (setsockopt(s, IPPROTO_TCP, TCP_TIMESTAMP, &v, sizeof(v)))
			return -errno;
	}
	/* Each queue's sequence is set with the queue selected, and the one
	 * written first is selected last: a connection with at most one queue
	 * to fill selects a queue twice, not three times (the guest is
	 * stopped while this runs for each one).  Whatever is pushed in repair
	 * mode must find the send queue selected, or it goes out for real
	 * (tcp_write_xmit() skips transmission only then): the sent bytes,
	 * and the FIN of FIN-WAIT-2.
	 */
	q[1] = e->rcvq ? TCP_RECV_QUEUE : TCP_SEND_QUEUE;  /* written first */
	q[0] = q[1] == TCP_RECV_QUEUE ? TCP_SEND_QUEUE : TCP_RECV_QUEUE;
	for (i = 0; i < 2; i++) {
		const uint32_t *seq = q[i] == TCP_SEND_QUEUE ? &snd_una :
							     &e->seq_rcv;

		if ((rc = tcp_repair_queue(s, q[i])))
			return rc;
		if (setsockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ, seq,
			       sizeof(*seq)))
			return -errno;
	}
	if (connect(s, peer, sl) && errno != EINPROGRESS)
		return -errno;

	if (e->rcvq) {
		tcp_repair_room(s, SO_RCVBUF, e->rcvq);
		if ((rc = tcp_repair_write(s, rcvq, e->rcvq)))
			return rc;
		if ((e->sndq - e->notsent || e->tcpi_state == TCP_FIN_WAIT2) &&
		    (rc = tcp_repair_queue(s, TCP_SEND_QUEUE)))
			return rc;
	}
	if (e->sndq)
		tcp_repair_room(s, SO_SNDBUF, e->sndq);
	if ((rc = tcp_repair_write(s, sndq, e->sndq - e->notsent)))
		return rc;

	if (e->tcpi_options & TCPI_OPT_SACK)
		opts[nopt++] = (struct tcp_repair_opt){ TCPOPT_SACK_PERMITTED, 0 };
	if (e->tcpi_options & TCPI_OPT_TIMESTAMPS)
		opts[nopt++] = (struct tcp_repair_opt){ TCPOPT_TIMESTAMP, 0 };
	if (setsockopt(s, IPPROTO_TCP, TCP_REPAIR_OPTIONS, opts,
		       (socklen_t)(nopt * sizeof(opts[0]))))
		return -errno;

	/* FIN sent and ACKed: queue it, in repair mode nothing goes out */
	if (e->tcpi_state == TCP_FIN_WAIT2 && shutdown(s, SHUT_WR))
		return -errno;

	if (setsockopt(s, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, sizeof(w)))
		return -errno;
	return 0;
}

/**
 * tcp_repair_restore_finish() - After repair mode: send what never was
 * @s:		Socket restored by tcp_repair_restore(), TCP_REPAIR off
 * @e:		Its extended record
 * @sndq:	Its send queue (the last @e->notsent bytes never went out)
 *
 * In FIN-WAIT-1, LAST-ACK and CLOSING our FIN may not have reached the
 * peer: shut down again, which sends it (after the bytes).  (The peer's
 * FIN isn't in the rebuilt socket: in LAST-ACK it goes to FIN-WAIT-1, and
 * the peer, which has its FIN ACKed already, ACKs ours.)
 *
 * #syscalls:passt sendto shutdown
 * Return: 0, or -errno (-EAGAIN: the send buffer couldn't take the bytes)
 */
int tcp_repair_restore_finish(int s, const struct tcp_mig_ext *e,
			      const uint8_t *sndq)
{
	int rc;

	if ((rc = tcp_repair_write(s, sndq + (e->sndq - e->notsent),
				   e->notsent)))
		return rc;
	if (tcp_repair_fin_unacked(e->tcpi_state) && shutdown(s, SHUT_WR))
		return -errno;
	return 0;
}
