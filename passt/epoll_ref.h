/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/epoll_ref.h - What an epoll event refers to, in 64 bits
 *
 * Every fd registered with the main loop's epoll instance carries a
 * union epoll_ref as its data: the loop dispatches with one switch on the
 * type, and handlers find their flow by index with no lookup.
 */
#ifndef PASST_EPOLL_REF_H
#define PASST_EPOLL_REF_H

#include <stdint.h>

enum epoll_type {
	EPOLL_TYPE_NONE = 0,
	EPOLL_TYPE_TAP,		/* tap device or passt stream client */
	EPOLL_TYPE_TAP_LISTEN,	/* passt: listening UNIX socket */
	EPOLL_TYPE_TCP,		/* host socket of a tap-side TCP flow */
	EPOLL_TYPE_TCP_LISTEN,	/* forwarded-port listener (-t, -T) */
	EPOLL_TYPE_TCP_SPLICE,	/* one of the two sockets of a spliced flow */
	EPOLL_TYPE_UDP,		/* host socket of a UDP flow */
	EPOLL_TYPE_UDP_LISTEN,	/* forwarded-port UDP socket (-u, -U) */
	EPOLL_TYPE_PING,	/* ping socket of an ICMP echo flow */
	EPOLL_TYPE_SIGNAL,	/* signalfd */
	EPOLL_TYPE_NS_HELPER,	/* pasta: socket to the namespace helper */
	EPOLL_TYPE_CTL_LISTEN,	/* -c: listening configuration socket */
	EPOLL_TYPE_CTL,		/* -c: connection of a pesto(1) client */
	EPOLL_TYPE_NS_WATCH,	/* pasta: inotify on --netns, target's pidfd */
	EPOLL_TYPE_VHOST_CMD,	/* --vhost-user: the front-end's socket */
	EPOLL_TYPE_VHOST_KICK,	/* --vhost-user: kick eventfd, @data: queue */
	EPOLL_TYPE_VHOST_STATE,	/* --vhost-user: device state channel */
	EPOLL_TYPE_REPAIR_LISTEN, /* --vhost-user: passt-repair's socket */
	EPOLL_TYPE_REPAIR,	/* --vhost-user: passt-repair's connection */
	EPOLL_TYPE_FOLLOW_NL,	/* host's rtnetlink notifications (follow.c) */
	EPOLL_TYPE_FOLLOW_RESOLV, /* inotify on resolv.conf (follow.c) */
	EPOLL_TYPE_RESTART_WAIT, /* pasta: link to the waiter of the command
				  * after a hitless restart (restart_wait.c) */
	EPOLL_TYPE_COUNT
};

/**
 * union epoll_ref - epoll_event.data for our fds
 * @type:	enum epoll_type
 * @fd:		The fd itself (< 2^24)
 * @flow:	Flow table index (TCP, TCP_SPLICE, UDP, PING); for splice
 *		flows bit 31 tells which of the two sockets (FLOW_SIDE_BIT)
 * @listen:	For listeners: rule index, port, which side (@ns 0: host,
 *		1: namespace) the socket lives in, and @dyn for ports opened
 *		by "auto" (no rule: the target is the same port)
 * @u64:	Whole value, as stored in epoll_event.data.u64
 */
#define EPOLL_REF_FD_MAX	((1U << 24) - 1)	/* @fd: 24 bits */

union epoll_ref {
	struct {
		uint32_t type:8;
		uint32_t fd:24;
		union {
			uint32_t flow;
			struct {
				uint16_t port;
				uint8_t rule;
				uint8_t ns:1;
				uint8_t dyn:1;
			} listen;
			uint32_t data;
		};
	};
	uint64_t u64;
};

#define FLOW_SIDE_BIT	(1U << 31)

#endif /* PASST_EPOLL_REF_H */
