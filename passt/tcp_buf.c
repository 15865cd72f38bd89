// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp_buf.c - TCP towards the guest: frames, data from host sockets,
 *		     retransmission, back-pressure from the tap
 *
 * DOC: Theory of Operation
 *
 * The half of the TCP translation that builds what the guest receives:
 * header-only segments (SYN, ACK, FIN, RST: tcp_send_flags_seq()), and
 * data segments read from the host socket (tcp_data_from_sock()).  Data
 * frames are laid out in the tap transmit arena (tap_tx_reserve()) with
 * their headers filled by tcp_frame_fill(); the reader back-end
 * (tcp_reader.c, tcp_devmem.c) peeks the payload straight into them, or
 * hands out pieces that tcp_frames_ext() attaches to header-only frames.
 * Checksums are computed once per frame, over the payload as it lies.
 *
 * Retransmission rewinds SND.NXT to SND.UNA (tcp_retransmit()).  Every data
 * frame and FIN is tagged (tcp_tag()): one the tap drops comes back through
 * tcp_tap_dropped() and is undone by tcp_drop_apply() before the
 * connection sends again; waiting connections are served round robin by
 * tcp_tap_resume().  The state machine that decides when to send lives in
 * tcp.c.
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../lib/log.h"
#include "../tap/csum.h"
#include "../tap/guest.h"
#include "../tap/tap.h"
#include "flow_table.h"
#include "ctx.h"
#include "tcp.h"
#include "tcp_internal.h"
#include "tcp_opt.h"
#include "tcp_reader.h"
#include "tcp_seq.h"

static unsigned tcp_waiting;		/* flows with TFL_TAP_WAIT */
static unsigned tcp_wait_cursor;	/* round robin over them */
static struct tcp_rd_ext tcp_rd_ext;	/* payload pieces of the last read */

/**
 * tcp_snd_mss() - Largest payload to put in one segment to the guest now
 * @conn:	Connection
 *
 * The guest's MSS, but at most half the largest window it has offered
 * (Linux does the same, tcp_bound_to_half_wnd()): a receiver that lost
 * window scaling to SYN cookies (no timestamps in our SYN) has a window
 * below 64 KiB and an MSS near 64 KiB, and after one full-sized segment it
 * would never open its window again (receiver SWS avoidance, RFC 9293
 * 3.8.6.2.2: it waits for room for a whole MSS).
 *
 * Return: bytes, at least 536 (RFC 9293 3.7.1) unless the MSS is smaller
 */
static size_t tcp_snd_mss(const struct tcp_conn *conn)
{
	size_t half = conn->wnd_from_tap_max / 2;

	if (conn->wnd_from_tap_max <= TCP_MSS_DEFAULT4 ||
	    half >= conn->mss_to_tap)
		return conn->mss_to_tap;
	return MAX(half, (size_t)MIN(conn->mss_to_tap, TCP_MSS_DEFAULT4));
}

/**
 * tcp_snd_wnd_usable() - Window we may fill now
 * @conn:	Connection (established)
 * @mss:	Segment size in use (tcp_snd_mss())
 *
 * SND.WND, except on an inbound connection (the guest listens) before the
 * guest has ACKed any data: then one segment.  A listener whose accept
 * queue is full answers with a SYN cookie and keeps no state; it drops our
 * handshake ACK, and an ACK that doesn't carry SEQ = ISS + 1 can't match
 * the cookie and is answered with an RST (net/ipv4/syncookies.c).  So
 * nothing after the first segment may arrive before the guest's socket
 * exists: its first ACK of data says it does.
 *
 * Return: bytes
 */
static uint32_t tcp_snd_wnd_usable(const struct tcp_conn *conn, size_t mss)
{
	if ((conn->events & TEV_TAP_SYN_SENT) &&
	    conn->seq_ack_from_tap == conn->iss_to_tap + 1)
		return MIN(conn->wnd_from_tap, (uint32_t)mss);
	return conn->wnd_from_tap;
}

/**
 * tcp_tag() - Tag of a frame of ours to the guest, for tap_tx_tag()
 * @conn:	Connection
 * @seq:	Sequence number of the frame's first byte (or of its FIN)
 *
 * Return: flow index + 1 in the upper half, @seq in the lower one
 */
static uint64_t tcp_tag(const struct tcp_conn *conn, uint32_t seq)
{
	return (uint64_t)(flow_idx((const union flow *)conn) + 1) << 32 | seq;
}

/**
 * tcp_wait_set() - Queue a connection for its turn at the tap
 * @conn:	Connection
 */
static void tcp_wait_set(struct tcp_conn *conn)
{
	if (conn->flags & TFL_TAP_WAIT)
		return;
	conn_flag(conn, TFL_TAP_WAIT);
	tcp_waiting++;
}

/**
 * tcp_wait_clear() - Take a connection off the tap's waiting list
 * @conn:	Connection
 */
void tcp_wait_clear(struct tcp_conn *conn)
{
	if (!(conn->flags & TFL_TAP_WAIT))
		return;
	conn_flag_clear(conn, TFL_TAP_WAIT);
	tcp_waiting--;
}

/**
 * tcp_tap_dropped() - A tagged frame of ours never reached the guest
 * @tag:	Its tcp_tag()
 *
 * Only records the earliest such sequence number: tcp_drop_apply() moves
 * SND.NXT back before the connection sends again.
 *
 * Context: tap_flush(), through tap_tx_set_drop_cb()
 */
static void tcp_tap_dropped(uint64_t tag)
{
	unsigned idx = (unsigned)(tag >> 32);
	uint32_t seq = (uint32_t)tag;
	struct tcp_conn *conn;
	union flow *flow;

	if (!idx || idx > flow_max())
		return;
	flow = flow_at(idx - 1);
	if (flow->f.type != FLOW_TCP || flow->tcp.sock < 0)
		return;
	conn = &flow->tcp;
	tcp_count(TCP_COUNT_TAP_DROPPED, 1);
	if (!(conn->flags & TFL_TAP_DROP) ||
	    seq_lt(seq, conn->seq_drop_to_tap))
		conn->seq_drop_to_tap = seq;
	conn_flag(conn, TFL_TAP_DROP);
	tcp_wait_set(conn);
}

/**
 * tcp_l2_hlen() - Bytes of Ethernet, IP and TCP header (no options)
 * @conn:	Connection
 *
 * Return: 54 (IPv4) or 74 (IPv6)
 */
static size_t tcp_l2_hlen(const struct tcp_conn *conn)
{
	return ETH_HLEN + (conn_af(conn) == AF_INET ? IP4_HLEN : IP6_HLEN) +
	       TCP_HLEN;
}

/**
 * tcp_frame_fill() - Write Ethernet, IP and TCP headers of a segment
 * @ctx:	Context
 * @conn:	Connection
 * @l2:		Frame start; payload (if any) is already at l2 +
 *		tcp_l2_hlen() + @optlen
 * @seq:	Sequence number
 * @flags:	TCP flags
 * @opt:	Options to copy after the header, or NULL
 * @optlen:	Length of @opt, multiple of 4
 * @plen:	Payload length, bytes
 * @partial:	Leave the L4 checksum partial (tap device offload)
 *
 * Return: frame length
 */
static size_t tcp_frame_fill(struct ctx *ctx, struct tcp_conn *conn,
			     uint8_t *l2, uint32_t seq, uint8_t flags,
			     const uint8_t *opt, size_t optlen, size_t plen,
			     bool partial)
{
	const struct conf *c = &ctx->c;
	size_t l3len, l4len = TCP_HLEN + optlen + plen;
	struct tcphdr tcp = { 0 };
	uint32_t wnd, sum;
	uint8_t *th;
	uint16_t ck;

	frame_eth_fill(l2, tap_guest_mac_dst(), c->mac_our,
		       conn_af(conn) == AF_INET ? ETH_P_IP : ETH_P_IPV6);
	l3len = frame_l3_fill(l2 + ETH_HLEN, &conn->f.key.faddr,
			      &conn->f.key.gaddr, IPPROTO_TCP, l4len);
	th = l2 + ETH_HLEN + l3len;

	if (flags & F_SYN)
		wnd = MIN(conn->wnd_to_tap, UINT16_MAX); /* RFC 7323 2.2 */
	else
		wnd = MIN(conn->wnd_to_tap >> conn->ws_to_tap, UINT16_MAX);
	tcp.source = htons(conn->f.key.fport);
	tcp.dest = htons(conn->f.key.gport);
	tcp.seq = htonl(seq);
	tcp.ack_seq = htonl((flags & F_ACK) ? conn->seq_from_tap : 0);
	tcp.doff = (uint16_t)(((TCP_HLEN + optlen) / HDR_WORD) & 0xf);
	tcp.th_flags = flags;
	tcp.window = htons((uint16_t)wnd);
	hdr_store(th, &tcp);		/* checksum and urgent pointer 0 */
	if (optlen)
		memcpy(th + TCP_HLEN, opt, optlen);

	sum = csum_pseudo(&conn->f.key.faddr, &conn->f.key.gaddr, IPPROTO_TCP,
			  l4len);
	if (partial) {
		ck = (uint16_t)~csum_fold(sum);
	} else {
		ck = csum(th, l4len, sum);
	}
	memcpy(th + TCP_CSUM_OFF, &ck, sizeof(ck));

	if (flags & F_ACK)
		conn->seq_wnd_edge_to_tap = conn->seq_from_tap +
					    ((flags & F_SYN) ? wnd :
					     wnd << conn->ws_to_tap);
	return ETH_HLEN + l3len + l4len;
}

/**
 * tcp_send_flags_seq() - Send a segment without payload
 * @ctx:	Context
 * @conn:	Connection
 * @flags:	TCP flags; SYN adds our MSS and window scale options
 * @seq:	Sequence number to use
 *
 * Return: 0, or -ENOBUFS if the frame can't be queued
 */
int tcp_send_flags_seq(struct ctx *ctx, struct tcp_conn *conn,
			      uint8_t flags, uint32_t seq)
{
	uint8_t opt[TCP_SYN_OPT_LEN];
	size_t optlen = 0, len;
	uint8_t *l2;

	if (flags & F_SYN) {
		int mss = ctx->c.mtu - (int)TCP_HLEN -
			  (int)(conn_af(conn) == AF_INET ? IP4_HLEN : IP6_HLEN);

		optlen = tcp_opt_syn_fill(opt, (uint16_t)MIN(mss, UINT16_MAX),
					  conn->ws_to_tap ? conn->ws_to_tap :
							    -1);
	}

	l2 = tap_tx_frame(tcp_l2_hlen(conn) + optlen);
	if (!l2)
		return -ENOBUFS;
	len = tcp_frame_fill(ctx, conn, l2, seq, flags, optlen ? opt : NULL,
			     optlen, 0, false);
	(void)len;
	return 0;
}

/**
 * tcp_send_flags() - Send a segment without payload at SND.NXT
 * @ctx:	Context
 * @conn:	Connection
 * @flags:	TCP flags
 *
 * Return: 0 or -ENOBUFS
 */
int tcp_send_flags(struct ctx *ctx, struct tcp_conn *conn, uint8_t flags)
{
	return tcp_send_flags_seq(ctx, conn, flags, conn->seq_to_tap);
}

/**
 * tcp_rst_reply() - RST for a segment that belongs to no connection
 * @ctx:	Context
 * @f:		The segment's frame
 *
 * RFC 9293 3.10.7.1: if the segment has ACK, the RST carries SEQ = SEG.ACK;
 * else SEQ = 0 and ACK = SEG.SEQ + SEG.LEN (SYN and FIN count one each).
 * An incoming RST is never answered.
 */
void tcp_rst_reply(struct ctx *ctx, const struct frame *f)
{
	struct tcp_conn tmp = { 0 };
	struct tcp_seg s;
	uint32_t seq = 0;
	uint8_t flags = F_RST;

	tcp_seg_get(f, &s);
	if (s.flags & F_RST)
		return;

	flow_key_fill(&tmp.f.key, IPPROTO_TCP, &f->src, f->sport, &f->dst,
		      f->dport);
	if (f->af == AF_INET)
		tmp.flags |= TFL_IPV4;
	if (s.flags & F_ACK) {
		seq = s.ack;
	} else {
		flags |= F_ACK;
		tmp.seq_from_tap = s.seq + (uint32_t)s.len +
				   !!(s.flags & F_SYN) + !!(s.flags & F_FIN);
	}
	tcp_send_flags_seq(ctx, &tmp, flags, seq);
	tcp_count(TCP_COUNT_RST_TO_TAP, 1);
}

/**
 * tcp_send_fin() - Host peer's end of stream: FIN to the guest
 * @ctx:	Context
 * @conn:	Connection
 */
static void tcp_send_fin(struct ctx *ctx, struct tcp_conn *conn)
{
	if (!(conn->events & TEV_SOCK_EOF))
		conn->seq_fin_to_tap = conn->seq_to_tap;
	conn_event(conn, TEV_SOCK_EOF | TEV_TAP_FIN_SENT);
	if (tcp_send_flags_seq(ctx, conn, F_FIN | F_ACK,
			       conn->seq_fin_to_tap)) {
		conn_event_clear(conn, TEV_TAP_FIN_SENT);	/* try again later */
		tcp_wait_set(conn);
		return;
	}
	tap_tx_tag(tcp_tag(conn, conn->seq_fin_to_tap));
	conn->seq_to_tap = conn->seq_fin_to_tap + 1;
	if (seq_gt(conn->seq_to_tap, conn->seq_max_to_tap))
		conn->seq_max_to_tap = conn->seq_to_tap;
	flow_dbg(conn, "FIN to guest");
	tcp_timer_arm(ctx, conn);
}

/**
 * tcp_csum_ext() - Complete the TCP checksum of a segment with scattered
 *		    payload
 * @conn:	Connection
 * @th:		TCP header (no options), checksum field to be overwritten
 * @pay:	Payload pieces
 * @k:		Entries in @pay
 * @plen:	Payload bytes, the sum of the piece lengths
 */
static void tcp_csum_ext(const struct tcp_conn *conn, uint8_t *th,
			 const struct iovec *pay, unsigned k, size_t plen)
{
	uint32_t sum = csum_pseudo(&conn->f.key.faddr, &conn->f.key.gaddr,
				   IPPROTO_TCP, TCP_HLEN + plen);
	uint16_t ck;

	hdr_put16(th, struct tcphdr, check, 0);
	sum = csum_unfolded(th, TCP_HLEN, sum);
	sum = csum_iov(pay, k, sum);	/* the header has even length */
	ck = csum_fold(sum);
	memcpy(th + TCP_CSUM_OFF, &ck, sizeof(ck));
}

/**
 * tcp_frames_ext() - Queue segments whose payload the reader handed out as
 *		      pieces (tcp_rd_ext): headers in the arena, payload in
 *		      place (a mapped dma-buf, the reader's store)
 * @ctx:	Context
 * @conn:	Connection
 * @frames:	Frame slots in the arena, one per segment
 * @iov:	Payload size of each segment (as offered to the reader)
 * @n:		Entries in @frames and @iov
 * @total:	Bytes the reader returned
 * @partial:	Leave the L4 checksum partial (tap device offload)
 *
 * A segment is cut short when it would need more than TAP_FRAME_IOV_MAX
 * pieces, and what no slot is left for stays with the reader: it returns
 * the same bytes again at the next read.
 *
 * Return: payload bytes queued; SND.NXT advanced by as much
 */
static size_t tcp_frames_ext(struct ctx *ctx, struct tcp_conn *conn,
			     uint8_t *const *frames, const struct iovec *iov,
			     unsigned n, size_t total, bool partial)
{
	const struct tcp_rd_ext *ext = &tcp_rd_ext;
	size_t hlen = tcp_l2_hlen(conn), done = 0, poff = 0;
	unsigned i, pi = 0;

	for (i = 0; i < n && done < total; i++) {
		size_t seg = MIN(iov[i].iov_len, total - done), plen = 0;
		struct iovec pay[TAP_FRAME_IOV_MAX];
		uint8_t flags = F_ACK;
		unsigned k = 0;

		while (plen < seg && pi < ext->n && k < TAP_FRAME_IOV_MAX) {
			const struct iovec *pc = &ext->piece[pi];
			size_t take = MIN(pc->iov_len - poff, seg - plen);

			pay[k].iov_base = (uint8_t *)pc->iov_base + poff;
			pay[k++].iov_len = take;
			plen += take;
			poff += take;
			if (poff == pc->iov_len) {
				pi++;
				poff = 0;
			}
		}
		if (!plen)
			break;
		if (!tap_tx_ext_room(k))
			tap_flush();	/* frames[i] stays valid */
		if (done + plen == total)
			flags |= F_PSH;
		tcp_frame_fill(ctx, conn, frames[i], conn->seq_to_tap, flags,
			       NULL, 0, plen, true);
		if (!partial)
			tcp_csum_ext(conn, frames[i] + hlen - TCP_HLEN, pay, k,
				     plen);
		if (tap_tx_add_ext(frames[i], hlen, pay, k,
				   partial ? hlen - TCP_HLEN : TAP_CSUM_DONE,
				   16))
			break;
		tap_tx_tag(tcp_tag(conn, conn->seq_to_tap));
		conn->seq_to_tap += (uint32_t)plen;
		done += plen;
	}
	return done;
}

/**
 * tcp_drop_apply() - Move SND.NXT back to the first frame the tap didn't
 *		      take (tcp_tap_dropped()), and the reader with it
 * @ctx:	Context
 * @conn:	Connection with TFL_TAP_DROP
 *
 * Frames after the dropped one that did reach the guest are sent again:
 * it discards the duplicates.  A FIN that may have been dropped is sent
 * again after the data.
 *
 * Return: 0, or -1 if the reader couldn't rewind and the connection was
 *	   reset (and freed)
 */
static int tcp_drop_apply(struct ctx *ctx, struct tcp_conn *conn)
{
	uint32_t seq = conn->seq_drop_to_tap;

	conn_flag_clear(conn, TFL_TAP_DROP);
	if (!(conn->events & TEV_ESTABLISHED) ||
	    seq_lt(seq, conn->seq_ack_from_tap) ||
	    !seq_lt(seq, conn->seq_to_tap))
		return 0;	/* ACKed meanwhile, or already rewound */

	if ((conn->events & TEV_TAP_FIN_SENT) &&
	    !(conn->events & TEV_TAP_FIN_ACKED) &&
	    seq_le(seq, conn->seq_fin_to_tap))
		conn_event_clear(conn, TEV_TAP_FIN_SENT);
	if ((conn->flags & TFL_RTT_PENDING) &&
	    seq_lt(seq, conn->rtt_seq_to_tap))
		conn_flag_clear(conn, TFL_RTT_PENDING);	/* Karn's algorithm */
	conn->seq_to_tap = seq;
	if (rd(conn)->rewind(conn, seq - conn->seq_ack_from_tap) < 0) {
		flow_dbg(conn, "rewind to %u after a tap drop failed", seq);
		tcp_rst(ctx, conn, "reader rewind failed");
		return -1;
	}
	flow_dbg(conn, "tap dropped frames from %u, SND.NXT back", seq);
	return 0;
}

/**
 * tcp_data_from_sock() - Send new host-socket data to the guest
 * @ctx:	Context
 * @conn:	Connection (established)
 *
 * Loops until the guest's window is full, the socket has nothing new, the
 * tap can't take more (tap_tx_blocked(): the connection then waits for its
 * turn, tcp_tap_resume()), or TCP_TURN_BYTES were sent in this turn (the
 * same, so that every connection gets its share of the tap).
 *
 * Return: 0, or -1 if the connection was reset (and freed)
 */
int tcp_data_from_sock(struct ctx *ctx, struct tcp_conn *conn)
{
	size_t hlen = tcp_l2_hlen(conn), turn = 0;
	bool partial = tap_csum_offload();
	int loops = 0;

	if ((conn->flags & TFL_TAP_DROP) && tcp_drop_apply(ctx, conn) < 0)
		return -1;
	if (!(conn->events & TEV_ESTABLISHED) ||
	    (conn->events & TEV_TAP_FIN_SENT) || (conn->flags & TFL_ORPHAN))
		return 0;

	while (loops++ < 64) {
		size_t sent = conn->seq_to_tap - conn->seq_ack_from_tap;
		size_t mss = tcp_snd_mss(conn);
		int64_t wnd_left = (int64_t)tcp_snd_wnd_usable(conn, mss) -
				   (int64_t)sent;
		size_t slot, want, got, need, min_read, seg;
		struct iovec iov[IOV_MAX_DATA];
		struct tap_tx_room room;
		uint8_t *frames[IOV_MAX_DATA];
		unsigned n, i;
		uint8_t *p;
		ssize_t r;

		if (wnd_left <= 0) {
			if (!conn->wnd_from_tap && sent == 0) {
				conn_flag(conn, TFL_WND_PROBE);
				tcp_timer_arm(ctx, conn);
			}
			return 0;
		}
		conn_flag_clear(conn, TFL_WND_PROBE);

		if (tap_tx_blocked() || turn >= TCP_TURN_BYTES) {
			tcp_wait_set(conn);	/* tcp_tap_resume() goes on */
			return 0;
		}

		want = (size_t)wnd_left;
		min_read = rd(conn)->min_read;
		/* payload per frame: several segments with tap GSO */
		seg = min_read ? mss : tap_gso_seg(hlen, mss);
		slot = ROUND_UP(TAP_HEADROOM + hlen + seg, 8);
		need = slot;
		if (min_read)	/* devmem: not less than a GRO chunk at once */
			need *= MIN(DIV_ROUND_UP(MIN(want, min_read), mss),
				    (size_t)IOV_MAX_DATA);
		tap_tx_reserve(slot, (unsigned)(need / slot), &room);
		if (room.flushed) {
			if (conn->flags & TFL_TAP_DROP) {
				/* Frames of ours were dropped: SND.NXT first */
				if (tcp_drop_apply(ctx, conn) < 0)
					return -1;
				if (conn->events & TEV_TAP_FIN_SENT)
					return 0;
				continue;
			}
			if (tap_tx_blocked()) {
				tcp_wait_set(conn);
				return 0;
			}
			if (!room.n)
				return 0;
		}

		p = room.p;
		n = (unsigned)MIN(MIN(DIV_ROUND_UP(want, seg), (size_t)room.n),
				  (size_t)IOV_MAX_DATA);
		for (i = 0; i < n; i++) {
			frames[i] = p + i * slot + TAP_HEADROOM;
			iov[i].iov_base = frames[i] + hlen;
			iov[i].iov_len = MIN(seg, want - i * seg);
		}

		tcp_rd_ext.n = 0;
		r = rd(conn)->read(conn, iov, n, sent,
				   (conn->flags & TFL_SOCK_RDHUP) ||
				   (conn->events & TEV_SOCK_EOF), &tcp_rd_ext);
		if (r == -EAGAIN) {
			conn_flag_clear(conn, TFL_SOCK_DATA);
			return 0;
		}
		if (r == 0) {
			tcp_send_fin(ctx, conn);
			return 0;
		}
		if (r < 0) {
			if (r == -ENOBUFS)
				return 0;	/* discard prefix full: wait for ACKs */
			tcp_rst(ctx, conn, "host socket read error");
			return -1;
		}

		if (tcp_rd_ext.n) {
			got = tcp_frames_ext(ctx, conn, frames, iov, n,
					     (size_t)r, partial);
			if (!got)
				return 0;
		} else {
			size_t left = (size_t)r;

			for (i = 0; i < n && left; i++) {
				size_t plen = MIN(left, iov[i].iov_len), len;
				uint8_t flags = F_ACK;

				left -= plen;
				if (!left)
					flags |= F_PSH;
				len = tcp_frame_fill(ctx, conn, frames[i],
						     conn->seq_to_tap, flags,
						     NULL, 0, plen, partial);
				if (partial) {
					tap_tx_add(frames[i], len,
						   hlen - TCP_HLEN,
						   TCP_CSUM_OFF);
					if (plen > mss)
						tap_tx_gso(mss);
				} else
					tap_tx_add(frames[i], len,
						   TAP_CSUM_DONE, 0);
				tap_tx_tag(tcp_tag(conn, conn->seq_to_tap));
				conn->seq_to_tap += (uint32_t)plen;
			}
			got = (size_t)r;
		}
		tcp_count(TCP_COUNT_BYTES_TO_TAP, (uint64_t)got);
		turn += got;

		if (seq_gt(conn->seq_to_tap, conn->seq_max_to_tap))
			conn->seq_max_to_tap = conn->seq_to_tap;
		if (!(conn->flags & TFL_RTT_PENDING) && !conn->retrans) {
			conn_flag(conn, TFL_RTT_PENDING);
			conn->rtt_seq_to_tap = conn->seq_to_tap;
			conn->rtt_start_ms = ctx->now;
		}
		conn->last_active_ms = ctx->now;
		tcp_timer_arm(ctx, conn);

		/* Less than asked for: the queue is drained for now, unless
		 * the peer's FIN came with the data (read again for EOF)
		 */
		if ((size_t)r < want && (size_t)r < n * seg &&
		    !(conn->flags & TFL_SOCK_RDHUP)) {
			conn_flag_clear(conn, TFL_SOCK_DATA);
			return 0;
		}
	}
	/* Loop limit: more may be queued, come back in the next turn */
	tcp_wait_set(conn);
	return 0;
}

/**
 * tcp_retransmit() - Go back to SND.UNA and send again what the window
 *		      allows
 * @ctx:	Context
 * @conn:	Connection (established)
 *
 * For the RTO (RFC 6298 5.4, go-back-N: we have no SACK) and for fast
 * retransmit (RFC 5681 3.2 step 4; without SACK, resending the whole
 * unacknowledged range at once covers every hole of a burst the tap
 * dropped, where NewReno, RFC 6582, would take one round trip per hole).
 * The guest discards what it already had.  Our FIN, if it was sent,
 * follows the data again.
 *
 * Return: 0, or -1 if the reader couldn't rewind or the host socket
 *	   failed, and the connection was reset (and freed)
 */
int tcp_retransmit(struct ctx *ctx, struct tcp_conn *conn)
{
	int ret;

	if (conn->seq_ack_from_tap == conn->seq_to_tap)
		return 0;
	conn->seq_to_tap = conn->seq_ack_from_tap;
	if (!(conn->events & TEV_TAP_FIN_ACKED))
		conn_event_clear(conn, TEV_TAP_FIN_SENT);
	conn_flag_clear(conn, TFL_RTT_PENDING | TFL_TAP_DROP);	/* Karn */
	ret = rd(conn)->rewind(conn, 0);
	if (ret < 0) {
		flow_dbg(conn, "rewind for retransmission: %s", strerror(-ret));
		tcp_rst(ctx, conn, "reader rewind failed");
		return -1;
	}
	tcp_count(TCP_COUNT_RETRANS, 1);
	if (tcp_data_from_sock(ctx, conn) < 0)
		return -1;
	if (conn->seq_to_tap == conn->seq_ack_from_tap &&
	    (conn->events & TEV_SOCK_EOF) &&
	    !(conn->events & TEV_TAP_FIN_SENT) &&
	    !(conn->events & TEV_TAP_FIN_ACKED))
		tcp_send_fin(ctx, conn);
	return 0;
}

/**
 * tcp_tap_waiting() - Are connections waiting for their turn at the tap?
 *
 * Return: true if tcp_tap_resume() has work
 */
bool tcp_tap_waiting(void)
{
	return tcp_waiting > 0;
}

/**
 * tcp_tap_resume() - Give connections waiting for the tap their turn
 * @ctx:	Context
 *
 * Round robin over the flow table, from where the last pass stopped: each
 * connection sends up to TCP_TURN_BYTES (tcp_data_from_sock()), and the
 * pass stops as soon as the tap can't take more, so the next pass starts
 * with the first connection that didn't get its turn.  A connection whose
 * frames were dropped goes back to the first of them first.
 *
 * Context: main loop, before tap_flush(), when the tap isn't blocked
 */
void tcp_tap_resume(struct ctx *ctx)
{
	unsigned k, hwm = flow_hwm(), todo = tcp_waiting;

	if (!todo || !hwm)
		return;
	if (tcp_wait_cursor >= hwm)
		tcp_wait_cursor = 0;
	for (k = 0; k < hwm && todo; k++) {
		unsigned i = (tcp_wait_cursor + k) % hwm;
		union flow *flow = flow_at(i);
		struct tcp_conn *conn = &flow->tcp;

		if (flow->f.type != FLOW_TCP || !(conn->flags & TFL_TAP_WAIT))
			continue;
		if (tap_tx_blocked()) {
			tcp_wait_cursor = i;
			return;
		}
		todo--;
		tcp_wait_clear(conn);
		tcp_count(TCP_COUNT_TAP_WAITS, 1);
		if ((conn->flags & TFL_TAP_DROP) &&
		    tcp_drop_apply(ctx, conn) < 0)
			continue;
		if (!(conn->events & TEV_ESTABLISHED) ||
		    (conn->flags & TFL_ORPHAN))
			continue;
		if (tcp_data_from_sock(ctx, conn) < 0)
			continue;
		if (conn->seq_to_tap == conn->seq_ack_from_tap &&
		    (conn->events & TEV_SOCK_EOF) &&
		    !(conn->events & (TEV_TAP_FIN_SENT | TEV_TAP_FIN_ACKED)))
			tcp_send_fin(ctx, conn);
		tcp_timer_arm(ctx, conn);
	}
	tcp_wait_cursor = (tcp_wait_cursor + k) % hwm;
}

/**
 * tcp_buf_init() - Reset the turn-taking state, take the tap's drop reports
 *
 * Context: set-up (tcp_init())
 */
void tcp_buf_init(void)
{
	tcp_waiting = 0;
	tcp_wait_cursor = 0;
	tap_tx_set_drop_cb(tcp_tap_dropped);
}
