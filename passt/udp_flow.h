/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/udp_flow.h - State of a UDP flow (core modules only)
 */
#ifndef PASST_UDP_FLOW_H
#define PASST_UDP_FLOW_H

#include <netinet/in.h>
#include <stdbool.h>

#include "../lib/inany.h"
#include "flow.h"

/**
 * enum udp_kind - Which way a UDP flow was opened, and how it's carried
 * @UDP_TAP_OUT:	The guest sent first: a host socket of our own,
 *			connected to the translated destination
 * @UDP_TAP_IN:		A host peer sent to a -u port from a non-loopback
 *			address (or passt, or --no-splice): datagrams to the
 *			guest become frames, the guest's replies leave through
 *			the -u socket itself
 * @UDP_SPLICE_IN:	A host loopback peer sent to a -u port (pasta):
 *			carried to the namespace's loopback through a socket
 *			created in the namespace, no frames
 * @UDP_SPLICE_OUT:	Something in the namespace sent to a -U port:
 *			carried to the host's loopback through a host socket
 * @UDP_KIND_COUNT:	Number of kinds
 */
enum udp_kind {
	UDP_TAP_OUT = 0,
	UDP_TAP_IN,
	UDP_SPLICE_IN,
	UDP_SPLICE_OUT,
	UDP_KIND_COUNT
};

/* struct udp_flow @seen bits */
#define UDP_SEEN_OPENER		(1U << 0)
#define UDP_SEEN_ANSWER		(1U << 1)

/**
 * union udp_sockaddr - Peer address in the form its socket family uses
 * @sa:		Generic view
 * @sa4:	AF_INET socket
 * @sa6:	AF_INET6 socket (IPv4-mapped addresses on dual-stack sockets)
 */
union udp_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in sa4;
	struct sockaddr_in6 sa6;
};

/**
 * struct udp_flow - One UDP "connection": a 4-tuple on each side
 * @f:		Flow header, type FLOW_UDP.  Key: the guest-side tuple for
 *		UDP_TAP_*; for spliced flows proto UDP_KEY_SPLICE_HOST or
 *		UDP_KEY_SPLICE_NS with gaddr/gport the peer that sent to the
 *		forwarded port and faddr/fport the address and port it sent
 *		to (both on the listening side), so guest frames never match
 * @kind:	enum udp_kind
 * @sock:	Socket of our own: UDP_TAP_OUT and UDP_SPLICE_OUT a host
 *		socket, UDP_SPLICE_IN a namespace socket; connected to the
 *		far end.  -1 for UDP_TAP_IN
 * @listen_sock: UDP_TAP_IN, UDP_SPLICE_*: the forwarded-port socket the
 *		peer sent to (not ours to close); replies to the peer leave
 *		through it.  -1 for UDP_TAP_OUT
 * @peer_len:	Length of @peer, 0 if none
 * @peer:	UDP_TAP_IN, UDP_SPLICE_*: the peer as @listen_sock's family
 *		sees it (sockaddr_in6 with an IPv4-mapped address on a
 *		dual-stack socket), for sendmsg()
 * @local:	Address the peer sent to (IP_PKTINFO/IPV6_PKTINFO): the
 *		source of the replies
 * @local_ifindex: Interface the peer's datagrams came in on (IPv6)
 * @ttl:	UDP_TAP_OUT: IP_TTL or IPV6_UNICAST_HOPS of @sock: the guest's
 *		as set, or the kernel's default it started with
 *		(udp_ttl_probe()), 0 if unknown
 * @last_len:	Payload length of the last datagram from the guest, bytes
 *		(quoted in ICMP errors)
 * @last_active_ms: Last datagram either way, ms
 * @seen:	Directions datagrams went so far: UDP_SEEN_OPENER (from the
 *		side that opened the flow), UDP_SEEN_ANSWER (back to it)
 * @mcast:	UDP_TAP_OUT to a group or broadcast address: @sock is not
 *		connected, datagrams go to @peer (passt/udp_mcast.c)
 * @mcast_port:	With @mcast: port @sock is bound to, host order
 * @gro:	UDP_TAP_OUT, UDP_SPLICE_IN, UDP_SPLICE_OUT: @sock has UDP_GRO
 *		(udp_gro_set()): it may return super-datagrams, read into
 *		64 KiB
 * @bulk:	@sock has its UDP_FLOW_RCVBUF receive buffer and UDP_GRO, if
 *		any (spliced flows from the start, guest flows once they
 *		carry more than one exchange: udp_flow_bulk())
 * @gso_off:	The kernel refused UDP_SEGMENT for this flow (route MTU,
 *		segment count): guest super-frames, and spliced
 *		super-datagrams, are cut here
 */
struct udp_flow {
	struct flow_common f;
	uint8_t kind;
	int sock;
	int listen_sock;
	socklen_t peer_len;
	union udp_sockaddr peer;
	union inany local;
	unsigned local_ifindex;
	uint8_t ttl;
	uint16_t last_len;
	int64_t last_active_ms;
	uint8_t seen;
	bool mcast;
	uint16_t mcast_port;
	bool gro;
	bool bulk;
	bool gso_off;
};

#endif /* PASST_UDP_FLOW_H */
