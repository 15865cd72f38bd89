/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_internal.h - What the files of the TCP translation share
 *
 * passt/tcp.c (the state machine), passt/tcp_buf.c (frames and data to the
 * guest) and passt/tcp_open.c (new connections) include this; no other
 * module does (they go through passt/tcp.h).
 */
#ifndef PASST_TCP_INTERNAL_H
#define PASST_TCP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../tap/frame.h"
#include "../tap/hdr.h"
#include "flow_table.h"
#include "tcp_conn.h"
#include "tcp_reader.h"

struct ctx;
struct frame;

/* TCP header flags (RFC 9293 3.1), th_flags of struct tcphdr */
#define F_FIN			TH_FIN
#define F_SYN			TH_SYN
#define F_RST			TH_RST
#define F_PSH			TH_PUSH
#define F_ACK			TH_ACK

/* TCP_HLEN: the header without options, sizeof(struct tcphdr) (tap/hdr.h) */
#define TCP_WS_OUR		8	/* our window shift: up to 16 MiB */
#define TCP_WND_MAX		(65535U << TCP_WS_OUR)
#define TCP_WND_READ_MS		10	/* tcp_rcv_wnd_ack(): read again after, ms */
#define TCP_WND_INIT		65535U	/* in our SYN / SYN-ACK (unscaled) */
#define TCP_MSS_DEFAULT4	536	/* RFC 9293 3.7.1 */
#define TCP_MSS_DEFAULT6	1220	/* RFC 8200 5: 1280 - 60 */

#define RTO_INIT_MS		1000	/* RFC 6298 2.1 */
#define RTO_MIN_MS		200	/* Linux TCP_RTO_MIN */
#define RTO_MAX_MS		60000	/* RFC 6298 2.5 */
#define SYN_RETRIES		6
#define DATA_RETRIES		10
#define CONNECT_TIMEOUT_MS	10000
#define IDLE_TIMEOUT_MS		(7200 * 1000)
#define DUP_ACK_THRESH		3	/* RFC 5681 3.2 */
#define TCP_TURN_BYTES		(1 << 20)	/* per flow per turn at the tap */
#define TCP_ORPHAN_POLL_MS	20	/* orphaned flow: SIOCOUTQ check */

/**
 * conn_af() - Address family of the guest side
 * @conn:	Connection
 *
 * Return: AF_INET or AF_INET6
 */
static inline int conn_af(const struct tcp_conn *conn)
{
	return conn->flags & TFL_IPV4 ? AF_INET : AF_INET6;
}

/* tcp.c: the state machine's setters and tables */
extern const char *const tcp_state_str[TCP_STATE_COUNT];
/* also passt/tcp_restart.c, to check a record's events */
bool tcp_events_allowed(unsigned old, unsigned events);
enum tcp_state tcp_state_next(enum tcp_state old, unsigned events);
bool tcp_state_allowed(enum tcp_state from, enum tcp_state to);
void tcp_events_set(struct tcp_conn *conn, unsigned events);
void tcp_flags_log(const struct tcp_conn *conn, uint32_t flags);

/**
 * conn_event() - An event happened on a connection
 * @conn:	Connection
 * @ev:		enum tcp_ev bits to set
 */
static inline void conn_event(struct tcp_conn *conn, unsigned ev)
{
	tcp_events_set(conn, conn->events | ev);
}

/**
 * conn_event_clear() - Take an event back (TEV_TAP_FIN_SENT only: our FIN
 *			must go out again)
 * @conn:	Connection
 * @ev:		enum tcp_ev bits to clear
 */
static inline void conn_event_clear(struct tcp_conn *conn, unsigned ev)
{
	tcp_events_set(conn, conn->events & ~ev);
}

/**
 * tcp_flags_set() - Write a connection's flags: the only writer
 * @conn:	Connection
 * @flags:	New value, enum tcp_fl bits
 *
 * TFL_IPV4 is set before the first event and never changes, TFL_ORPHAN is
 * never cleared (asserted).  Changes are logged at trace level only: some
 * flags change with every segment.
 */
static inline void tcp_flags_set(struct tcp_conn *conn, uint32_t flags)
{
	uint32_t changed = flags ^ conn->flags;

	if (!changed)
		return;
	ASSERT(!(changed & TFL_IPV4) || !conn->events);
	ASSERT(!(conn->flags & TFL_ORPHAN) || (flags & TFL_ORPHAN));
	if (log_trace_on)
		tcp_flags_log(conn, flags);
	conn->flags = flags;
}

/**
 * conn_flag() - Set flags of a connection
 * @conn:	Connection
 * @fl:		enum tcp_fl bits to set
 */
static inline void conn_flag(struct tcp_conn *conn, uint32_t fl)
{
	tcp_flags_set(conn, conn->flags | fl);
}

/**
 * conn_flag_clear() - Clear flags of a connection
 * @conn:	Connection
 * @fl:		enum tcp_fl bits to clear
 */
static inline void conn_flag_clear(struct tcp_conn *conn, uint32_t fl)
{
	tcp_flags_set(conn, conn->flags & ~fl);
}


/**
 * rd() - Reader back-end of a connection
 * @conn:	Connection
 *
 * Return: ops
 */
static inline const struct tcp_reader_ops *rd(const struct tcp_conn *conn)
{
	return tcp_readers[conn->reader];
}


/**
 * struct tcp_seg - Fields of one guest segment
 * @seq:	SEG.SEQ
 * @ack:	SEG.ACK
 * @flags:	Header flags
 * @wnd:	Raw window field
 * @payload:	Payload start
 * @len:	Payload length, bytes
 */
struct tcp_seg {
	uint32_t seq;
	uint32_t ack;
	uint8_t flags;
	uint16_t wnd;
	const uint8_t *payload;
	size_t len;
};

/**
 * tcp_seg_get() - Read the header fields of a parsed TCP frame
 * @f:		Frame (frame_parse() checked the data offset)
 * @s:		Result
 */
static inline void tcp_seg_get(const struct frame *f, struct tcp_seg *s)
{
	s->seq = hdr_get32(f->l4, struct tcphdr, seq);
	s->ack = hdr_get32(f->l4, struct tcphdr, ack_seq);
	s->flags = hdr_get8(f->l4, struct tcphdr, th_flags);
	s->wnd = hdr_get16(f->l4, struct tcphdr, window);
	s->payload = f->payload;
	s->len = f->payload_len;
}

/* tcp.c */
enum tcp_reader_kind tcp_reader_of(int af);
void tcp_snd_wnd_set(struct tcp_conn *conn, uint32_t wnd);
int tcp_epoll_ctl(struct ctx *ctx, struct tcp_conn *conn, int op);
void tcp_conn_free(struct tcp_conn *conn, bool rst, const char *why);
void tcp_rcv_wnd_update(struct ctx *ctx, struct tcp_conn *conn);
void tcp_timer_arm(struct ctx *ctx, struct tcp_conn *conn);
void tcp_rst(struct ctx *ctx, struct tcp_conn *conn, const char *why);

/* tcp_buf.c */
void tcp_buf_init(void);
void tcp_wait_clear(struct tcp_conn *conn);
int tcp_send_flags_seq(struct ctx *ctx, struct tcp_conn *conn, uint8_t flags,
		       uint32_t seq);
int tcp_send_flags(struct ctx *ctx, struct tcp_conn *conn, uint8_t flags);
void tcp_rst_reply(struct ctx *ctx, const struct frame *f);
int tcp_data_from_sock(struct ctx *ctx, struct tcp_conn *conn);
int tcp_retransmit(struct ctx *ctx, struct tcp_conn *conn);

/* tcp_open.c */
void tcp_open_init(void);
bool tcp_syn_unreach(struct ctx *ctx, const struct tcp_conn *conn, int err);
bool tcp_syn_icmp_relay(struct ctx *ctx, const struct tcp_conn *conn);
void tcp_sock_recverr(int s, bool v4, bool on);
void tcp_conn_from_tap(struct ctx *ctx, const struct frame *f,
		       const struct tcp_seg *s);

#endif /* PASST_TCP_INTERNAL_H */
