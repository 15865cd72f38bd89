/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/icmp_flow.h - State of an ICMP/ICMPv6 echo flow
 */
#ifndef PASST_ICMP_FLOW_H
#define PASST_ICMP_FLOW_H

#include "flow.h"

/**
 * struct ping_flow - Echo requests with one identifier to one destination
 * @f:		Flow header (type FLOW_PING; key: guest address, echo id as
 *		@f.key.gport, destination as the guest sees it, port 0)
 * @sock:	Ping socket (SOCK_DGRAM, IPPROTO_ICMP or IPPROTO_ICMPV6),
 *		connected to the translated destination
 * @last_active_ms: Last request or reply, ms
 * @last_len:	ICMP length of the guest's last echo request, bytes (for
 *		the IP header quoted in errors about it)
 * @ttl:	TTL or hop limit set on @sock (the guest's), 0 for the
 *		kernel's default
 */
struct ping_flow {
	struct flow_common f;
	int sock;
	int64_t last_active_ms;
	uint16_t last_len;
	uint8_t ttl;
};

#endif /* PASST_ICMP_FLOW_H */
