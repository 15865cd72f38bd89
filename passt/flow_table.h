/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/flow_table.h - The union of the flow types of the core
 *
 * An entry is as large as the largest of these.  A type implemented
 * outside passt/ (splice/tcp_splice.c) defines its own structure, which
 * starts with struct flow_common, checks at build time that it fits in
 * union flow, and reaches its entries by casting: the core doesn't include
 * any header of such a module.
 */
#ifndef PASST_FLOW_TABLE_H
#define PASST_FLOW_TABLE_H

#include "flow.h"
#include "tcp_conn.h"
#include "udp_flow.h"
#include "icmp_flow.h"

/**
 * union flow - One entry of the flow table
 * @f:		Common header: type first
 * @tcp:	FLOW_TCP
 * @udp:	FLOW_UDP
 * @ping:	FLOW_PING
 */
union flow {
	struct flow_common f;
	struct tcp_conn tcp;
	struct udp_flow udp;
	struct ping_flow ping;
};

#endif /* PASST_FLOW_TABLE_H */
