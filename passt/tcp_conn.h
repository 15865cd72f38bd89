/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_conn.h - State of a tap-side TCP connection
 *
 * Only passt/tcp*.c may include this header (and flow_table.h, for the
 * union): other modules go through passt/tcp.h.
 */
#ifndef PASST_TCP_CONN_H
#define PASST_TCP_CONN_H

#include <stdint.h>

#include "flow.h"

/* Events: what has happened on this connection.  States are derived from
 * them (see tcp_state_str() in tcp.c); each bit has its own value.
 */
enum tcp_ev {
	TEV_TAP_SYN_RCVD,	/* outbound: guest's SYN seen, connect() started */
	TEV_SOCK_CONNECTED,	/* outbound: connect() done, SYN-ACK sent to guest */
	TEV_SOCK_ACCEPTED,	/* inbound: accepted on a forwarded port */
	TEV_TAP_SYN_SENT,	/* inbound: SYN sent to the guest */
	TEV_ESTABLISHED,	/* handshake with the guest complete */
	TEV_TAP_FIN_RCVD,	/* guest's FIN in sequence: shutdown(SHUT_WR) done */
	TEV_SOCK_EOF,		/* host socket read EOF (peer's FIN) */
	TEV_TAP_FIN_SENT,	/* FIN sent to the guest */
	TEV_TAP_FIN_ACKED,	/* guest ACKed our FIN */
	TEV_COUNT
};

#define TEV(x)		(1U << TEV_##x)

/* Flags: conditions that come and go */
enum tcp_fl {
	TFL_SOCK_RDHUP,		/* EPOLLRDHUP seen: no data after the queue */
	TFL_SNDBUF_WAIT,	/* window limited by the send buffer: EPOLLOUT armed */
	TFL_PARTIAL_SEND,	/* host socket took less than the guest sent */
	TFL_ACK_DUE,		/* send an ACK at the end of this batch */
	TFL_DUP_ACK,		/* send duplicate ACKs (out of order, or loss) */
	TFL_WND_PROBE,		/* guest window is zero: persist timer */
	TFL_RTT_PENDING,	/* @rtt_seq / @rtt_ts hold a sample in flight */
	TFL_IPV4,		/* guest side is IPv4 */
	TFL_RST_AFTER_HS,	/* host peer reset during the handshake */
	TFL_RECOVERY,		/* fast recovery until @recover is ACKed */
	TFL_ORPHAN,		/* being aborted: RST once the host peer ACKed all */
	TFL_SOCK_DATA,		/* host socket may hold bytes not sent yet */
	TFL_TAP_WAIT,		/* waits for its turn at the tap (tcp_tap_resume()) */
	TFL_TAP_DROP,		/* frames from @drop_seq on were not written */
	TFL_RETRANS_ALL,	/* go back to SND.UNA after this batch (fast rexmit) */
	TFL_COUNT
};

#define TFL(x)		(1U << TFL_##x)
_Static_assert(TFL_COUNT <= 32, "tcp_conn.flags too narrow");

/**
 * struct tcp_conn - One TCP connection between the guest and a host socket
 * @f:			Flow header (type FLOW_TCP, guest-side key)
 * @sock:		Host socket, non-blocking
 * @events:		TEV() bits
 * @flags:		TFL() bits
 * @reader:		Host-socket reader back-end (enum tcp_reader_kind)
 * @retrans:		Consecutive retransmissions without progress
 * @dup_acks:		Duplicate ACKs from the guest in a row
 * @snd_wscale:		Guest's window shift (RFC 7323), 0 if none
 * @rcv_wscale:		Our window shift, 0 if the guest didn't offer scaling
 * @mss:		Largest payload we put in a segment to the guest, bytes
 * @iss:		Our initial sequence number (RFC 6528)
 * @snd_una:		SND.UNA: oldest sequence number not ACKed by the guest
 * @snd_nxt:		SND.NXT: next sequence number we send
 * @snd_max:		Highest sequence number ever sent + 1
 * @fin_seq:		Sequence number of our FIN (valid with TEV_SOCK_EOF)
 * @recover:		SND.NXT when fast recovery began (RFC 6582 "recover")
 * @snd_wnd:		SND.WND: guest's window, bytes (already scaled)
 * @snd_wnd_max:	Largest SND.WND seen, bytes: segments are at most half
 *			of it (as Linux's tcp_bound_to_half_wnd()), so a
 *			receiver whose buffer is smaller than its MSS (no
 *			window scaling after SYN cookies) can open its window
 * @drop_seq:		With TFL_TAP_DROP: first sequence number of a frame
 *			the tap didn't take; SND.NXT goes back to it
 * @snd_wnd_last_raw:	Raw window field of the last ACK (dup ACK detection)
 * @rcv_nxt:		RCV.NXT: next sequence number expected from the guest
 * @rcv_wnd_edge:	Right edge of the window we last advertised
 *			(RCV.NXT + RCV.WND at that time): never moved left
 * @rcv_wnd:		Window we advertise now, bytes
 * @rto_ms:		Retransmission timeout (RFC 6298), ms
 * @srtt_ms:		Smoothed RTT, ms (0: no sample yet)
 * @rttvar_ms:		RTT variation, ms
 * @rtt_seq:		Sequence number whose ACK ends the RTT sample
 * @rtt_ts:		When that sample started, ms
 * @timer_at:		Deadline of the connection's timer, ms (0: none)
 * @orphan_until:	With TFL_ORPHAN: reset at this time even if the host
 *			peer hasn't ACKed everything, ms
 * @last_active:	Last time anything happened, ms
 * @sndbuf:		Host socket's sk_sndbuf at the last reading, bytes
 */
struct tcp_conn {
	struct flow_common f;
	int sock;
	uint16_t events;
	uint32_t flags;
	uint8_t reader;
	uint8_t retrans;
	uint8_t dup_acks;
	uint8_t snd_wscale;
	uint8_t rcv_wscale;
	uint16_t mss;
	uint32_t iss;
	uint32_t snd_una;
	uint32_t snd_nxt;
	uint32_t snd_max;
	uint32_t fin_seq;
	uint32_t recover;
	uint32_t snd_wnd;
	uint32_t snd_wnd_max;
	uint32_t drop_seq;
	uint16_t snd_wnd_last_raw;
	uint32_t rcv_nxt;
	uint32_t rcv_wnd_edge;
	uint32_t rcv_wnd;
	uint32_t rto_ms;
	uint32_t srtt_ms;
	uint32_t rttvar_ms;
	uint32_t rtt_seq;
	int64_t rtt_ts;
	int64_t timer_at;
	int64_t orphan_until;
	int64_t last_active;
	uint32_t sndbuf;
};

#endif /* PASST_TCP_CONN_H */
