/* SPDX-License-Identifier: GPL-2.0-or-later */
/* splice/tcp_splice.h - Loopback TCP forwarding with splice(2) (placeholder) */
#ifndef SPLICE_TCP_SPLICE_H
#define SPLICE_TCP_SPLICE_H

#include "../passt/flow.h"

/**
 * struct tcp_splice_conn - Two sockets joined by pipes
 * @f:		Flow header (type FLOW_TCP_SPLICE, not hashed)
 * @s:		Sockets: [0] accepted side, [1] connected side
 * @pipe:	Pipes: [0] carries s[0] -> s[1], [1] carries s[1] -> s[0]
 * @events:	Event bits
 */
struct tcp_splice_conn {
	struct flow_common f;
	int s[2];
	int pipe[2][2];
	uint32_t events;
};

#endif /* SPLICE_TCP_SPLICE_H */
