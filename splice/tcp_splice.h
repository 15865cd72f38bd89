/* SPDX-License-Identifier: GPL-2.0-or-later */
/* splice/tcp_splice.h - State of a spliced loopback TCP connection
 *
 * Only splice/ (and its unit tests) include this header: the core reaches
 * the splice path through the flow type's operations (passt/flow.h).
 */
#ifndef SPLICE_TCP_SPLICE_H
#define SPLICE_TCP_SPLICE_H

#include <stdint.h>

#include "../passt/flow.h"

/* Side 0 is the accepted socket, side 1 the socket we connected.  Data of
 * direction d is read from s[d], goes through pipe[d] and is written to
 * s[!d].
 */

/* Events: what has happened on the connection, one bit each.  Only
 * splice_events_set() writes them (splice_event(), splice_event_clear()),
 * which checks the change (splice_events_allowed()) and logs it at debug
 * level.  Names are spelled out in full, so that grep finds every use.
 */
enum splice_ev {
	SEV_CONNECTING	= 1U << 0,	/* connect() of s[1] in progress */
	SEV_FIN_RCVD_0	= 1U << 1,	/* read EOF from s[0] */
	SEV_FIN_RCVD_1	= 1U << 2,	/* read EOF from s[1] */
	SEV_FIN_SENT_0	= 1U << 3,	/* direction 0 done: pipe drained, s[1]
					 * shut */
	SEV_FIN_SENT_1	= 1U << 4,	/* direction 1 done: pipe drained, s[0]
					 * shut */
};
#define SEV_COUNT		5

#define SEV_FIN_RCVD(d)		(SEV_FIN_RCVD_0 << (d))	/* direction d */
#define SEV_FIN_SENT(d)		(SEV_FIN_SENT_0 << (d))

/* Flags: conditions that come and go, written by splice_flags_set() only */
enum splice_fl {
	SFL_OUT_WAIT_0	= 1U << 0,	/* pipe[0] holds data, s[1] is full:
					 * EPOLLOUT */
	SFL_OUT_WAIT_1	= 1U << 1,	/* pipe[1] holds data, s[0] is full:
					 * EPOLLOUT */
	SFL_FROM_NS	= 1U << 2,	/* accepted in the namespace (-T), else
					 * on the host (-t); set at accept */
	SFL_IPV6	= 1U << 3,	/* the accepted socket is IPv6 (and the
					 * other one, unless SFL_V4_FALLBACK);
					 * set at accept */
	SFL_V4_FALLBACK	= 1U << 4,	/* -t: IPv6 refused in the namespace,
					 * s[1] is an IPv4 socket now */
};
#define SFL_COUNT		5

#define SFL_OUT_WAIT(d)		(SFL_OUT_WAIT_0 << (d))	/* direction d */

/* Bit of tcp_splice_conn.ep[]: the socket is registered with epoll */
#define SPLICE_EP_REG		0x80U

/**
 * struct tcp_splice_conn - Two loopback sockets joined by two pipes
 * @f:		Flow header (type FLOW_TCP_SPLICE, never hashed)
 * @s:		Sockets, non-blocking: [0] accepted, [1] connected by us
 * @pipe:	Pipes, non-blocking: pipe[d] carries direction d, [d][0]
 *		is its read end, [d][1] its write end
 * @pipe_used:	Bytes sitting in pipe[d], read from s[d] and not yet
 *		written to s[!d]
 * @events:	enum splice_ev bits, written by splice_events_set() only
 * @flags:	enum splice_fl bits, written by splice_flags_set() only
 * @ep:		epoll events registered for s[x] (EPOLLIN, EPOLLOUT), with
 *		SPLICE_EP_REG if s[x] is in the epoll set at all
 * @port:	Listening port the connection came in on, host order
 * @to_port:	Port we connected to, host order
 * @deadline_ms: While connecting: give up at this time, ms (CLOCK_MONOTONIC)
 */
struct tcp_splice_conn {
	struct flow_common f;
	int s[2];
	int pipe[2][2];
	uint32_t pipe_used[2];
	uint8_t events;
	uint8_t flags;
	uint8_t ep[2];
	uint16_t port;
	uint16_t to_port;
	int64_t deadline_ms;
};

/**
 * struct splice_stats - Counters of the splice path (--stats, SIGUSR1)
 */
struct splice_stats {
	uint64_t flows_opened, flows_closed, bytes;
	uint64_t resets;		/* spliced connections ended by RST */
	uint64_t connect_failed;	/* refused or timed-out connect() */
};

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
extern struct splice_stats splice_stats;
#endif

#endif /* SPLICE_TCP_SPLICE_H */
