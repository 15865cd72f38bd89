/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_migrate.h - TCP connections in the migration stream
 *
 * After the flow count of the device state stream (tap/devstate.h) come,
 * in upstream passt's version 2 layout (its tcp_conn.h, tcp.c, flow.c,
 * read for the facts), first one 112-byte flow record per connection,
 * then, in the same order, per connection one 52-byte extended record
 * followed by its send queue (sndq bytes) and receive queue (rcvq bytes).
 * Multi-byte fields are big-endian, except the four ports of the flow
 * record, which upstream copies from memory in host order (little-endian
 * on the machines it runs on; we write and read host order as it does).
 *
 * Flow record (struct tcp_tap_transfer upstream), offsets in bytes:
 *
 *     0  1  pif[0]: initiating side's interface (1 host, 2 tap)
 *     1  1  pif[1]: target side's interface
 *     2 36  side[0]: oaddr (16, IPv6 or IPv4-mapped), eaddr (16),
 *           oport (2), eport (2): "our" and the endpoint's address and port
 *    38 36  side[1]: the same for the target side
 *    74  1  retries          75  1  ws_from_tap     76  1  ws_to_tap
 *    77  1  events (upstream's bits, TCP_MIG_EV_*)
 *    78  4  tap_mss (bytes)   82  4  sndbuf (bytes >> 8)
 *    86  1  flags (upstream's bits, TCP_MIG_FL_*)
 *    87  1  seq_dup_ack_approx
 *    88  2  wnd_from_tap (unscaled)   90  2  wnd_to_tap (unscaled)
 *    92  4  seq_to_tap  96  4  seq_ack_from_tap  100  4  seq_from_tap
 *   104  4  seq_ack_to_tap   108  4  seq_init_from_tap
 *
 * Extended record (struct tcp_tap_transfer_ext upstream):
 *
 *     0 seq_snd   4 seq_rcv   8 sndq   12 notsent   16 rcvq   20 mss
 *    24 timestamp   28 snd_wl1   32 snd_wnd   36 max_window   40 rcv_wnd
 *    44 rcv_wup (all 4 bytes)   48 snd_ws   49 rcv_ws   50 tcpi_state
 *    51 tcpi_options (1 byte each).  tcpi_state 0: the source couldn't
 *    dump this connection, no queues follow, the destination drops it.
 */
#ifndef PASST_TCP_MIGRATE_H
#define PASST_TCP_MIGRATE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TCP_MIG_FLOW_LEN	112
#define TCP_MIG_EXT_LEN		52
#define TCP_MIG_QUEUE_MAX	(64U << 20)	/* upstream's limit, bytes */

/* Interfaces (upstream's enum pif_type) */
#define TCP_MIG_PIF_HOST	1
#define TCP_MIG_PIF_TAP		2

/* Upstream's event bits (tcp_conn.h there).  Bit 3 is TAP_SYN_ACK_SENT
 * before ESTABLISHED and SOCK_FIN_RCVD after it
 */
#define TCP_MIG_EV_SOCK_ACCEPTED	(1U << 0)
#define TCP_MIG_EV_TAP_SYN_RCVD		(1U << 1)
#define TCP_MIG_EV_ESTABLISHED		(1U << 2)
#define TCP_MIG_EV_SOCK_FIN_RCVD	(1U << 3)
#define TCP_MIG_EV_SOCK_FIN_SENT	(1U << 4)
#define TCP_MIG_EV_TAP_FIN_RCVD		(1U << 5)
#define TCP_MIG_EV_TAP_FIN_SENT		(1U << 6)
#define TCP_MIG_EV_TAP_FIN_ACKED	(1U << 7)

/* Upstream's flag bits that mean something to a destination */
#define TCP_MIG_FL_ACK_TO_TAP_DUE	(1U << 3)
#define TCP_MIG_FL_ACK_FROM_TAP_DUE	(1U << 4)

/* Linux TCP states (include/net/tcp_states.h), as in tcpi_state */
#define TCP_MIG_ST_ESTABLISHED	1
#define TCP_MIG_ST_FIN_WAIT1	4
#define TCP_MIG_ST_FIN_WAIT2	5
#define TCP_MIG_ST_CLOSE_WAIT	8
#define TCP_MIG_ST_LAST_ACK	9
#define TCP_MIG_ST_CLOSING	11

/* tcpi_options bits (include/uapi/linux/tcp.h) */
#define TCP_MIG_OPT_TIMESTAMPS	1
#define TCP_MIG_OPT_SACK	2
#define TCP_MIG_OPT_WSCALE	4

/**
 * struct tcp_mig_side - One side of a flow record
 * @oaddr:	Our address on this side (IPv4 as IPv4-mapped), network order
 * @eaddr:	The endpoint's address (guest, or host peer)
 * @oport:	Our port, host order
 * @eport:	The endpoint's port, host order
 */
struct tcp_mig_side {
	struct in6_addr oaddr;
	struct in6_addr eaddr;
	uint16_t oport;
	uint16_t eport;
};

/**
 * struct tcp_mig_flow - A flow record, decoded (host order)
 * @pif:		Interfaces of the initiating and target sides
 * @side:		Addresses and ports of those sides
 * @retries:		Retransmissions without progress
 * @ws_from_tap:	Guest's window shift (RFC 7323), 0 to 14
 * @ws_to_tap:		Our window shift, 0 to 14
 * @events:		TCP_MIG_EV_* bits
 * @tap_mss:		MSS towards the guest, bytes
 * @sndbuf:		Host socket send buffer, bytes >> 8
 * @flags:		Upstream's flag bits (TCP_MIG_FL_*)
 * @dup_ack:		seq_dup_ack_approx (low byte of a sequence number)
 * @wnd_from_tap:	Guest's window, unscaled (<< @ws_from_tap: bytes)
 * @wnd_to_tap:		Our window to the guest, unscaled (<< @ws_to_tap)
 * @seq_to_tap:		SND.NXT towards the guest
 * @seq_ack_from_tap:	SND.UNA: first byte the guest hasn't ACKed
 * @seq_from_tap:	RCV.NXT: next byte expected from the guest
 * @seq_ack_to_tap:	Last ACK number sent to the guest
 * @seq_init_from_tap:	Guest's initial sequence number
 */
struct tcp_mig_flow {
	uint8_t pif[2];
	struct tcp_mig_side side[2];
	uint8_t retries;
	uint8_t ws_from_tap;
	uint8_t ws_to_tap;
	uint8_t events;
	uint32_t tap_mss;
	uint32_t sndbuf;
	uint8_t flags;
	uint8_t dup_ack;
	uint16_t wnd_from_tap;
	uint16_t wnd_to_tap;
	uint32_t seq_to_tap;
	uint32_t seq_ack_from_tap;
	uint32_t seq_from_tap;
	uint32_t seq_ack_to_tap;
	uint32_t seq_init_from_tap;
};

/**
 * struct tcp_mig_ext - An extended record, decoded (host order): the
 *			host socket, as TCP_REPAIR dumps it
 * @seq_snd:	Sequence number of the first byte of the send queue, one
 *		more while our FIN is unacknowledged (upstream's value:
 *		passt/tcp_repair.c)
 * @seq_rcv:	Sequence number of the first byte of the receive queue, one
 *		more after the peer's FIN (passt/tcp_repair.c)
 * @sndq:	Bytes in the send queue (sent and not), without a FIN
 * @notsent:	Of those, bytes never sent (the tail of the queue)
 * @rcvq:	Bytes in the receive queue, without a FIN
 * @mss:	MSS clamp (TCP_MAXSEG), bytes
 * @timestamp:	TCP_TIMESTAMP value (RFC 7323), if TCP_MIG_OPT_TIMESTAMPS
 * @snd_wl1:	struct tcp_repair_window fields (include/uapi/linux/tcp.h)
 * @snd_wnd:	...
 * @max_window:	...
 * @rcv_wnd:	...
 * @rcv_wup:	...
 * @snd_ws:	Peer's window shift, 0 to 14
 * @rcv_ws:	Our window shift, 0 to 14
 * @tcpi_state:	Linux TCP state (TCP_MIG_ST_*), 0: skip this connection
 * @tcpi_options: TCP_MIG_OPT_* bits
 */
struct tcp_mig_ext {
	uint32_t seq_snd;
	uint32_t seq_rcv;
	uint32_t sndq;
	uint32_t notsent;
	uint32_t rcvq;
	uint32_t mss;
	uint32_t timestamp;
	uint32_t snd_wl1;
	uint32_t snd_wnd;
	uint32_t max_window;
	uint32_t rcv_wnd;
	uint32_t rcv_wup;
	uint8_t snd_ws;
	uint8_t rcv_ws;
	uint8_t tcpi_state;
	uint8_t tcpi_options;
};

/* Why a record was refused (negative returns of the decoders) */
enum tcp_mig_err {
	TCP_MIG_OK = 0,
	TCP_MIG_E_PIF,		/* not one tap side and one host side */
	TCP_MIG_E_ADDR,		/* families mixed, or unusable addresses */
	TCP_MIG_E_EVENTS,	/* not an established connection */
	TCP_MIG_E_WS,		/* window shift above 14 (RFC 7323 2.3) */
	TCP_MIG_E_MSS,		/* MSS 0 or above 65535 */
	TCP_MIG_E_STATE,	/* a TCP state no connection migrates in */
	TCP_MIG_E_QUEUE,	/* queue too long, or notsent > sndq */
	TCP_MIG_E_COUNT
};

extern const char *const tcp_mig_err_str[TCP_MIG_E_COUNT];

void tcp_mig_flow_encode(const struct tcp_mig_flow *f,
			 uint8_t buf[TCP_MIG_FLOW_LEN]);
int tcp_mig_flow_decode(const uint8_t buf[TCP_MIG_FLOW_LEN],
			struct tcp_mig_flow *f);
void tcp_mig_ext_encode(const struct tcp_mig_ext *e,
			uint8_t buf[TCP_MIG_EXT_LEN]);
int tcp_mig_ext_decode(const uint8_t buf[TCP_MIG_EXT_LEN],
		       struct tcp_mig_ext *e);
int tcp_mig_flow_tap_side(const struct tcp_mig_flow *f);

#endif /* PASST_TCP_MIGRATE_H */
