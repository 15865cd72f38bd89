/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/udp_flow.h - State of a UDP flow (placeholder) */
#ifndef PASST_UDP_FLOW_H
#define PASST_UDP_FLOW_H

#include "flow.h"

/**
 * struct udp_flow - Datagrams between one guest tuple and a host socket
 * @f:		Flow header (type FLOW_UDP, guest-side key)
 * @sock:	Host socket, connected to the translated far end
 * @last_active: Last datagram either way, ms
 */
struct udp_flow {
	struct flow_common f;
	int sock;
	int64_t last_active;
};

#endif /* PASST_UDP_FLOW_H */
