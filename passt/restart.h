/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/restart.h - Hitless restart: hand the live state to a new process
 *
 * The hand-over stream (old process to new, over the old one's -c socket,
 * after the request "handover V\n", V the highest stream version the new
 * process reads): a 24-byte header, then records, then
 * the descriptors the records refer to, by index, in chunks of at most
 * RESTART_FDS_PER_MSG (SCM_RIGHTS, each chunk on a 4-byte message holding
 * its count).  All fields big-endian.
 *
 * Header, offsets in bytes:
 *     0  8  magic "PASTAHO\n"
 *     8  2  version (RESTART_VERSION)
 *    10  2  reserved, 0
 *    12  4  records: bytes that follow the header
 *    16  4  descriptors sent after the records
 *    20  4  record count
 *
 * Record: type (1 byte), reserved (1), payload length (2), payload.  A
 * payload longer than the type's known length is accepted (fields a newer
 * minor layout appends are skipped); a shorter one is refused.
 *
 * RESTART_REC_TAP, 49 bytes: 0 kind (RESTART_TAP_*), 1 vnet header (0/1),
 *   2 fd (4), 6 guest MAC (6), 12 MAC learned (0/1), 13 IPv4 seen (4),
 *   17 IPv6 seen (16), 33 IPv6 link-local seen (16)
 * RESTART_REC_NS, RESTART_REC_CTL: 0 fd (4)
 * RESTART_REC_LISTEN, 10 bytes: 0 proto, 1 table (enum fwd_tbl), 2 rule,
 *   3 bit 0: in the namespace, bit 1: "auto", 4 port (2), 6 fd (4)
 * RESTART_REC_TCP, 122 bytes, and RESTART_REC_SPLICE, 46 bytes: the fields
 *   of struct restart_tcp and struct restart_splice in their order, sizes
 *   as there (addresses 16 bytes, IPv4 as IPv4-mapped), restart_payload()
 * RESTART_REC_STREAM, 1 + n bytes: 0 direction (0: bytes passt read from
 *   QEMU's stream and not yet a whole frame, 1: bytes of frames not yet
 *   written to it), then the bytes; after the RESTART_REC_TAP record
 * RESTART_REC_VU, 412 bytes, after a RESTART_REC_TAP of kind
 *   RESTART_TAP_VHOST (whose descriptor is the front-end's socket): the
 *   vhost-user device, struct vu_snap (tap/vhost_user.h): 0 features (8),
 *   8 protocol features (8), 16 flags (bit 0 rx_full, 1 tso_off, 2
 *   uso_off, 3 had_buffers), 17 region count (0 to 8), 18 eight regions
 *   of 36 bytes (gpa, size, uva, file offset: 8 each; descriptor index:
 *   4; unused ones zero with RESTART_FD_NONE), 306 two queues of 53 bytes
 *   (size 4, descriptor table, available and used ring addresses, log
 *   address: 8 each, last available index 2, used index 2, flags 1: bit 0
 *   addresses set, 1 enabled, 2 started, 3 used ring logged; kick, call,
 *   error eventfd indices: 4 each, RESTART_FD_NONE for none)
 * RESTART_REC_UDP, 112 bytes, version 2 and later: a UDP flow, the fields
 *   of struct restart_udp in their order (addresses 16 bytes, IPv4 as
 *   IPv4-mapped; the peer as family (2), port (2), address (16), flow
 *   information (4) and scope (4)), restart_payload()
 *
 * Versions: 1 has no RESTART_REC_UDP; 2 adds it.  The old process writes
 * the lower of its version and the one the new process asked for, and a
 * new process reads both, so that either side may be the older build.
 */
#ifndef PASST_RESTART_H
#define PASST_RESTART_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../tap/vhost_user.h"

#define RESTART_MAGIC		"PASTAHO\n"
#define RESTART_VERSION		2
#define RESTART_VERSION_MIN	1		/* the oldest one we read */
#define RESTART_HDR_LEN		24
#define RESTART_REQ		"handover 2\n"	/* the new process's request */
#define RESTART_FDS_PER_MSG	250		/* SCM_MAX_FD is 253 */
#define RESTART_FD_NONE		0xffffffffU	/* no descriptor */
#define RESTART_TIMEOUT_S	10		/* each side waits at most */

enum restart_rec_type {
	RESTART_REC_TAP = 1,
	RESTART_REC_NS,
	RESTART_REC_CTL,
	RESTART_REC_LISTEN,
	RESTART_REC_TCP,
	RESTART_REC_SPLICE,
	RESTART_REC_STREAM,
	RESTART_REC_VU,
	RESTART_REC_UDP,	/* version 2 */
	RESTART_REC_COUNT
};

#define RESTART_TAP_LEN		49
#define RESTART_FD_LEN		4
#define RESTART_LISTEN_LEN	10
#define RESTART_TCP_LEN		122
#define RESTART_SPLICE_LEN	46
#define RESTART_STREAM_MIN	1	/* and up to RESTART_STREAM_CHUNK */
#define RESTART_STREAM_CHUNK	60000	/* bytes in one record */
#define RESTART_VU_LEN		412
#define RESTART_UDP_LEN		112

enum restart_tap_kind {
	RESTART_TAP_NONE = 0,	/* --splice-only */
	RESTART_TAP_DEV,	/* pasta's tap device */
	RESTART_TAP_STREAM,	/* passt's stream socket to QEMU */
	RESTART_TAP_VHOST,	/* passt's vhost-user socket (RESTART_REC_VU) */
};

/**
 * struct restart_tap - The guest side
 * @kind:	enum restart_tap_kind
 * @vnet:	Frames on the device carry a virtio-net header
 * @fd:		Descriptor index, RESTART_FD_NONE with RESTART_TAP_NONE
 * @mac:	Guest's MAC address
 * @mac_set:	@mac learned from the guest
 * @addr4:	Guest's IPv4 address last seen, network order
 * @addr6:	Guest's global IPv6 address last seen
 * @addr6_ll:	Guest's link-local IPv6 address last seen
 */
struct restart_tap {
	uint8_t kind;
	bool vnet;
	uint32_t fd;
	uint8_t mac[6];
	bool mac_set;
	struct in_addr addr4;
	struct in6_addr addr6;
	struct in6_addr addr6_ll;
};

/**
 * struct restart_listen - A forwarded-port listener
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @tbl:	Table (enum fwd_tbl)
 * @rule:	Rule index in that table
 * @ns:		The socket lives in the namespace (-T, -U)
 * @dyn:	Opened by "auto"
 * @port:	Port, host order
 * @fd:		Descriptor index
 */
struct restart_listen {
	uint8_t proto;
	uint8_t tbl;
	uint8_t rule;
	bool ns;
	bool dyn;
	uint16_t port;
	uint32_t fd;
};

/**
 * struct restart_tcp - A tap-side TCP connection (struct tcp_conn's state)
 * @gaddr:	Guest address, IPv6 or IPv4-mapped, network order
 * @faddr:	Address the guest sees for the peer
 * @gport:	Guest port, host order
 * @fport:	Peer port as the guest sees it, host order
 * @events:	enum tcp_ev bits
 * @flags:	enum tcp_fl bits (the loader keeps the lasting ones)
 * @reader:	enum tcp_reader_kind
 * @retrans:	Retransmissions without progress
 * @ws_from_tap: Guest's window shift, 0 to 14
 * @ws_to_tap:	Our window shift, 0 to 14
 * @mss_to_tap:	MSS towards the guest, bytes
 * @iss_to_tap:	Our ISS
 * @seq_ack_from_tap:	SND.UNA
 * @seq_to_tap:		SND.NXT
 * @seq_max_to_tap:	Highest sequence number sent + 1
 * @seq_fin_to_tap:	Sequence number of our FIN
 * @seq_recover_to_tap:	RFC 6582 "recover"
 * @wnd_from_tap:	SND.WND, bytes
 * @wnd_from_tap_max:	Largest SND.WND seen, bytes
 * @wnd_from_tap_last_unscaled: Raw window of the guest's last ACK
 * @seq_from_tap:	RCV.NXT
 * @seq_wnd_edge_to_tap: Right edge of the window we advertised
 * @wnd_to_tap:		RCV.WND, bytes
 * @rto_ms:	RTO, ms
 * @srtt_ms:	Smoothed RTT, ms
 * @rttvar_ms:	RTT variation, ms
 * @sock_sndbuf: Host socket's send buffer, bytes
 * @orphan_until_ms: With TFL_ORPHAN, CLOCK_MONOTONIC ms (same host clock)
 * @fd:		Descriptor index of the host socket
 */
struct restart_tcp {
	struct in6_addr gaddr;
	struct in6_addr faddr;
	uint16_t gport;
	uint16_t fport;
	uint16_t events;
	uint32_t flags;
	uint8_t reader;
	uint8_t retrans;
	uint8_t ws_from_tap;
	uint8_t ws_to_tap;
	uint16_t mss_to_tap;
	uint32_t iss_to_tap;
	uint32_t seq_ack_from_tap;
	uint32_t seq_to_tap;
	uint32_t seq_max_to_tap;
	uint32_t seq_fin_to_tap;
	uint32_t seq_recover_to_tap;
	uint32_t wnd_from_tap;
	uint32_t wnd_from_tap_max;
	uint16_t wnd_from_tap_last_unscaled;
	uint32_t seq_from_tap;
	uint32_t seq_wnd_edge_to_tap;
	uint32_t wnd_to_tap;
	uint32_t rto_ms;
	uint32_t srtt_ms;
	uint32_t rttvar_ms;
	uint32_t sock_sndbuf;
	int64_t orphan_until_ms;
	uint32_t fd;
};

/**
 * struct restart_splice - A spliced loopback connection
 * @events:	enum splice_ev bits
 * @flags:	enum splice_fl bits
 * @port:	Listening port it came in on, host order
 * @to_port:	Port we connected to, host order
 * @pipe_used:	Bytes in each pipe
 * @deadline_ms: While connecting, CLOCK_MONOTONIC ms
 * @fd:		Descriptor indices: s[0], s[1], pipe[0][0], pipe[0][1],
 *		pipe[1][0], pipe[1][1] (RESTART_FD_NONE: no pipe)
 */
struct restart_splice {
	uint8_t events;
	uint8_t flags;
	uint16_t port;
	uint16_t to_port;
	uint32_t pipe_used[2];
	int64_t deadline_ms;
	uint32_t fd[6];
};

/* struct restart_udp @flags bits */
#define RESTART_UDP_MCAST	(1U << 0)	/* to a group or broadcast */
#define RESTART_UDP_GRO		(1U << 1)	/* the socket has UDP_GRO */
#define RESTART_UDP_GSO_OFF	(1U << 2)	/* UDP_SEGMENT refused */

/**
 * struct restart_udp - A UDP flow (struct udp_flow)
 * @gaddr:	Guest-side key: guest address (IPv6 or IPv4-mapped)
 * @faddr:	Far-end address as the guest sees it
 * @gport:	Guest port, host order
 * @fport:	Far-end port, host order
 * @kind:	enum udp_kind (passt/udp_flow.h)
 * @flags:	RESTART_UDP_* bits
 * @seen:	Directions seen (UDP_SEEN_OPENER, UDP_SEEN_ANSWER)
 * @ttl:	IP_TTL or IPV6_UNICAST_HOPS set on the socket, 0 if never
 * @last_len:	Payload of the guest's last datagram, bytes
 * @mcast_port:	With RESTART_UDP_MCAST: port the socket is bound to
 * @last_active_ms: Last datagram either way, CLOCK_MONOTONIC ms (same
 *		host clock)
 * @local:	Address the peer sent to (IPv6 or IPv4-mapped)
 * @local_ifindex: Interface the peer's datagrams came in on
 * @peer_family: AF_INET, AF_INET6, or 0 for no peer recorded
 * @peer_port:	Peer's port, host order
 * @peer_addr:	Peer's address (AF_INET: IPv4-mapped)
 * @peer_flowinfo: AF_INET6: sin6_flowinfo, as the socket gave it
 * @peer_scope:	AF_INET6: sin6_scope_id
 * @listen_cookie: SO_COOKIE of the forwarded-port socket the peer sent
 *		to (handed over in a RESTART_REC_LISTEN record), 0 for none
 * @fd:		Descriptor index of the flow's own socket, RESTART_FD_NONE
 *		for none (UDP_TAP_IN)
 */
struct restart_udp {
	struct in6_addr gaddr;
	struct in6_addr faddr;
	uint16_t gport;
	uint16_t fport;
	uint8_t kind;
	uint8_t flags;
	uint8_t seen;
	uint8_t ttl;
	uint16_t last_len;
	uint16_t mcast_port;
	int64_t last_active_ms;
	struct in6_addr local;
	uint32_t local_ifindex;
	uint16_t peer_family;
	uint16_t peer_port;
	struct in6_addr peer_addr;
	uint32_t peer_flowinfo;
	uint32_t peer_scope;
	uint64_t listen_cookie;
	uint32_t fd;
};

/**
 * struct restart_bytes - Bytes of passt's stream to QEMU, in flight
 * @tx:		Towards QEMU (else from it)
 * @p:		The bytes, inside the stream buffer
 * @len:	Their count
 */
struct restart_bytes {
	bool tx;
	const uint8_t *p;
	size_t len;
};

/**
 * struct restart_rec - One decoded record
 * @type:	enum restart_rec_type
 * @u:		Its content, by @type (@u.vu: descriptor fields hold indices,
 *		-1 for RESTART_FD_NONE)
 */
struct restart_rec {
	uint8_t type;
	union {
		struct restart_tap tap;
		uint32_t fd;
		struct restart_listen listen;
		struct restart_tcp tcp;
		struct restart_splice splice;
		struct restart_udp udp;
		struct restart_bytes bytes;
		struct vu_snap vu;
	} u;
};

/**
 * struct restart_buf - A stream being written
 * @p:		Buffer
 * @size:	Its size, bytes
 * @len:	Bytes written (past @size: the stream didn't fit)
 * @nrec:	Records written
 * @nfd:	Descriptors referred to so far
 * @ver:	Stream version written, RESTART_VERSION_MIN to
 *		RESTART_VERSION (0: RESTART_VERSION): records of later
 *		versions are left out (restart_put())
 */
struct restart_buf {
	uint8_t *p;
	size_t size;
	size_t len;
	uint32_t nrec;
	uint32_t nfd;
	uint16_t ver;
};

/* Why a stream was refused (negative returns of restart_parse()) */
enum restart_err {
	RESTART_OK = 0,
	RESTART_E_SHORT,	/* truncated header or record */
	RESTART_E_MAGIC,	/* not a hand-over stream */
	RESTART_E_VERSION,	/* a version we don't read */
	RESTART_E_LEN,		/* lengths that don't add up */
	RESTART_E_TYPE,		/* unknown record type */
	RESTART_E_FD,		/* descriptor index out of range, or reused */
	RESTART_E_FIELD,	/* a field out of its range */
	RESTART_E_COUNT
};

extern const char *const restart_err_str[RESTART_E_COUNT];

struct ctx;

uint32_t restart_fd_add(struct restart_buf *b, int *fds, size_t max, int fd);
bool restart_buf_takes(const struct restart_buf *b, uint8_t type);
void restart_put(struct restart_buf *b, const struct restart_rec *r);
void restart_hdr_put(struct restart_buf *b, uint32_t nfds);
int restart_parse(const uint8_t *p, size_t len, uint32_t nfds,
		  int (*cb)(void *arg, const struct restart_rec *r),
		  void *arg);

bool restart_handover_req(const uint8_t *in, size_t len);
void restart_give(struct ctx *ctx, int s, const char *req, int ctl_fd);
void restart_take(struct ctx *ctx);
int restart_adopt(struct ctx *ctx);

#endif /* PASST_RESTART_H */
