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

/* Events: what has happened on this connection, one bit each.  Only
 * tcp_events_set() writes them (conn_event(), conn_event_clear()): it checks
 * the combination (tcp_events_allowed()) and derives the RFC 9293 state
 * (enum tcp_state, tcp_state_next()).  Names are spelled out in full, so
 * that grep finds every use.
 */
enum tcp_ev {
	/* outbound: guest's SYN seen, connect() started */
	TEV_TAP_SYN_RCVD = 1U << 0,
	/* outbound: connect() done, SYN-ACK sent to guest */
	TEV_SOCK_CONNECTED = 1U << 1,
	/* inbound: accepted on a forwarded port */
	TEV_SOCK_ACCEPTED = 1U << 2,
	/* inbound: SYN sent to the guest */
	TEV_TAP_SYN_SENT = 1U << 3,
	/* handshake with the guest complete */
	TEV_ESTABLISHED = 1U << 4,
	/* guest's FIN in sequence: shutdown(SHUT_WR) done */
	TEV_TAP_FIN_RCVD = 1U << 5,
	/* host socket read EOF (peer's FIN): our FIN is due (RFC 9293 CLOSE) */
	TEV_SOCK_EOF = 1U << 6,
	/* FIN sent to the guest (cleared if it must go out again) */
	TEV_TAP_FIN_SENT = 1U << 7,
	/* guest ACKed our FIN */
	TEV_TAP_FIN_ACKED = 1U << 8,
};
#define TEV_COUNT		9

/* Flags: conditions that come and go.  Only tcp_flags_set() writes them
 * (conn_flag(), conn_flag_clear()), logged at trace level
 */
enum tcp_fl {
	/* EPOLLRDHUP seen: no data after the queue */
	TFL_SOCK_RDHUP = 1U << 0,
	/* window limited by the send buffer: EPOLLOUT armed */
	TFL_SNDBUF_WAIT = 1U << 1,
	/* host socket took less than the guest sent */
	TFL_PARTIAL_SEND = 1U << 2,
	/* send an ACK at the end of this batch */
	TFL_ACK_DUE = 1U << 3,
	/* send duplicate ACKs (out of order, or loss) */
	TFL_DUP_ACK = 1U << 4,
	/* guest window is zero: persist timer */
	TFL_WND_PROBE = 1U << 5,
	/* @rtt_seq_to_tap, @rtt_start_ms: a sample */
	TFL_RTT_PENDING = 1U << 6,
	/* guest side is IPv4 (set before the first event, never changed) */
	TFL_IPV4 = 1U << 7,
	/* host peer reset during the handshake */
	TFL_RST_AFTER_HS = 1U << 8,
	/* fast recovery: @seq_recover_to_tap unACKed */
	TFL_RECOVERY = 1U << 9,
	/* being aborted: RST once the host peer ACKed all (never cleared) */
	TFL_ORPHAN = 1U << 10,
	/* host socket may hold bytes not sent yet */
	TFL_SOCK_DATA = 1U << 11,
	/* waits for its turn at the tap (tcp_tap_resume()) */
	TFL_TAP_WAIT = 1U << 12,
	/* frames from @seq_drop_to_tap not written */
	TFL_TAP_DROP = 1U << 13,
	/* go back to SND.UNA after this batch (fast rexmit) */
	TFL_RETRANS_ALL = 1U << 14,
};
#define TFL_COUNT		15
_Static_assert(TFL_COUNT <= 32, "tcp_conn.flags too narrow");

/* RFC 9293 3.3.2 states, as the guest's peer (us) is in them: derived from
 * the events by tcp_events_set(), for logs and for what serialises a
 * connection.  There is no LISTEN entry: a connection is made on the SYN.
 */
enum tcp_state {
	TCP_STATE_CLOSED = 0,	/* zeroed entry, or LAST-ACK done */
	TCP_STATE_SYN_SENT,
	TCP_STATE_SYN_RECEIVED,
	TCP_STATE_ESTABLISHED,
	TCP_STATE_FIN_WAIT_1,
	TCP_STATE_FIN_WAIT_2,
	TCP_STATE_CLOSE_WAIT,
	TCP_STATE_CLOSING,
	TCP_STATE_LAST_ACK,
	TCP_STATE_TIME_WAIT,
	TCP_STATE_COUNT
};

/**
 * struct tcp_conn - One TCP connection between the guest and a host socket
 * @f:			Flow header (type FLOW_TCP, guest-side key)
 * @sock:		Host socket, non-blocking
 * @events:		enum tcp_ev bits, written by tcp_events_set() only
 * @flags:		enum tcp_fl bits, written by tcp_flags_set() only
 * @state:		enum tcp_state, derived from @events by tcp_events_set()
 * @reader:		Host-socket reader back-end (enum tcp_reader_kind)
 * @retrans:		Consecutive retransmissions without progress
 * @dup_acks:		Duplicate ACKs from the guest in a row
 * @ws_from_tap:	Guest's window shift (RFC 7323), 0 if none
 * @ws_to_tap:		Our window shift, 0 if the guest didn't offer scaling
 * @mss_to_tap:		Largest payload we put in a segment to the guest, bytes
 * @iss_to_tap:		ISS: our initial sequence number (RFC 6528)
 * @seq_ack_from_tap:	SND.UNA: oldest sequence number the guest hasn't ACKed
 * @seq_to_tap:		SND.NXT: next sequence number we send to the guest
 * @seq_max_to_tap:	Highest sequence number ever sent to the guest + 1
 * @seq_fin_to_tap:	Sequence number of our FIN (valid with TEV_SOCK_EOF)
 * @seq_recover_to_tap:	SND.NXT when fast recovery began (RFC 6582 "recover")
 * @wnd_from_tap:	SND.WND: the guest's window, bytes (already scaled)
 * @wnd_from_tap_max:	Largest SND.WND seen, bytes: segments are at most half
 *			of it (as Linux's tcp_bound_to_half_wnd()), so a
 *			receiver whose buffer is smaller than its MSS (no
 *			window scaling after SYN cookies) can open its window
 * @seq_drop_to_tap:	With TFL_TAP_DROP: first sequence number of a frame
 *			the tap didn't take; SND.NXT goes back to it
 * @wnd_from_tap_last_unscaled: Raw window field of the guest's last ACK (dup
 *			ACK detection)
 * @seq_from_tap:	RCV.NXT: next sequence number expected from the guest
 * @seq_wnd_edge_to_tap: Right edge of the window we last advertised to the
 *			guest (RCV.NXT + RCV.WND at that time): never moved left
 * @wnd_to_tap:		RCV.WND: the window we advertise to the guest, bytes
 * @rto_ms:		Retransmission timeout towards the guest (RFC 6298), ms
 * @srtt_ms:		Smoothed RTT to the guest, ms (0: no sample yet)
 * @rttvar_ms:		RTT variation, ms
 * @rtt_seq_to_tap:	Sequence number whose ACK ends the RTT sample
 * @rtt_start_ms:	When that sample started, ms (CLOCK_MONOTONIC)
 * @timer_at_ms:	Deadline of the connection's timer, ms (0: none)
 * @orphan_until_ms:	With TFL_ORPHAN: reset at this time even if the host
 *			peer hasn't ACKed everything, ms
 * @last_active_ms:	Last time anything happened, ms
 * @sock_sndbuf:	Host socket's sk_sndbuf at the last reading, bytes
 * @seq_wnd_meas:	RCV.NXT when the window was last computed from the host
 *			socket's free send space (tcp_rcv_wnd_update())
 * @wnd_meas:		RCV.WND computed then, bytes
 * @wnd_meas_ms:	When, ms (low 32 bits of CLOCK_MONOTONIC)
 * @rcvbuf_taken:	Bytes the guest took from the host socket in this period
 *			(passt/tcp_rcvbuf.c)
 * @rcvbuf_prev:	Bytes it took in the period before
 * @rcvbuf_ms:		When this period started, ms (low 32 bits)
 * @rcvbuf_period_ms:	Its length, ms (the host socket's receiver RTT)
 */
struct tcp_conn {
	struct flow_common f;
	int sock;
	uint16_t events;
	uint32_t flags;
	uint8_t state;
	uint8_t reader;
	uint8_t retrans;
	uint8_t dup_acks;
	uint8_t ws_from_tap;
	uint8_t ws_to_tap;
	uint16_t mss_to_tap;
	uint32_t iss_to_tap;
	uint32_t seq_ack_from_tap;
	uint32_t seq_to_tap;
	uint32_t seq_max_to_tap;
	uint32_t seq_fin_to_tap;
	uint32_t seq_recover_to_tap;
	uint32_t wnd_from_tap;
	uint32_t wnd_from_tap_max;
	uint32_t seq_drop_to_tap;
	uint16_t wnd_from_tap_last_unscaled;
	uint32_t seq_from_tap;
	uint32_t seq_wnd_edge_to_tap;
	uint32_t wnd_to_tap;
	uint32_t rto_ms;
	uint32_t srtt_ms;
	uint32_t rttvar_ms;
	uint32_t rtt_seq_to_tap;
	int64_t rtt_start_ms;
	int64_t timer_at_ms;
	int64_t orphan_until_ms;
	int64_t last_active_ms;
	uint32_t sock_sndbuf;
	uint32_t seq_wnd_meas;
	uint32_t wnd_meas;
	uint32_t wnd_meas_ms;
	uint32_t rcvbuf_taken;
	uint32_t rcvbuf_prev;
	uint32_t rcvbuf_ms;
	uint32_t rcvbuf_period_ms;
};

#endif /* PASST_TCP_CONN_H */
