/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/flow_table.h - The union of all flow types (core modules only)
 */
#ifndef PASST_FLOW_TABLE_H
#define PASST_FLOW_TABLE_H

#include "flow.h"
#include "tcp_conn.h"
#include "../splice/tcp_splice.h"
#include "udp_flow.h"
#include "icmp_flow.h"

/**
 * union flow - One entry of the flow table
 * @f:		Common header: type first
 * @tcp:	FLOW_TCP
 * @splice:	FLOW_TCP_SPLICE
 * @udp:	FLOW_UDP
 * @ping:	FLOW_PING
 */
union flow {
	struct flow_common f;
	struct tcp_conn tcp;
	struct tcp_splice_conn splice;
	struct udp_flow udp;
	struct ping_flow ping;
};

#endif /* PASST_FLOW_TABLE_H */
