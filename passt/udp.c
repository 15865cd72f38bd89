// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/udp.c - UDP translation: guest datagrams <-> host datagram sockets
 *
 * DOC: Theory of Operation
 *
 * UDP has no connections, so a "flow" here is a 4-tuple that has seen a
 * datagram in the last --udp-timeout seconds (default 180, as the kernel's
 * nf_conntrack_udp_timeout_stream).  Each datagram stays one datagram:
 * boundaries are never merged or split, and anything that can't travel
 * whole is dropped and counted, as a router would.
 *
 * Guest to host (UDP_TAP_OUT).  The first datagram of a guest tuple opens a
 * host socket, binds it to the guest's source port if it can (with
 * SO_REUSEADDR, so one guest port talking to several peers keeps its number on
 * all of them; any port otherwise), and connects it to the destination
 * translated as for TCP (fwd_nat_to_host_port(): the --map-host-loopback
 * address means the host's loopback, ports 53 and 853 of --dns-forward mean
 * --dns-host, of either family).  A run of frames of that tuple goes out with
 * one sendmmsg() whose iovecs point into the received frames.  Replies are read
 * with recvmmsg() straight into frame slots of the tap transmit arena, so the
 * payload is copied once, by the kernel; the headers are written around it and
 * the frames leave with the next tap flush.  The guest's TTL or hop limit
 * is set on the socket (IP_TTL, IPV6_UNICAST_HOPS) when it changes.  The
 * socket has IP_RECVERR / IPV6_RECVERR: ICMP errors about the guest's
 * datagrams (destination unreachable, time exceeded) are read from its
 * error queue and sent to the guest as the same error, quoting the IP and
 * UDP headers of its datagram (RFC 792, RFC 4443 3.1, 3.3), from the router
 * that sent them (port unreachable: from the destination).
 *
 * Guest datagrams to a multicast group or a broadcast address get a flow
 * whose socket is not connected (@mcast, passt/udp_mcast.c): sent to the
 * group, answers taken from anyone.
 *
 * A UDP super-frame from the tap device (the namespace's socket used
 * UDP_SEGMENT: several datagrams of one size but a shorter last, the size
 * in the virtio_net_hdr) goes to the host socket in one sendmsg() with a
 * UDP_SEGMENT cmsg, so the kernel cuts it at the same boundaries; where the
 * kernel lacks UDP_SEGMENT, or refuses it for a flow (a segment beyond the
 * route's MTU: the flow falls back for good), its datagrams are sent one
 * message each (udp_send_flush()).
 *
 * Host to guest (-u).  fwd_listen() opens one socket per forwarded port,
 * with IP_PKTINFO/IPV6_RECVPKTINFO so we know which local address a peer
 * used.  Datagrams are read in batches of UDP_BATCH with recvmmsg() and
 * sorted by peer:
 *  - from a loopback address of the host, in pasta mode without
 *    --no-splice (UDP_SPLICE_IN): carried to the namespace's own address
 *    (its loopback with --host-lo-to-ns-lo) through a socket that lives
 *    in the namespace, bound to the peer's
 *    port if free and connected to the target port there.  No frame is
 *    built: consecutive datagrams of one flow leave with one sendmmsg(),
 *    and replies come back through the forwarded-port socket with
 *    sendmmsg(), source address set with IP_PKTINFO/IPV6_PKTINFO;
 *  - from anywhere else (UDP_TAP_IN): copied into frames from the peer's
 *    address as the guest sees it (fwd_nat_to_guest()) to the guest's
 *    address and the target port.  Consecutive datagrams of one flow in a
 *    batch, of one size but the last (which may be shorter), up to one IP
 *    packet's worth (udp_uso_joins(): 65,507 payload bytes for IPv4, so
 *    46 of 1,400), go in one UDP super-frame where the tap device takes
 *    them (tap_uso_offload(): VIRTIO_NET_HDR_GSO_UDP_L4, Linux 6.2; not
 *    with --no-udp-offload): the namespace's kernel cuts it at the same
 *    boundaries (gso_size), so the guest reads the same datagrams for
 *    one write instead of one write each.  The guest's replies leave through the
 *    forwarded-port socket, addressed to the peer, from the address the
 *    peer sent to; ICMP errors about them are read from that socket's
 *    error queue (udp_listen_errqueue()).  A datagram that was sent to a
 *    group or broadcast address reaches the guest to that address
 *    (udp_mcast_rx_dst()), on this path even from a loopback peer (a
 *    host program multicasting on lo): a splice would deliver it to the
 *    namespace's unicast address.
 * Namespace to host (-U, pasta).  The sockets of -U ports are opened in the
 * namespace at set-up (pasta_ns_call()); whatever arrives there is carried to
 * the same or mapped port on the host's loopback through a host socket
 * (UDP_SPLICE_OUT), bound to the peer's port if free, the same way.
 *
 * Sockets in the namespace (udp_pool.c).  Set-up opens UDP_POOL unbound
 * sockets of each family in the namespace; a new UDP_SPLICE_IN flow takes
 * one, and binds and connects it from here (bind() and connect() act in
 * the namespace the socket was created in); pasta_ns_call() fills the pool at
 * set-up only.  Once it is empty, a new flow takes a socket from the
 * namespace socket helper (passt/nsock.c, pool refilled from the timer),
 * never one per datagram.  The socket of a closed spliced flow is
 * disconnected and kept (up to UDP_POOL per family) for the case that the
 * helper has none (not running, or failing): new flows then reuse them,
 * with the port they are bound to, and only when none is left do loopback
 * peers take the tap path.  Frames and their size rules: udp_frame.c.
 *
 * Flow lookup.  Frames from the guest find their flow by guest-side tuple
 * in the flow hash table.  Datagrams on a forwarded-port socket build the
 * same key (UDP_TAP_IN), or a key with a private protocol number for
 * spliced flows (udp_internal.h), so no lookup crosses paths.  The host's
 * own address and its loopback both appear to the guest as one address, so
 * a loopback peer may build the tap key of another peer's flow: a flow
 * found that way is taken only if its recorded peer and local address are
 * this datagram's; a loopback peer then gets a spliced flow of its own
 * (else its replies would leave from the other peer's address), and on the
 * tap path alone the flow's peer becomes the latest sender.  Events on a
 * flow socket carry the flow index in the epoll reference.
 *
 * Sizes.  On the tap paths a datagram travels if it fits the MTU in one
 * frame: udp_payload_max(), MTU - 28 bytes for IPv4, MTU - 48 for IPv6.
 * Frames from the guest beyond the MTU, and host datagrams that would need
 * more (MSG_TRUNC), are dropped and counted (udp_too_big); IP fragments
 * from the guest never get here (tap/frame.c drops them).  On spliced paths
 * any datagram the kernel takes passes: 65,507 bytes for IPv4, 65,527 for
 * IPv6.
 *
 * Timers.  Every datagram stamps its flow (last_active).  The flow layer's
 * timer pass (udp_flow_timer()) closes idle flows and their sockets, and
 * asks for the next expiry; a later datagram opens a new flow.  Following
 * the host (passt/follow.c), a tap flow whose host-side address the host
 * lost is closed at once (udp_flow_host_changed()), for the same reason.
 *
 * Limits.  UDP flows share the flow table (--flow-max) with TCP: when it's
 * full, a new flow of any kind takes the place of the UDP flow idle the
 * longest (flow_alloc(), if idle for a second at least); else datagrams
 * of new flows are dropped (udp_refused_full) and existing flows carry on.  Like any NAT, we match replies by exact tuple: a guest
 * that answers a -u peer from another of its addresses starts a new flow
 * from a new host port.  When the guest doesn't read (tap queue full),
 * datagrams for it are read and dropped, so a socket never stays readable.
 *
 * Super-datagrams (passt/udp_gso.c).  Flow sockets of UDP_TAP_OUT flows
 * (from their second exchange on) and the host's forwarded-port sockets
 * have UDP_GRO where the kernel has it:
 * one read may return several datagrams of one sender, all of one size but
 * a shorter last one, the size in a cmsg.  On the tap paths they are taken
 * apart into the datagrams the sender wrote before anything else looks at
 * them: runs of one flow as above (one super-frame with the same cut, or
 * one frame each).  On spliced paths, where the flow sockets have UDP_GRO
 * too, a super-datagram goes on whole, in one message with UDP_SEGMENT at
 * the same size (udp_splice_queue()): the receiving kernel cuts it at the
 * same boundaries; without UDP_SEGMENT, or once the kernel refused it for
 * the flow, one message per datagram.  Their buffers hold 64 KiB, as a
 * super-datagram may.
 *
 * Memory: the flow table holds the flows; datagrams of forwarded ports and
 * spliced flows pass through UDP_BATCH static 64 KiB buffers (2 MiB), tap
 * flows through the tap transmit arena.  A super-frame to the guest from
 * a forwarded port has only its headers in the arena: its payload is
 * written from those buffers (udp_dgrams_ext()), which are flushed to the
 * guest before they are read into again (udp_buf_claim()).  Nothing is
 * allocated per packet.
 * Flow sockets ask for a UDP_FLOW_RCVBUF receive buffer (udp_sock_new());
 * a guest's flow, and its UDP_GRO, only once it carries more than one
 * exchange (udp_flow_bulk()): a DNS query from a new port each time costs
 * two setsockopt() calls less, and its TTL one more (udp_ttl_probe()).
 */
#include <errno.h>
#include <time.h>
#include <linux/errqueue.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/eth.h"
#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/visible.h"
#include "nsock.h"
#include "../tap/csum.h"
#include "../tap/guest.h"
#include "../tap/tap.h"
#include "epoll_ref.h"
#include "flow_table.h"
#include "fwd.h"
#include "icmp.h"
#include "limits.h"
#include "ctx.h"
#include "pasta.h"
#include "udp.h"
#include "udp_gso.h"
#include "udp_internal.h"
#include "udp_mcast.h"

#define UDP_BATCH		32	/* datagrams per recvmmsg()/sendmmsg() */
#define UDP_DGRAM_MAX		65535	/* buffer per datagram, spliced paths */
#define UDP_ROUNDS		8	/* batches per event before yielding */
#define UDP_FLOW_RCVBUF		(1 << 20)	/* bytes, SO_RCVBUF of flow sockets */
#define UDP_EXT_PIECE_MIN	8192	/* bytes per piece, udp_dgrams_ext() */

static const char *const udp_kind_str[UDP_KIND_COUNT] = {
	"guest->host", "host->guest", "spliced host->ns", "spliced ns->host",
};

static const union inany udp_any4 = {
	.v4 = { .one = { 0xff, 0xff }, .a4 = { .s_addr = 0 } } };
static const union inany udp_lo4 = {
	.a6 = { { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1 } } } };

/* Receive side of forwarded-port sockets and spliced flows */
static uint8_t udp_buf[UDP_BATCH][UDP_DGRAM_MAX] __attribute__((aligned(64)));
static struct mmsghdr udp_mh_recv[UDP_BATCH];
static struct iovec udp_iov_recv[UDP_BATCH];
static struct sockaddr_storage udp_name_recv[UDP_BATCH];
static uint8_t udp_cmsg_recv[UDP_BATCH][CMSG_SPACE(sizeof(struct in6_pktinfo)) +
					 CMSG_SPACE(sizeof(struct in_pktinfo)) +
					 CMSG_SPACE(sizeof(int))]
	__attribute__((aligned(8)));

/* Super-frames queued to the guest whose payload is still in udp_buf
 * (udp_dgrams_to_tap()): the next write to udp_buf flushes them first
 */
static bool udp_buf_queued;

/**
 * struct udp_tap_run - Datagrams of one flow gathered for one super-frame
 * @uf:		Flow of the run
 * @k:		Guest-side tuple its frames carry
 * @dg:		Payload of each datagram, in order (not yet in the arena)
 * @n:		Datagrams in the run, 0 to TAP_GSO_SEGS_MAX
 * @seg:	Length of the first, bytes
 * @last:	Length of the last, bytes
 * @bytes:	Payload bytes of the whole run
 */
struct udp_tap_run {
	const struct udp_flow *uf;
	struct flow_key k;
	struct iovec dg[TAP_GSO_SEGS_MAX];
	unsigned n;
	size_t seg, last, bytes;
};
static struct udp_tap_run udp_run;

/* Send side: one batch at a time, all to one socket */
static struct mmsghdr udp_mh_send[UDP_BATCH];
static struct iovec udp_iov_send[UDP_BATCH];
static uint8_t udp_cmsg_send[CMSG_SPACE(sizeof(struct in6_pktinfo))]
	__attribute__((aligned(8)));
/* Of each message: datagrams it carries, and its UDP_SEGMENT size (0: one
 * datagram); control data of super-datagrams: pktinfo, then UDP_SEGMENT
 */
static unsigned udp_send_nseg[UDP_BATCH];
static size_t udp_send_seg[UDP_BATCH];
static uint8_t udp_cmsg_gso[UDP_BATCH][CMSG_SPACE(sizeof(struct in6_pktinfo)) +
					UDP_GSO_CMSG_SPACE]
	__attribute__((aligned(8)));
/* A super-datagram cut into its datagrams (udp_send_split()) */
static struct mmsghdr udp_mh_split[UDP_GSO_SEGS_IN_MAX];
static struct iovec udp_iov_split[UDP_GSO_SEGS_IN_MAX];

static struct udp_stats udp_stats;

/* TTL and hop limit a new socket of ours uses if not told otherwise
 * (udp_ttl_probe()), 0 if unknown
 */
static uint8_t udp_ttl_default4, udp_ttl_default6;

/**
 * udp_kind_spliced() - Is a flow spliced (socket to socket, no frames)?
 * @uf:		Flow
 *
 * Return: true for UDP_SPLICE_IN and UDP_SPLICE_OUT
 */
static bool udp_kind_spliced(const struct udp_flow *uf)
{
	return uf->kind == UDP_SPLICE_IN || uf->kind == UDP_SPLICE_OUT;
}

/**
 * udp_expiry_want() - Make sure the timer pass runs by a flow's deadline
 * @ctx:	Context
 * @at:		Deadline, ms
 */
static void udp_expiry_want(struct ctx *ctx, int64_t at)
{
	timer_want(ctx, at);
}

/**
 * udp_flow_touch() - Stamp a flow's last datagram, either way
 * @uf:		Flow
 * @now:	Current time, ms (ctx->now)
 *
 * Also moves the flow to the most recently used end of the flow layer's
 * eviction list (flow_lru_touch()), so that a full table gives up the
 * flow idle the longest without walking the table.
 */
void udp_flow_touch(struct udp_flow *uf, int64_t now)
{
	uf->last_active_ms = now;
	flow_lru_touch((const union flow *)uf);
}

/**
 * udp_flow_new() - Allocate and hash a flow
 * @ctx:	Context
 * @kind:	enum udp_kind
 * @key:	Key (guest-side tuple, or a spliced flow's listening-side one)
 *
 * Return: flow with no sockets yet, or NULL (table full, or key taken)
 */
struct udp_flow *udp_flow_new(struct ctx *ctx, enum udp_kind kind,
				     const struct flow_key *key)
{
	union flow *flow = flow_alloc(ctx);
	struct udp_flow *uf;

	if (!flow) {
		udp_stats.refused_full++;
		limits_refused(ctx->now, LIMIT_FLOWS,
			       "UDP datagrams of a new flow, dropped");
		return NULL;
	}
	uf = &flow->udp;
	flow_activate(flow, FLOW_UDP);
	uf->f.key = *key;
	uf->kind = (uint8_t)kind;
	uf->sock = -1;
	uf->listen_sock = -1;
	udp_flow_touch(uf, ctx->now);
	if (flow_hash_add(flow) < 0) {
		flow_free(flow);
		return NULL;
	}
	udp_stats.flows_opened++;
	udp_expiry_want(ctx, ctx->now + (int64_t)ctx->c.udp_timeout_s * 1000);
	return uf;
}


/**
 * udp_flow_close() - Close a flow's own socket and free it
 * @ctx:	Context
 * @uf:		Flow
 * @why:	Reason, for the debug log
 *
 * The socket leaves our epoll set explicitly (EPOLL_CTL_DEL) before
 * close(): close() removes it only once no other descriptor refers to the
 * file (epoll(7), "Will closing a file descriptor cause it to be removed
 * from all epoll interest lists?"), and during a hitless restart another
 * process holds copies (passt/udp_restart.c); a stale registration would
 * report a dead socket's events under a descriptor number a new flow may
 * have by then.
 *
 * #syscalls epoll_ctl close
 */
void udp_flow_close(struct ctx *ctx, struct udp_flow *uf,
			   const char *why)
{
	flow_dbg(uf, "closing (%s)", why);
	if (uf->sock >= 0) {
		bool keep = false;

		epoll_ctl(ctx->epollfd, EPOLL_CTL_DEL, uf->sock, NULL);
		if (uf->kind == UDP_SPLICE_IN)
			keep = udp_pool_put_used(uf);
		if (!keep)
			close(uf->sock);
		uf->sock = -1;
	}
	flow_free((union flow *)uf);
}

/**
 * udp_flow_idle_since() - Eviction: a UDP flow's last datagram, either way
 * @flow:	Flow of type FLOW_UDP
 *
 * Any UDP flow may be evicted for a new flow (flow_alloc()), the least
 * recently used first: a program that opens a new socket for each DNS
 * query leaves one idle flow per query for the whole --udp-timeout.
 *
 * Return: time of its last datagram, ms
 */
static int64_t udp_flow_idle_since(const union flow *flow)
{
	return flow->udp.last_active_ms;
}

/**
 * udp_flow_evict() - Close a flow chosen for eviction (flow table full)
 * @ctx:	Context
 * @flow:	Flow of type FLOW_UDP
 */
static void udp_flow_evict(struct ctx *ctx, union flow *flow)
{
	bool answered = (flow->udp.seen & UDP_SEEN_ANSWER) &&
			(flow->udp.seen & UDP_SEEN_OPENER);

	if (answered)
		udp_stats.evicted_answered++;
	else
		udp_stats.evicted_unanswered++;
	udp_flow_close(ctx, &flow->udp, answered ?
		       "evicted: flow table full, exchange answered" :
		       "evicted: flow table full, least recently used");
}

/**
 * udp_flow_epoll_add() - Watch a flow's own socket
 * @ctx:	Context
 * @uf:		Flow, with @uf->sock open
 *
 * #syscalls epoll_ctl
 * Return: 0 or -errno
 */
int udp_flow_epoll_add(struct ctx *ctx, struct udp_flow *uf)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_UDP };
	struct epoll_event ev = { .events = EPOLLIN };

	ref.fd = (uint32_t)uf->sock & EPOLL_REF_FD_MAX;
	ref.flow = flow_idx((union flow *)uf);
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, uf->sock, &ev) < 0)
		return -errno;
	return 0;
}

/**
 * udp_sock_connect() - Bind a socket, keeping a port if possible, and connect
 * @s:		UDP socket of @dst's family, unbound unless @bound
 * @bound:	@s is bound already (a used pool socket): connect only, and
 *		drop what its queue held from an earlier peer
 * @baddr:	Local address to bind, NULL for the wildcard
 * @bport:	Local port to try first (SO_REUSEADDR), 0 for any
 * @dst:	Destination
 * @dport:	Destination port, host order
 *
 * #syscalls bind connect setsockopt recvfrom
 * Return: 0, or -errno from connect() or from bind() of a specific
 *	   address (a port that can't be had falls back to any port)
 */
static int udp_sock_connect(int s, bool bound, const union inany *baddr,
			    uint16_t bport, const union inany *dst,
			    uint16_t dport)
{
	struct sockaddr_storage sa;
	union inany any = { 0 };
	int one = 1, zero = 0;
	socklen_t sl;
	unsigned i;

	if (inany_v4(dst))
		any = udp_any4;
	if (!baddr)
		baddr = &any;

	if (bound) {
		sl = sockaddr_from_inany(&sa, dst, dport, 0);
		if (connect(s, (struct sockaddr *)&sa, sl) < 0)
			return -errno;
		/* Discard, without copying, what an earlier peer left */
		for (i = 0; i < UDP_POOL * UDP_BATCH; i++)
			if (recv(s, NULL, 0, MSG_DONTWAIT | MSG_TRUNC) < 0)
				break;
		return 0;
	}

	if (bport) {
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sl = sockaddr_from_inany(&sa, baddr, bport, 0);
		if (bind(s, (struct sockaddr *)&sa, sl) < 0) {
			setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &zero,
				   sizeof(zero));
			bport = 0;
		}
	}
	if (!bport && !inany_is_unspecified(baddr)) {
		sl = sockaddr_from_inany(&sa, baddr, 0, 0);
		if (bind(s, (struct sockaddr *)&sa, sl) < 0)
			return -errno;
	}

	sl = sockaddr_from_inany(&sa, dst, dport, 0);
	if (connect(s, (struct sockaddr *)&sa, sl) < 0)
		return -errno;
	return 0;
}

/**
 * udp_sock_new() - A non-blocking UDP socket in our namespace
 * @ctx:	Context (for rate-limited warnings)
 * @af:		AF_INET or AF_INET6 (IPv6-only)
 * @big:	Ask for the UDP_FLOW_RCVBUF receive buffer now (spliced
 *		flows); guest flows get it once they carry more than one
 *		exchange (udp_flow_bulk())
 *
 * The receive buffer, UDP_FLOW_RCVBUF (SO_RCVBUF, capped by the kernel
 * at net.core.rmem_max, doubled): the peer's answers queue there between
 * our reads, and the default (net.core.rmem_default, 208 KiB) holds three
 * datagrams of 64 KiB, so a burst of large answers (a bulk download over
 * a flow the guest opened) was dropped here while the guest's own socket
 * had room.  It is a limit, not memory set aside.
 *
 * #syscalls socket setsockopt
 * Return: fd, or -errno
 */
static int udp_sock_new(struct ctx *ctx, int af, bool big)
{
	int s = socket(af, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       IPPROTO_UDP), one = 1, rcvbuf = UDP_FLOW_RCVBUF;

	if (s < 0) {
		int ret = -errno;

		flow_refused_nofile();
		limits_refused(ctx->now, LIMIT_FDS, "UDP flow, socket()");
		return ret;
	}
	if (af == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (big)
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	return s;
}

/**
 * udp_flow_bulk() - Set a guest flow's socket up for more than one exchange
 * @uf:		UDP_TAP_OUT flow, not multicast, with its socket
 *
 * A new flow of the guest's is often a single exchange: a DNS query from
 * a new source port, one answer, and the flow is never used again (a
 * stub resolver makes thousands a second).  Its socket then needs no more
 * than the kernel's default receive buffer, and no UDP_GRO: each of those
 * two setsockopt() calls cost about 3 % of our CPU time per query (make
 * bench Q200, perf).  So both wait until the flow shows it carries more:
 * the guest's second datagram on it (udp_tap_send()), or a second read of
 * answers (udp_sock_to_tap()); before that, reads take one datagram per
 * slot, as without UDP_GRO.  Called once per flow (@uf->bulk).
 *
 * #syscalls setsockopt
 */
static void udp_flow_bulk(struct udp_flow *uf)
{
	int rcvbuf = UDP_FLOW_RCVBUF;

	uf->bulk = true;
	setsockopt(uf->sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	uf->gro = udp_gro_set(uf->sock);
}

/**
 * udp_pktinfo_set() - Control data choosing the source of replies to a peer
 * @uf:		Flow with @uf->local
 * @buf:	udp_cmsg_send-sized buffer to fill
 *
 * Return: control data length, 0 if the kernel may choose (no local
 *	   address known, or a multicast or broadcast one)
 */
static socklen_t udp_pktinfo_set(const struct udp_flow *uf, uint8_t *buf)
{
	const struct in_addr *l4 = inany_v4(&uf->local);
	struct cmsghdr *cm = (struct cmsghdr *)buf;

	memset(buf, 0, sizeof(udp_cmsg_send));
	if (inany_is_unspecified(&uf->local))
		return 0;
	if (l4) {
		struct in_pktinfo pi = { .ipi_spec_dst = *l4 };

		if (l4->s_addr == INADDR_BROADCAST ||
		    IN_MULTICAST(ntohl(l4->s_addr)))
			return 0;
		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		return CMSG_SPACE(sizeof(pi));
	} else {
		struct in6_pktinfo pi6 = { .ipi6_addr = uf->local.a6 };

		if (IN6_IS_ADDR_MULTICAST(&uf->local.a6))
			return 0;
		if (IN6_IS_ADDR_LINKLOCAL(&uf->local.a6))
			pi6.ipi6_ifindex = uf->local_ifindex;
		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi6));
		memcpy(CMSG_DATA(cm), &pi6, sizeof(pi6));
		return CMSG_SPACE(sizeof(pi6));
	}
}

/**
 * udp_icmp_unreach() - Tell the guest that its datagram met a closed port
 * @ctx:	Context
 * @uf:		UDP_TAP_OUT flow whose socket reported ECONNREFUSED
 */
static void udp_icmp_unreach(struct ctx *ctx, const struct udp_flow *uf)
{
	const struct conf *c = &ctx->c;
	bool v4 = inany_v4(&uf->f.key.gaddr);
	uint8_t *l2;

	if (uf->kind != UDP_TAP_OUT || !tap_connected())
		return;
	l2 = tap_tx_frame(udp_icmp_unreach_len(v4));
	if (!l2)
		return;
	udp_icmp_unreach_fill(l2, tap_guest_mac_dst(),
			      c->mac_our, &uf->f.key, uf->last_len);
	flow_dbg(uf, "port unreachable, ICMP%s to guest", v4 ? "" : "v6");
}

/**
 * udp_icmp_err_send() - Queue an ICMP or ICMPv6 error about a flow's
 *			 datagram to the guest
 * @c:		Configuration (our MAC)
 * @uf:		Flow: the error goes to its guest address and quotes its IP
 *		and UDP headers (udp_icmp_quote(), icmp_err_send())
 * @src:	Source of the error as the guest sees it (a router, or the
 *		peer itself)
 * @ee:		Extended error read from the host socket: type and code
 * @mtu:	MTU to put in the error (icmp_err_relayable()), else 0
 *
 * The caller checks tap_connected() first.
 *
 * Return: true if the frame was queued, false if the tap queue is full
 */
static bool udp_icmp_err_send(const struct conf *c, const struct udp_flow *uf,
			      const union inany *src,
			      const struct sock_extended_err *ee, uint32_t mtu)
{
	uint8_t q[UDP_QUOTE_MAX];
	size_t qlen = udp_icmp_quote(q, &uf->f.key, uf->last_len);

	return icmp_err_send(c, src, &uf->f.key.gaddr, ee->ee_type,
			     ee->ee_code, mtu, q, qlen);
}

/**
 * udp_sock_errqueue() - Relay ICMP errors queued on a flow's own socket
 * @ctx:	Context
 * @uf:		UDP_TAP_OUT flow, its socket with IP_RECVERR/IPV6_RECVERR
 *
 * Each error (ip(7), ipv6(7): struct sock_extended_err, the offender in
 * SO_EE_OFFENDER) about one of the guest's datagrams goes to the guest as
 * the same ICMP or ICMPv6 error, from the router that sent it (translated
 * like any host peer, fwd_nat_to_guest(); from the address the guest sent
 * to if it is the destination itself), quoting the flow's IP and UDP
 * headers: time exceeded (traceroute), destination unreachable of any
 * code, and fragmentation needed (RFC 1191) or packet too big (RFC 4443
 * 3.2) with the MTU the kernel read from it (ee_info), so that the guest's
 * socket sees EMSGSIZE and its route takes the path MTU (the host socket
 * has the default IP_PMTUDISC_WANT: the kernel sets DF and learns the MTU
 * too, ip(7)).  Errors of local origin (SO_EE_ORIGIN_LOCAL), parameter
 * problems and the rest are not relayed (icmp_err_relayable()).  Reading
 * the queue also clears the socket error (ECONNREFUSED and the like).
 *
 * Return: number of errors read
 */
static unsigned udp_sock_errqueue(struct ctx *ctx, const struct udp_flow *uf)
{
	const struct conf *c = &ctx->c;
	bool v4 = inany_v4(&uf->f.key.gaddr);
	const union inany *hdst;
	union inany dst;
	uint16_t hport;
	unsigned n;

	/* The destination itself answers as the guest addressed it (the
	 * gateway for the host's loopback, --dns-forward for the resolver),
	 * a router as any host peer (icmp_err_source())
	 */
	hdst = fwd_nat_to_host_port(c, &uf->f.key.faddr, uf->f.key.fport,
				    &dst, &hport) ? &dst : NULL;

	for (n = 0; n < UDP_BATCH; n++) {
		uint8_t cbuf[ICMP_ERRQUEUE_CBUF];
		const struct sock_extended_err *ee;
		struct msghdr mh = { .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		union inany src;
		uint32_t mtu;

		if (icmp_errqueue_recv(uf->sock, &mh, &ee) < 0)
			break;
		if (!ee || !icmp_err_relayable(ee, v4, &mtu))
			continue;
		if (!tap_connected())
			continue;

		if (!icmp_err_source(c, ee, v4, hdst, &uf->f.key.faddr, &src))
			continue;
		if (inany_is_unspecified(&src)) {	/* no gateway to show */
			udp_stats.no_source++;
			continue;
		}

		if (!udp_icmp_err_send(c, uf, &src, ee, mtu))
			break;
		flow_dbg(uf, "ICMP%s type %u code %u (MTU %u) relayed to the guest",
			v4 ? "" : "v6", ee->ee_type, ee->ee_code, mtu);
	}
	return n;
}

/**
 * udp_sendmmsg() - Send a prepared batch, retrying after reported errors
 * @ctx:	Context
 * @uf:		Flow the batch belongs to (for ICMP errors to the guest)
 * @s:		Socket to send on
 * @mh:		Messages
 * @n:		Number of messages
 *
 * A pending ICMP error (ECONNREFUSED) is reported by whichever call meets
 * it first and the datagram is not sent; we report it to the guest (tap
 * flows) and try again.  What the kernel doesn't take is dropped (UDP).
 *
 * #syscalls sendmmsg
 * Return: datagrams sent
 */
static unsigned udp_sendmmsg(struct ctx *ctx, const struct udp_flow *uf,
			     int s, struct mmsghdr *mh, unsigned n)
{
	unsigned off = 0;
	int tries;

	for (tries = 0; off < n && tries < 4; tries++) {
		int r = sendmmsg(s, mh + off, n - off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (r > 0) {
			off += (unsigned)r;
			continue;
		}
		if (r < 0 && errno == ECONNREFUSED) {
			udp_icmp_unreach(ctx, uf);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	return off;
}

/**
 * udp_msg_init() - Reset a message header to one buffer, nothing else set
 * @mh:		Message header
 * @iov:	Its only iovec entry
 * @base:	Buffer
 * @len:	Buffer size (receiving) or datagram length (sending), bytes
 */
static void udp_msg_init(struct msghdr *mh, struct iovec *iov, void *base,
			 size_t len)
{
	iov->iov_base = base;
	iov->iov_len = len;
	memset(mh, 0, sizeof(*mh));
	mh->msg_iov = iov;
	mh->msg_iovlen = 1;
}

/**
 * udp_recv_prepare() - Set up udp_mh_recv[] for one recvmmsg() batch
 * @base:	Buffer of the first datagram
 * @stride:	Distance from one datagram's buffer to the next, bytes
 * @len:	Size of each buffer, bytes
 * @n:		Entries to set up, at most UDP_BATCH
 *
 * No source address and no control data are asked for; callers that want
 * them fill those fields in afterwards.
 */
static void udp_recv_prepare(uint8_t *base, size_t stride, size_t len,
			     unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		udp_msg_init(&udp_mh_recv[i].msg_hdr, &udp_iov_recv[i],
			     base + i * stride, len);
}

/**
 * udp_buf_claim() - Make udp_buf free to be overwritten
 *
 * Frames to the guest may point into it (udp_dgrams_to_tap(): their
 * payload is written from there at the flush, not copied into the
 * arena): they go out now, before it changes.
 */
static void udp_buf_claim(void)
{
	if (!udp_buf_queued)
		return;
	tap_flush();
	udp_buf_queued = false;
}

/**
 * udp_recv_prepare_bufs() - Set up a full batch into udp_buf, for the
 *			     spliced paths and for dropping
 *
 * Frames still pointing into it are flushed first (udp_buf_claim()).
 */
static void udp_recv_prepare_bufs(void)
{
	udp_buf_claim();
	udp_recv_prepare((uint8_t *)udp_buf, UDP_DGRAM_MAX, UDP_DGRAM_MAX,
			 UDP_BATCH);
}

/**
 * udp_msg_to_peer() - Address a message to a flow's peer, and choose the
 *		       source the peer sent to
 * @mh:		Message header, set up by udp_msg_init()
 * @uf:		Flow with @uf->peer
 * @cl:		Length of the control data in udp_cmsg_send, 0 for none
 *		(from udp_pktinfo_set())
 */
static void udp_msg_to_peer(struct msghdr *mh, struct udp_flow *uf,
			    socklen_t cl)
{
	mh->msg_name = &uf->peer;
	mh->msg_namelen = uf->peer_len;
	if (cl) {
		mh->msg_control = udp_cmsg_send;
		mh->msg_controllen = cl;
	}
}

/**
 * udp_sock_drain() - Read and drop what a socket holds (no guest, no room)
 * @s:		Socket
 *
 * #syscalls recvmmsg
 */
static void udp_sock_drain(int s)
{
	int rounds;

	for (rounds = 0; rounds < UDP_ROUNDS; rounds++) {
		int r;

		udp_recv_prepare_bufs();
		r = recvmmsg(s, udp_mh_recv, UDP_BATCH, MSG_DONTWAIT, NULL);
		if (r < 0 && (errno == ECONNREFUSED || errno == EINTR))
			continue;
		if (r <= 0)
			return;
		tap_tx_drop_count((uint64_t)r);
		if (r < UDP_BATCH)
			return;
	}
}

static void udp_run_add(struct ctx *ctx, const struct udp_flow *uf,
			const struct flow_key *k, bool mc, uint8_t *data,
			size_t len);
static void udp_run_flush(struct ctx *ctx);
static void udp_send_flush(struct ctx *ctx, struct udp_flow *uf, int s,
			   unsigned *m, socklen_t cl);
static void udp_splice_queue(struct ctx *ctx, struct udp_flow *uf, int s,
			     unsigned *m, socklen_t cl, uint8_t *data,
			     size_t len, size_t seg);

/**
 * udp_sock_spill() - Cut super-datagrams of a receive batch in the arena
 *		      into frames, through udp_buf
 * @ctx:	Context
 * @uf:		UDP_TAP_OUT flow they were read for
 * @p:		Start of the batch in the arena (tap_tx_reserve())
 * @slot:	Distance between datagrams, bytes
 * @hlen:	Bytes of headers in front of each payload
 * @from:	First datagram of the batch not handled yet
 * @r:		Datagrams in the batch
 *
 * Datagram @from holds more than one datagram (UDP_GRO) and the tap takes
 * no super-frame of it: its frames, written at the arena's end, would
 * overwrite the rest of the batch, so the payloads from @from on are
 * copied to udp_buf first, then sent in runs (udp_run_add()): the
 * same datagrams, one frame each or in super-frames of fewer datagrams.
 */
static void udp_sock_spill(struct ctx *ctx, struct udp_flow *uf, uint8_t *p,
			   size_t slot, size_t hlen, unsigned from,
			   unsigned r)
{
	size_t len[UDP_BATCH], gro[UDP_BATCH];
	unsigned i, j, nseg;
	size_t off;

	udp_buf_claim();	/* the batch in the arena stays as it is */
	for (i = from; i < r; i++) {
		len[i] = udp_mh_recv[i].msg_len;
		gro[i] = udp_gro_size(&udp_mh_recv[i].msg_hdr);
		memcpy(udp_buf[i - from], p + i * slot + TAP_HEADROOM + hlen,
		       len[i]);
	}
	for (i = from; i < r; i++) {
		nseg = udp_gso_segs(len[i], gro[i]);
		if (nseg > 1)
			udp_stats.gro_dgrams += nseg;
		for (j = 0, off = 0; j < nseg; j++) {
			size_t l = MIN(len[i] - off, nseg > 1 ? gro[i] : len[i]);

			udp_run_add(ctx, uf, &uf->f.key, false,
				    udp_buf[i - from] + off, l);
			off += l;
		}
	}
	udp_run_flush(ctx);
}

/**
 * udp_sock_to_tap() - Datagrams on a tap flow's socket: frames to the guest
 * @ctx:	Context
 * @uf:		UDP_TAP_OUT flow
 *
 * Datagrams land in frame slots of the tap transmit arena, one slot per
 * datagram as large as the biggest payload the MTU allows, and are queued
 * for the next flush with the headers written around them.  With UDP_GRO
 * on the socket (@uf->gro) a slot takes 64 KiB, what a super-datagram may
 * hold: it goes to the guest as one UDP super-frame, in place, where the
 * tap takes it (tap_uso_offload(), at most TAP_GSO_SEGS_MAX datagrams);
 * else it is cut into its datagrams (udp_sock_spill()).
 *
 * #syscalls recvmmsg
 */
static void udp_sock_to_tap(struct ctx *ctx, struct udp_flow *uf)
{
	const struct conf *c = &ctx->c;
	bool v4 = inany_v4(&uf->f.key.gaddr), partial = tap_csum_offload();
	size_t l3 = v4 ? IP4_HLEN : IP6_HLEN, hlen = ETH_HLEN + l3 + UDP_HLEN;
	size_t pmax = udp_payload_max(c->mtu, v4), buf, slot;
	int rounds;

	/* Answers read before: more than one exchange */
	if (!uf->bulk && (uf->seen & UDP_SEEN_ANSWER))
		udp_flow_bulk(uf);
	buf = uf->gro ? MAX(pmax, (size_t)UDP_GRO_BUF) : pmax;
	slot = ROUND_UP(TAP_HEADROOM + hlen + buf, 8);

	for (rounds = 0; rounds < UDP_ROUNDS; rounds++) {
		unsigned n, i, got;
		struct tap_tx_room room;
		uint8_t *p;
		int r;

		if (!tap_connected() || !pmax) {
			udp_sock_drain(uf->sock);
			return;
		}
		tap_tx_reserve(slot, 1, &room);
		p = room.p;
		n = room.n;
		if (!n) {		/* the guest isn't reading: drop */
			udp_sock_drain(uf->sock);
			return;
		}
		n = MIN(n, UDP_BATCH);

		udp_recv_prepare(p + TAP_HEADROOM + hlen, slot, buf, n);
		for (i = 0; uf->gro && i < n; i++) {
			udp_mh_recv[i].msg_hdr.msg_control = udp_cmsg_recv[i];
			udp_mh_recv[i].msg_hdr.msg_controllen =
				sizeof(udp_cmsg_recv[i]);
		}
		r = recvmmsg(uf->sock, udp_mh_recv, n, MSG_DONTWAIT, NULL);
		if (r < 0) {
			/* An ICMP error: relay it from the error queue,
			 * port unreachable at least
			 */
			if (errno == ECONNREFUSED &&
			    (uf->kind != UDP_TAP_OUT ||
			     !udp_sock_errqueue(ctx, uf))) {
				udp_icmp_unreach(ctx, uf);
				continue;
			}
			if (errno == ECONNREFUSED || errno == EHOSTUNREACH ||
			    errno == ENETUNREACH || errno == EHOSTDOWN ||
			    errno == ENONET) {
				if (uf->kind == UDP_TAP_OUT)
					udp_sock_errqueue(ctx, uf);
				continue;
			}
			if (errno == EINTR)
				continue;
			return;
		}
		if (!r)
			return;

		for (i = 0, got = 0; i < (unsigned)r; i++) {
			struct msghdr *mh = &udp_mh_recv[i].msg_hdr;
			uint8_t *l2 = p + i * slot + TAP_HEADROOM;
			size_t len = udp_mh_recv[i].msg_len, gro = 0;
			unsigned nseg = 1;

			if (uf->gro) {
				gro = udp_gro_size(mh);
				nseg = udp_gso_segs(len, gro);
			}
			if (nseg > 1 && gro <= pmax &&
			    (!tap_uso_offload() || nseg > TAP_GSO_SEGS_MAX ||
			     hlen + len > FRAME_MAX)) {
				udp_sock_spill(ctx, uf, p, slot, hlen, i,
					       (unsigned)r);
				break;
			}
			if ((mh->msg_flags & MSG_TRUNC) ||
			    (nseg > 1 ? gro : len) > pmax) {
				udp_stats.too_big += nseg;
				continue;
			}
			len = udp_frame_fill(c, l2, &uf->f.key, len,
					     partial || nseg > 1);
			if (partial || nseg > 1)
				tap_tx_add(l2, len, ETH_HLEN + l3, UDP_CSUM_OFF);
			else
				tap_tx_add(l2, len, TAP_CSUM_DONE, 0);
			if (nseg > 1) {
				tap_tx_uso(gro);
				udp_stats.uso_frames++;
				udp_stats.gro_dgrams += nseg;
			}
			got += nseg;
		}
		udp_stats.dgrams_to_tap += got;
		udp_flow_touch(uf, ctx->now);
		uf->seen |= UDP_SEEN_ANSWER;
		if ((unsigned)r < n)
			return;
	}
}

/**
 * udp_dgram_to_tap() - Copy one datagram from a forwarded port into a frame
 * @ctx:	Context
 * @k:		Guest-side tuple of its tap flow (UDP_TAP_IN, or UDP_TAP_OUT
 *		with the same tuple), the destination possibly replaced by
 *		the group it was sent to (udp_mcast_rx_dst())
 * @data:	Payload
 * @len:	Payload length, bytes
 */
static void udp_dgram_to_tap(struct ctx *ctx, const struct flow_key *k,
			     const uint8_t *data, size_t len)
{
	bool v4 = inany_v4(&k->gaddr), partial = tap_csum_offload();
	size_t l3 = v4 ? IP4_HLEN : IP6_HLEN, hlen = ETH_HLEN + l3 + UDP_HLEN, flen;
	size_t need = TAP_HEADROOM + hlen + len;
	struct tap_tx_room room;
	uint8_t *l2;

	if (len > udp_payload_max(ctx->c.mtu, v4)) {
		udp_stats.too_big++;
		return;
	}
	if (!tap_connected())
		return;
	tap_tx_reserve(need, 1, &room);
	if (!room.n) {
		tap_tx_drop_count(1);
		return;
	}
	l2 = room.p + TAP_HEADROOM;
	memcpy(l2 + hlen, data, len);
	flen = udp_frame_fill(&ctx->c, l2, k, len, partial);
	if (partial)
		tap_tx_add(l2, flen, ETH_HLEN + l3, UDP_CSUM_OFF);
	else
		tap_tx_add(l2, flen, TAP_CSUM_DONE, 0);
	udp_stats.dgrams_to_tap++;
}

/**
 * udp_dgrams_ext() - Queue a UDP super-frame whose payload stays in udp_buf
 * @ctx:	Context
 * @k:		Guest-side tuple
 * @dg:		Payload of each datagram, in order
 * @n:		Number of datagrams, 2 to TAP_GSO_SEGS_MAX
 * @total:	Their payload bytes, within one frame (udp_uso_joins())
 *
 * Only the headers go into the transmit arena; the payload is written
 * from where recvmmsg() put it, in pieces (tap_tx_add_ext(): writev() to
 * the tap device), datagrams that lie one after the other (those of one
 * super-datagram) in one piece.  That saves copying every byte once more
 * here; udp_buf must then stay as it is until the flush
 * (udp_buf_claim()).  The checksum is left partial, as for any
 * super-frame.
 *
 * Return: true if queued, false if a datagram lies outside udp_buf, the
 *	   pieces are small (UDP_EXT_PIECE_MIN on average) or the transmit
 *	   queue has no room for them: copy it instead
 */
static bool udp_dgrams_ext(struct ctx *ctx, const struct flow_key *k,
			   const struct iovec *dg, unsigned n, size_t total)
{
	const uint8_t *lo = (const uint8_t *)udp_buf;
	const uint8_t *hi = lo + sizeof(udp_buf);
	bool v4 = inany_v4(&k->gaddr);
	size_t l3 = v4 ? IP4_HLEN : IP6_HLEN, hlen = ETH_HLEN + l3 + UDP_HLEN;
	struct iovec pay[TAP_GSO_SEGS_MAX];
	struct tap_tx_room room;
	unsigned i, np = 0;
	uint8_t *l2;

	for (i = 0; i < n; i++) {
		const uint8_t *b = dg[i].iov_base;

		if (b < lo || b + dg[i].iov_len > hi)
			return false;
		if (np && (uint8_t *)pay[np - 1].iov_base +
			  pay[np - 1].iov_len == b) {
			pay[np - 1].iov_len += dg[i].iov_len;
			continue;
		}
		pay[np].iov_base = dg[i].iov_base;
		pay[np++].iov_len = dg[i].iov_len;
	}
	/* Datagrams read one by one lie 64 KiB apart: one copy here costs
	 * less than the kernel's gathering of many small pieces (U2 of make
	 * bench: 0.88 of the copy's datagrams/s with 32 pieces of 1,400)
	 */
	if (total / np < UDP_EXT_PIECE_MIN)
		return false;
	if (!tap_tx_ext_room(np))
		tap_flush();
	tap_tx_reserve(ROUND_UP(TAP_HEADROOM + MAX(hlen, (size_t)ETH_ZLEN), 8),
		       1, &room);
	if (!room.n || !tap_tx_ext_room(np))
		return false;
	l2 = room.p + TAP_HEADROOM;
	udp_frame_fill(&ctx->c, l2, k, total, true);
	if (tap_tx_add_ext(l2, hlen, pay, np, ETH_HLEN + l3, UDP_CSUM_OFF))
		return false;
	udp_buf_queued = true;
	return true;
}

/**
 * udp_dgrams_to_tap() - Datagrams of one flow to the guest, in one UDP
 *			 super-frame if the tap takes them
 * @ctx:	Context
 * @k:		Guest-side tuple, as for udp_dgram_to_tap()
 * @dg:		Payload of each datagram, in the order they arrived
 * @n:		Number of datagrams, 1 to TAP_GSO_SEGS_MAX
 * @seg:	Payload length of each datagram but the last, which is not
 *		longer, bytes; all within udp_payload_max()
 *
 * With UDP segmentation offload to the namespace (tap_uso_offload()) and
 * more than one datagram, the payloads follow one set of headers, and the
 * namespace's stack cuts them apart again at @seg bytes
 * (VIRTIO_NET_HDR_GSO_UDP_L4): one write() to the tap for the run, the
 * same datagrams, boundaries and order the guest would have had frame by
 * frame.  The payloads stay where they were read (udp_dgrams_ext()), or
 * are copied behind the headers.  Otherwise one frame each
 * (udp_dgram_to_tap()).
 */
static void udp_dgrams_to_tap(struct ctx *ctx, const struct flow_key *k,
			      const struct iovec *dg, unsigned n, size_t seg)
{
	bool v4 = inany_v4(&k->gaddr);
	size_t l3 = v4 ? IP4_HLEN : IP6_HLEN, hlen = ETH_HLEN + l3 + UDP_HLEN;
	size_t total = 0, need, flen, off;
	struct tap_tx_room room;
	uint8_t *l2;
	unsigned i;

	for (i = 0; i < n; i++)
		total += dg[i].iov_len;
	need = TAP_HEADROOM + hlen + total;
	if (n < 2 || !tap_uso_offload() || !tap_connected() ||
	    hlen + total > FRAME_MAX) {
		for (i = 0; i < n; i++)
			udp_dgram_to_tap(ctx, k, dg[i].iov_base,
					 dg[i].iov_len);
		return;
	}
	if (udp_dgrams_ext(ctx, k, dg, n, total)) {
		tap_tx_uso(seg);
		udp_stats.dgrams_to_tap += n;
		udp_stats.uso_frames++;
		return;
	}
	tap_tx_reserve(need, 1, &room);
	if (!room.n) {
		tap_tx_drop_count(n);
		return;
	}
	l2 = room.p + TAP_HEADROOM;
	for (i = 0, off = hlen; i < n; i++) {
		memcpy(l2 + off, dg[i].iov_base, dg[i].iov_len);
		off += dg[i].iov_len;
	}
	flen = udp_frame_fill(&ctx->c, l2, k, total, true);
	tap_tx_add(l2, flen, ETH_HLEN + l3, UDP_CSUM_OFF);
	tap_tx_uso(seg);
	udp_stats.dgrams_to_tap += n;
	udp_stats.uso_frames++;
}

/**
 * udp_run_flush() - Send the datagrams gathered in udp_run, if any
 * @ctx:	Context
 */
static void udp_run_flush(struct ctx *ctx)
{
	if (udp_run.n)
		udp_dgrams_to_tap(ctx, &udp_run.k, udp_run.dg, udp_run.n,
				  udp_run.seg);
	udp_run.n = 0;
}

/**
 * udp_run_add() - One datagram for the guest: gathered into the current
 *		   run (udp_run) if it may join it, else after sending it
 * @ctx:	Context
 * @uf:		Its flow, of a tap kind
 * @k:		Guest-side tuple of its frame (a group as destination if
 *		@mc)
 * @mc:		It was sent to a group or broadcast address: a frame of its
 *		own
 * @data:	Payload, which stays unchanged until udp_run_flush()
 * @len:	Payload length, bytes
 *
 * A datagram of another flow, of another size, after a shorter one,
 * beyond TAP_GSO_SEGS_MAX or beyond the bytes one frame holds sends the
 * run first (udp_uso_joins()).  One
 * that can't go in a super-frame (empty, to a group, beyond the MTU: then
 * dropped and counted there) goes alone, at once.
 */
static void udp_run_add(struct ctx *ctx, const struct udp_flow *uf,
			const struct flow_key *k, bool mc, uint8_t *data,
			size_t len)
{
	bool v4 = inany_v4(&k->gaddr);

	if (udp_run.n &&
	    !udp_uso_joins(udp_run.uf == uf && !mc, udp_run.n, udp_run.seg,
			   udp_run.last, udp_run.bytes, len, v4))
		udp_run_flush(ctx);
	if (mc || !len || len > udp_payload_max(ctx->c.mtu, v4)) {
		udp_dgram_to_tap(ctx, k, data, len);
		return;
	}
	if (!udp_run.n) {
		udp_run.uf = uf;
		udp_run.k = *k;
		udp_run.seg = len;
		udp_run.bytes = 0;
	}
	udp_run.dg[udp_run.n].iov_base = data;
	udp_run.dg[udp_run.n].iov_len = len;
	udp_run.n++;
	udp_run.last = len;
	udp_run.bytes += len;
}

/**
 * udp_splice_back() - Datagrams on a spliced flow's socket: back to the peer
 * @ctx:	Context
 * @uf:		UDP_SPLICE_IN or UDP_SPLICE_OUT flow
 *
 * The far end answered: send its datagrams to the peer through the
 * forwarded-port socket, from the address the peer sent to.  With UDP_GRO
 * on the flow's socket (@uf->gro), a super-datagram leaves as it came,
 * in one message with UDP_SEGMENT (udp_splice_queue()).
 *
 * #syscalls recvmmsg sendmmsg
 */
static void udp_splice_back(struct ctx *ctx, struct udp_flow *uf)
{
	socklen_t cl = udp_pktinfo_set(uf, udp_cmsg_send);
	int rounds;

	for (rounds = 0; rounds < UDP_ROUNDS; rounds++) {
		unsigned i, m = 0;
		int r;

		udp_recv_prepare_bufs();
		for (i = 0; uf->gro && i < UDP_BATCH; i++) {
			udp_mh_recv[i].msg_hdr.msg_control = udp_cmsg_recv[i];
			udp_mh_recv[i].msg_hdr.msg_controllen =
				sizeof(udp_cmsg_recv[i]);
		}
		r = recvmmsg(uf->sock, udp_mh_recv, UDP_BATCH, MSG_DONTWAIT,
			     NULL);
		if (r < 0 && (errno == ECONNREFUSED || errno == EINTR))
			continue;	/* nobody listens there (yet) */
		if (r <= 0)
			return;

		for (i = 0; i < (unsigned)r; i++) {
			size_t gro = uf->gro ?
				     udp_gro_size(&udp_mh_recv[i].msg_hdr) : 0;

			udp_splice_queue(ctx, uf, uf->listen_sock, &m, cl,
					 udp_buf[i], udp_mh_recv[i].msg_len,
					 gro);
		}
		if (m)
			udp_send_flush(ctx, uf, uf->listen_sock, &m, cl);
		udp_flow_touch(uf, ctx->now);
		uf->seen |= UDP_SEEN_ANSWER;
		if (r < UDP_BATCH)
			return;
	}
}

/**
 * udp_flow_from_tap() - Open a flow for a guest datagram with a new tuple
 * @ctx:	Context
 * @f:		First frame of the tuple
 * @key:	Its guest-side key
 *
 * A destination the host has no route to, or that a route of type prohibit
 * forbids (connect() fails: ENETUNREACH, EHOSTUNREACH, EACCES), is
 * answered with the destination unreachable a router would send
 * (icmp_unreach_to_guest(), as for a TCP SYN) and the datagram is dropped.
 *
 * Return: flow, or NULL if the destination can't or mustn't be reached
 */
static struct udp_flow *udp_flow_from_tap(struct ctx *ctx,
					  const struct frame *f,
					  const struct flow_key *key)
{
	const struct conf *c = &ctx->c;
	const union inany *baddr = NULL;
	const char *ifname = "";
	union inany host, bind_to;
	struct udp_flow *uf;
	uint16_t hport;
	int af, s, ret;

	ret = udp_mcast_classify(c, f);
	if (ret < 0)
		return NULL;
	if (ret > 0) {		/* a group or broadcast: passt/udp_mcast.c */
		uint16_t bound;

		s = udp_mcast_sock(ctx, &f->dst, f->sport, &bound);
		if (s < 0)
			return NULL;
		uf = udp_flow_new(ctx, UDP_TAP_OUT, key);
		if (!uf) {
			close(s);
			return NULL;
		}
		uf->sock = s;
		uf->mcast = true;
		uf->mcast_port = bound;
		{
			struct sockaddr_storage sa;
			socklen_t sl = sockaddr_from_inany(&sa, &f->dst,
							   f->dport, 0);

			uf->peer_len = MIN(sl, (socklen_t)sizeof(uf->peer));
			memcpy(&uf->peer, &sa, uf->peer_len);
		}
		if (udp_flow_epoll_add(ctx, uf) < 0) {
			udp_flow_close(ctx, uf, "epoll_ctl() failed");
			return NULL;
		}
		flow_dbg(uf, "new flow to a group or broadcast, from port %u",
			bound);
		return uf;
	}
	if (!fwd_nat_to_host_port(c, &f->dst, f->dport, &host, &hport))
		return NULL;

	af = inany_af(&host);
	if (fwd_outbound(c, &host, &bind_to, &ifname))
		baddr = &bind_to;

	s = udp_sock_new(ctx, af, false);
	if (s < 0)
		return NULL;
	{
		int one = 1;	/* ICMP errors for the guest: ip(7), ipv6(7) */

		if (af == AF_INET)
			setsockopt(s, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
		else
			setsockopt(s, IPPROTO_IPV6, IPV6_RECVERR, &one,
				   sizeof(one));
	}
	ret = fwd_sock_outbound(c, s, &host, false);
	if (ret < 0)
		debug("UDP SO_BINDTODEVICE %s: %s", ifname, strerror(-ret));
	ret = udp_sock_connect(s, false, baddr, f->sport, &host, hport);
	if (ret < 0) {
		debug("UDP connect() for a guest datagram: %s", strerror(-ret));
		/* No route, or a prohibit route: what a router would say */
		icmp_unreach_to_guest(ctx, key, -ret, f->l3,
				      f->l3_hlen + f->l4_len);
		close(s);
		return NULL;
	}

	uf = udp_flow_new(ctx, UDP_TAP_OUT, key);
	if (!uf) {
		close(s);
		return NULL;
	}
	uf->sock = s;
	/* The socket's TTL or hop limit as the kernel sets it by default,
	 * so that the guest's usual one needs no setsockopt()
	 */
	uf->ttl = af == AF_INET ? udp_ttl_default4 : udp_ttl_default6;
	if (udp_flow_epoll_add(ctx, uf) < 0) {
		udp_flow_close(ctx, uf, "epoll_ctl() failed");
		return NULL;
	}
	flow_dbg(uf, "new flow, to port %u", hport);
	return uf;
}

/**
 * udp_send_split() - Send a super-datagram of udp_mh_send[] as the
 *		      datagrams it holds, one message each
 * @ctx:	Context
 * @uf:		Flow
 * @s:		Socket
 * @i:		Index of the message in udp_mh_send[] (one iovec, its
 *		segment size in udp_send_seg[@i])
 * @cl:		Length of the IP_PKTINFO/IPV6_PKTINFO control data in
 *		udp_cmsg_send to send them with, 0 for none
 *
 * Return: datagrams sent
 */
static unsigned udp_send_split(struct ctx *ctx, const struct udp_flow *uf,
			       int s, unsigned i, socklen_t cl)
{
	const struct msghdr *om = &udp_mh_send[i].msg_hdr;
	size_t len = om->msg_iov[0].iov_len, seg = udp_send_seg[i], off;
	uint8_t *base = om->msg_iov[0].iov_base;
	unsigned j, k = 0, sent = 0;

	for (off = 0; off < len; off += seg) {
		struct msghdr *mh = &udp_mh_split[k].msg_hdr;

		udp_msg_init(mh, &udp_iov_split[k], base + off,
			     MIN(seg, len - off));
		mh->msg_name = om->msg_name;
		mh->msg_namelen = om->msg_namelen;
		if (cl) {
			mh->msg_control = udp_cmsg_send;
			mh->msg_controllen = cl;
		}
		k++;
	}
	for (j = 0; j < k; j += UDP_BATCH)
		sent += udp_sendmmsg(ctx, uf, s, udp_mh_split + j,
				     MIN(k - j, (unsigned)UDP_BATCH));
	return sent;
}

/**
 * udp_send_flush() - Send the messages prepared in udp_mh_send[]
 * @ctx:	Context
 * @uf:		Flow they belong to
 * @s:		Socket
 * @m:		Number of messages, set to 0 on return
 * @cl:		Length of the pktinfo control data in udp_cmsg_send, 0 if
 *		none (udp_send_split())
 *
 * A super-datagram the kernel won't segment (UDP_SEGMENT: a segment beyond
 * the route's MTU, EINVAL before Linux 6.x and EMSGSIZE since, seen on
 * 6.18; more than its UDP_MAX_SEGMENTS, EINVAL; EIO without checksum
 * offload on the route; udp(7), net/ipv4/udp.c) is sent as its datagrams
 * instead, and the flow sends them that way from then on (@uf->gso_off).
 * Anything else the kernel doesn't take is dropped (UDP).
 */
static void udp_send_flush(struct ctx *ctx, struct udp_flow *uf, int s,
			   unsigned *m, socklen_t cl)
{
	bool spliced = udp_kind_spliced(uf);
	unsigned off = 0, k, i, sent;

	while (off < *m) {
		k = udp_sendmmsg(ctx, uf, s, udp_mh_send + off, *m - off);
		for (i = off; i < off + k; i++) {
			if (!spliced)
				udp_stats.dgrams_from_tap += udp_send_nseg[i];
			else if (udp_send_nseg[i] > 1)
				udp_stats.gso_splice++;
		}
		off += k;
		if (off >= *m)
			break;
		if (!udp_send_seg[off] ||
		    (errno != EINVAL && errno != EMSGSIZE && errno != EIO))
			break;
		if (!uf->gso_off)
			flow_dbg(uf, "UDP_SEGMENT refused (%s): datagrams one by one",
				strerror(errno));
		uf->gso_off = true;
		sent = udp_send_split(ctx, uf, s, off, cl);
		if (spliced) {
			udp_stats.gso_splice_cut++;
		} else {
			udp_stats.gso_fallback++;
			udp_stats.dgrams_from_tap += sent;
		}
		off++;
	}
	*m = 0;
}

/**
 * udp_splice_queue() - Queue what one end of a spliced flow sent, for the
 *			other end
 * @ctx:	Context
 * @uf:		UDP_SPLICE_IN or UDP_SPLICE_OUT flow
 * @s:		Socket to send on: the flow's own (connected) towards the
 *		target, the forwarded-port socket back to the peer
 * @m:		Messages queued in udp_mh_send[], updated
 * @cl:		Back to the peer: length of the pktinfo control data in
 *		udp_cmsg_send (udp_pktinfo_set()), the message then goes to
 *		@uf->peer; 0 towards the target (no address, no pktinfo)
 * @data:	Datagram, or super-datagram read from a UDP_GRO socket
 * @len:	Its length, bytes
 * @seg:	Its segment size (udp_gro_size()), bytes, 0 for one datagram
 *
 * A super-datagram (several datagrams of @seg bytes, the last one
 * shorter or as long: udp_gso.c) goes out as it came, in one message with
 * a UDP_SEGMENT cmsg (udp(7)): the kernel cuts it at the same boundaries,
 * or hands it whole to a UDP_GRO reader, so the application on the other
 * end reads the datagrams its peer wrote, for one send instead of one
 * each.  Where UDP_SEGMENT is off (probe, --no-udp-offload) or the kernel
 * refused it for this flow (@uf->gso_off, udp_send_flush()), its
 * datagrams are sent one message each, after what is queued.  A full
 * queue is sent first.
 */
static void udp_splice_queue(struct ctx *ctx, struct udp_flow *uf, int s,
			     unsigned *m, socklen_t cl, uint8_t *data,
			     size_t len, size_t seg)
{
	unsigned nseg = udp_gso_segs(len, seg);
	struct msghdr *mh;

	if (*m == UDP_BATCH)
		udp_send_flush(ctx, uf, s, m, cl);
	mh = &udp_mh_send[*m].msg_hdr;
	udp_msg_init(mh, &udp_iov_send[*m], data, len);
	if (cl)
		udp_msg_to_peer(mh, uf, cl);
	udp_send_nseg[*m] = nseg;
	udp_send_seg[*m] = nseg > 1 ? seg : 0;
	if (nseg > 1 && udp_seg_enabled() && !uf->gso_off &&
	    seg <= UINT16_MAX && nseg <= UDP_GSO_SEGS_IN_MAX) {
		/* pktinfo, if any, then UDP_SEGMENT */
		if (cl)
			memcpy(udp_cmsg_gso[*m], udp_cmsg_send, cl);
		mh->msg_control = udp_cmsg_gso[*m];
		mh->msg_controllen = udp_gso_cmsg(udp_cmsg_gso[*m], cl,
						  (uint16_t)seg);
	} else if (nseg > 1) {
		unsigned cur = *m;

		udp_send_flush(ctx, uf, s, m, cl);
		udp_send_split(ctx, uf, s, cur, cl);
		udp_stats.gso_splice_cut++;
		return;
	}
	(*m)++;
}

/**
 * udp_tap_send() - Send a run of guest datagrams of one flow to the host
 * @ctx:	Context
 * @uf:		Flow (UDP_TAP_OUT: own socket; UDP_TAP_IN: the forwarded
 *		port's socket, to the peer)
 * @f:		Frames
 * @n:		Number of frames
 *
 * A UDP super-frame (@f->gso_size, from the tap device) goes out in one
 * message with a UDP_SEGMENT cmsg (udp(7)) where the kernel has it and the
 * flow hasn't fallen back (udp_send_flush()), else as one message per
 * datagram it holds: the peer gets the datagrams the guest wrote.  One
 * with a segment beyond the guest's MTU or too many segments
 * (udp_gso_in_check()) is dropped and counted.
 *
 * #syscalls setsockopt
 * Return: frames consumed (sent, or dropped as too big or bad); a run on
 *	   the flow's own socket stops where the TTL changes
 */
static unsigned udp_tap_send(struct ctx *ctx, struct udp_flow *uf,
			     const struct frame *f, unsigned n)
{
	bool via_listener = uf->kind == UDP_TAP_IN;
	int s = via_listener ? uf->listen_sock : uf->sock;
	socklen_t cl = via_listener ? udp_pktinfo_set(uf, udp_cmsg_send) : 0;
	size_t pmax = udp_payload_max(ctx->c.mtu, inany_v4(&uf->f.key.gaddr));
	unsigned used, m = 0;

	/* The guest's TTL or hop limit goes out with its datagrams (so that
	 * traceroute works): one value per sendmmsg() on our own socket
	 */
	/* More than one datagram from the guest: not a single exchange */
	if (!via_listener && !uf->bulk && !uf->mcast &&
	    ((uf->seen & UDP_SEEN_OPENER) || n > 1 || f[0].gso_size))
		udp_flow_bulk(uf);
	if (!via_listener && n && f[0].ttl && uf->ttl != f[0].ttl) {
		int ttl = f[0].ttl;

		if (uf->mcast)
			udp_mcast_ttl(uf, ttl);
		else if (inany_v4(&uf->f.key.gaddr))
			setsockopt(s, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
		else
			setsockopt(s, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl,
				   sizeof(ttl));
		uf->ttl = f[0].ttl;
	}

	for (used = 0; used < n; used++) {
		const struct frame *fr = &f[used];
		size_t plen = fr->payload_len, seg = fr->gso_size;
		struct msghdr *mh;
		int nseg = 1;

		if (!via_listener && fr->ttl != f[0].ttl)
			break;
		if (seg && plen > seg) {
			nseg = udp_gso_in_check(plen, seg, pmax);
			if (nseg == -EMSGSIZE) {
				udp_stats.too_big += udp_gso_segs(plen, seg);
				continue;
			}
			if (nseg < 0) {
				udp_stats.gso_bad++;
				continue;
			}
		} else if (fr->l3_len > (size_t)ctx->c.mtu) {
			udp_stats.too_big++;
			continue;
		}
		if (m == UDP_BATCH)
			udp_send_flush(ctx, uf, s, &m, cl);

		mh = &udp_mh_send[m].msg_hdr;
		udp_msg_init(mh, &udp_iov_send[m],
			     UNCONST(void *, fr->payload), plen);
		if (via_listener || uf->mcast)	/* mcast: no cl, no cmsg */
			udp_msg_to_peer(mh, uf, cl);
		udp_send_nseg[m] = (unsigned)nseg;
		udp_send_seg[m] = nseg > 1 ? seg : 0;
		if (nseg > 1) {
			udp_stats.gso_from_tap++;
			if (udp_seg_enabled() && !uf->gso_off) {
				/* pktinfo, if any, then UDP_SEGMENT */
				if (mh->msg_controllen)
					memcpy(udp_cmsg_gso[m], udp_cmsg_send,
					       mh->msg_controllen);
				mh->msg_control = udp_cmsg_gso[m];
				mh->msg_controllen =
					udp_gso_cmsg(udp_cmsg_gso[m],
						     mh->msg_controllen,
						     (uint16_t)seg);
			} else {
				/* Cut here: what is queued before it goes
				 * first, then its datagrams, one message each
				 */
				unsigned cur = m;

				udp_stats.gso_fallback++;
				udp_send_flush(ctx, uf, s, &m, cl);
				udp_stats.dgrams_from_tap +=
					udp_send_split(ctx, uf, s, cur, cl);
				uf->last_len = (uint16_t)(plen -
					(size_t)(nseg - 1) * seg);
				continue;
			}
		}
		uf->last_len = (uint16_t)(nseg > 1 ?
					  plen - (size_t)(nseg - 1) * seg :
					  plen);
		m++;
	}
	if (m)
		udp_send_flush(ctx, uf, s, &m, cl);
	udp_flow_touch(uf, ctx->now);
	/* The guest opened UDP_TAP_OUT flows, and answers UDP_TAP_IN ones */
	uf->seen |= uf->kind == UDP_TAP_OUT ? UDP_SEEN_OPENER : UDP_SEEN_ANSWER;
	return used;
}

/**
 * udp_tap_handler() - Datagrams from the guest that share one 4-tuple
 * @ctx:	Context
 * @f:		Frames, consecutive, same addresses and ports (frame_parse()
 *		checked the UDP length against the IP length)
 * @n:		Number of frames, >= 1
 *
 * Context: main loop, from passt_frames_dispatch()
 * Return: frames consumed: always @n (datagrams that can't be delivered are
 *	   dropped, as UDP allows)
 */
unsigned udp_tap_handler(struct ctx *ctx, const struct frame *f, unsigned n)
{
	struct flow_key key;
	struct udp_flow *uf;
	union flow *flow;
	unsigned i;

	if (ctx->c.no_udp)
		return n;

	flow_key_fill(&key, IPPROTO_UDP, &f->src, f->sport, &f->dst, f->dport);
	flow = flow_lookup(&key);
	if (flow && flow->f.type != FLOW_UDP)
		return n;
	uf = flow ? &flow->udp : udp_flow_from_tap(ctx, f, &key);
	if (!uf)
		return n;

	for (i = 0; i < n; )
		i += udp_tap_send(ctx, uf, f + i, n - i);
	return n;
}

/**
 * udp_sock_handler() - Event on a flow's own socket
 * @ctx:	Context
 * @ref:	epoll reference: flow index and fd
 * @events:	epoll events (errors are read along with the data)
 *
 * Context: main loop
 */
VISIBLE_IF_UNIT
void udp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events)
{
	union flow *flow = flow_at(ref.flow);
	struct udp_flow *uf = &flow->udp;

	if (flow->f.type != FLOW_UDP || uf->sock != (int)ref.fd)
		return;
	if (udp_kind_spliced(uf)) {
		udp_splice_back(ctx, uf);
		return;
	}
	if (uf->mcast) {
		udp_mcast_sock_to_tap(ctx, uf);
		return;
	}
	if ((events & EPOLLERR) && uf->kind == UDP_TAP_OUT)
		udp_sock_errqueue(ctx, uf);
	udp_sock_to_tap(ctx, uf);
}

/**
 * udp_flow_set_peer() - Record where replies through a forwarded port go
 * @uf:		Flow
 * @listen_sock: Forwarded-port socket the peer sent to
 * @i:		Index of the peer's datagram in the receive batch
 * @local:	Address the peer sent to
 * @ifindex:	Interface it came in on
 */
static void udp_flow_set_peer(struct udp_flow *uf, int listen_sock,
			      unsigned i, const union inany *local,
			      unsigned ifindex)
{
	uf->listen_sock = listen_sock;
	uf->peer_len = MIN(udp_mh_recv[i].msg_hdr.msg_namelen,
			   (socklen_t)sizeof(uf->peer));
	memcpy(&uf->peer, &udp_name_recv[i], uf->peer_len);
	uf->local = *local;
	uf->local_ifindex = ifindex;
}

/**
 * udp_flow_peer_is() - Is a datagram's sender the recorded peer of a flow?
 * @uf:		Flow (any kind)
 * @peer:	Sender of the datagram
 * @pport:	Its port, host order
 * @local:	Address it sent to
 *
 * Return: true for a UDP_TAP_IN or spliced flow whose peer and local
 *	   address are these, or for a UDP_TAP_OUT flow (no peer recorded)
 */
static bool udp_flow_peer_is(const struct udp_flow *uf,
			     const union inany *peer, uint16_t pport,
			     const union inany *local)
{
	struct sockaddr_storage ss = { 0 };
	union inany p;
	uint16_t port;

	if (!uf->peer_len)
		return true;
	memcpy(&ss, &uf->peer, MIN((size_t)uf->peer_len, sizeof(uf->peer)));
	inany_from_sockaddr(&p, &port, &ss);
	return port == pport && inany_equals(&p, peer) &&
	       inany_equals(&uf->local, local);
}

/**
 * udp_splice_new() - Open a spliced flow for a datagram on a forwarded port
 * @ctx:	Context
 * @ref:	epoll reference of the forwarded-port socket
 * @key:	Spliced key: peer as gaddr/gport, local address and port as
 *		faddr/fport
 * @i:		Index of the datagram in the receive batch
 * @to:		Target port, host order
 * @ifindex:	Interface the datagram came in on
 *
 * The other end is of the peer's family: for a host peer (-u), the
 * namespace's own address, from that address, so that what listens on the
 * namespace's loopback only stays private (its loopback with
 * --host-lo-to-ns-lo, fwd_splice_ns_target()); for a namespace peer (-U),
 * the same loopback address on the host (any of 127.0.0.0/8, ::1).  A
 * namespace socket gets the UDP_FLOW_RCVBUF of flow sockets: a burst of
 * answers (a run of super-datagrams echoed) overflowed the default.
 *
 * #syscalls setsockopt
 *
 * Return: flow, or NULL (no namespace socket, table full, connect() error)
 */
static struct udp_flow *udp_splice_new(struct ctx *ctx, union epoll_ref ref,
				       const struct flow_key *key, unsigned i,
				       uint16_t to, unsigned ifindex)
{
	bool v4 = inany_v4(&key->gaddr), into_ns = !ref.listen.ns;
	union inany lo = udp_lo4;
	bool bound = false;
	struct udp_flow *uf;
	int s, ret;

	if (!v4)
		lo.a6 = in6addr_loopback;
	if (into_ns && fwd_splice_ns_target(&ctx->c, v4 ? AF_INET : AF_INET6,
					    &lo) < 0)
		return NULL;
	if (!into_ns && inany_is_loopback(&key->faddr))
		lo = key->faddr;	/* 127.0.0.53 in, 127.0.0.53 out */
	s = into_ns ? udp_pool_get(ctx, v4, &bound) :
		      udp_sock_new(ctx, v4 ? AF_INET : AF_INET6, true);
	if (s < 0)
		return NULL;
	if (into_ns) {
		/* Answers queue here as on a flow socket (udp_sock_new()) */
		int rcvbuf = UDP_FLOW_RCVBUF;

		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	}
	ret = udp_sock_connect(s, bound, &lo, key->gport, &lo, to);
	if (ret < 0) {
		debug("UDP splice connect(): %s", strerror(-ret));
		close(s);
		return NULL;
	}
	uf = udp_flow_new(ctx, into_ns ? UDP_SPLICE_IN : UDP_SPLICE_OUT, key);
	if (!uf) {
		close(s);
		return NULL;
	}
	uf->sock = s;
	uf->gro = udp_gro_set(s);	/* answers' super-datagrams, whole */
	uf->bulk = true;
	udp_flow_set_peer(uf, (int)ref.fd, i, &key->faddr, ifindex);
	if (udp_flow_epoll_add(ctx, uf) < 0) {
		udp_flow_close(ctx, uf, "epoll_ctl() failed");
		return NULL;
	}
	if (log_level >= LOG_DEBUG) {
		char tgt[INET6_ADDRSTRLEN];

		/* --config-net: the namespace's own address, not loopback */
		flow_dbg(uf, "new flow, to [%s]:%u", inany_ntop(&lo, tgt), to);
	}
	return uf;
}

/**
 * udp_listen_to() - Target port of a forwarded-port socket's datagrams
 * @c:		Configuration
 * @ref:	epoll reference of the forwarded-port socket
 *
 * Return: port, host order
 */
static uint16_t udp_listen_to(const struct conf *c, union epoll_ref ref)
{
	const struct fwd_table *t = ref.listen.ns ? &c->udp_out : &c->udp_in;

	return ref.listen.dyn ?
	       fwd_dyn_port(t, ref.listen.rule, ref.listen.port) :
	       fwd_port(t, ref.listen.rule, ref.listen.port);
}

/**
 * udp_listen_errqueue() - Relay ICMP errors about the guest's replies
 * @ctx:	Context
 * @ref:	epoll reference of a host forwarded-port socket (-u), which
 *		has IP_RECVERR/IPV6_RECVERR (fwd.c)
 *
 * The guest's replies to a peer of a forwarded port leave through that
 * port's socket (UDP_TAP_IN).  An error about one names the peer it was
 * sent to (msg_name: the quoted destination and port, ip(7)); the
 * UDP_TAP_IN flow of that peer gets it as the same ICMP or ICMPv6 error,
 * from the node that sent it (the peer itself: as the guest knows it;
 * a router: fwd_nat_to_guest()), quoting the flow's IP and UDP headers,
 * as udp_sock_errqueue() does for the guest's own flows.  Errors with no
 * such flow, or that icmp_err_relayable() refuses, are dropped.  Reading
 * the queue also clears the socket error, so that the next recvmmsg()
 * returns datagrams.
 *
 */
static void udp_listen_errqueue(struct ctx *ctx, union epoll_ref ref)
{
	const struct conf *c = &ctx->c;
	unsigned n;

	for (n = 0; n < UDP_BATCH; n++) {
		/* The error, and what IP_PKTINFO and IPV6_RECVPKTINFO add
		 * (both, for IPv4 on a dual-stack socket: ipv6_recv_error())
		 */
		uint8_t cbuf[ICMP_ERRQUEUE_CBUF +
			     CMSG_SPACE(sizeof(struct in6_pktinfo)) +
			     CMSG_SPACE(sizeof(struct in_pktinfo))];
		const struct sock_extended_err *ee;
		struct sockaddr_storage name = { 0 }, off = { 0 };
		struct msghdr mh = { .msg_name = &name,
				     .msg_namelen = sizeof(name),
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		union inany peer, from, src, gaddr;
		uint16_t pport, oport;
		struct flow_key k;
		struct udp_flow *uf;
		union flow *flow;
		uint32_t mtu;
		bool v4;

		if (icmp_errqueue_recv((int)ref.fd, &mh, &ee) < 0)
			return;
		if (!ee || (mh.msg_flags & MSG_CTRUNC) || ref.listen.ns ||
		    !tap_connected() ||
		    (name.ss_family != AF_INET && name.ss_family != AF_INET6))
			continue;
		inany_from_sockaddr(&peer, &pport, &name);
		v4 = inany_v4(&peer);
		if (!icmp_err_relayable(ee, v4, &mtu))
			continue;

		/* The flow of that peer, keyed as udp_listen_flow() does */
		fwd_nat_to_guest(c, &peer, &src);
		if (fwd_taddr(&c->udp_in, ref.listen.rule, ref.listen.dyn))
			gaddr = *fwd_taddr(&c->udp_in, ref.listen.rule,
					   ref.listen.dyn);
		else
			fwd_guest_addr(c, inany_af(&peer), &gaddr);
		flow_key_fill(&k, IPPROTO_UDP, &gaddr, udp_listen_to(c, ref),
			      &src, pport);
		flow = flow_lookup(&k);
		if (!flow || flow->f.type != FLOW_UDP ||
		    flow->udp.kind != UDP_TAP_IN)
			continue;
		uf = &flow->udp;

		/* A dual-stack socket gives IPv4 offenders as IPv4-mapped
		 * IPv6 addresses (ipv6(7)): the cmsg has room for either
		 */
		memcpy(&off, SO_EE_OFFENDER(ee), sizeof(struct sockaddr_in6));
		if (off.ss_family == AF_INET || off.ss_family == AF_INET6)
			inany_from_sockaddr(&from, &oport, &off);
		else
			from = peer;
		if (inany_equals(&from, &peer))
			src = uf->f.key.faddr;
		else
			fwd_nat_to_guest(c, &from, &src);
		if (!inany_v4(&src) != !v4 || inany_is_unspecified(&src))
			continue;

		if (!udp_icmp_err_send(c, uf, &src, ee, mtu))
			return;
		flow_dbg(uf, "ICMP%s type %u code %u (MTU %u) about a reply relayed to the guest",
			v4 ? "" : "v6", ee->ee_type, ee->ee_code, mtu);
	}
}

/**
 * udp_listen_flow() - Find or open the flow of a datagram on a forwarded port
 * @ctx:	Context
 * @ref:	epoll reference of the forwarded-port socket (rule, port, side)
 * @i:		Index of the datagram in the receive batch
 * @group:	It was sent to a group or broadcast address: never spliced,
 *		even from a loopback peer (a splice would deliver it to the
 *		namespace's unicast address)
 *
 * Return: flow, or NULL if the datagram is to be dropped
 */
static struct udp_flow *udp_listen_flow(struct ctx *ctx, union epoll_ref ref,
					unsigned i, bool group)
{
	const struct conf *c = &ctx->c;
	const struct fwd_table *t = ref.listen.ns ? &c->udp_out : &c->udp_in;
	uint16_t to = udp_listen_to(c, ref), pport;
	union inany peer, local, src, gaddr;
	const union inany *taddr;
	struct flow_key skey, tkey;
	bool splice, tap_ok;
	struct udp_flow *uf;
	union flow *flow;
	unsigned ifindex;
	int af;

	inany_from_sockaddr(&peer, &pport, &udp_name_recv[i]);
	udp_pktinfo_parse(&udp_mh_recv[i].msg_hdr, &local, NULL, &ifindex);

	/* -U listens on 0.0.0.0 bound to lo, for all of 127.0.0.0/8: the
	 * namespace's own addresses, which lo carries too, aren't forwarded
	 */
	if (ref.listen.ns && inany_v4(&local) && !inany_is_loopback(&local))
		return NULL;
	taddr = fwd_taddr(t, ref.listen.rule, ref.listen.dyn);
	/* A target address is reached over the tap path */
	splice = ref.listen.ns || (c->mode == MODE_PASTA && !c->no_splice &&
				   !taddr && !group &&
				   inany_is_loopback(&peer));
	if (splice) {
		flow_key_fill(&skey, ref.listen.ns ? UDP_KEY_SPLICE_NS :
						     UDP_KEY_SPLICE_HOST,
			      &peer, pport, &local, ref.listen.port);
		flow = flow_lookup(&skey);
		if (flow)
			return flow->f.type == FLOW_UDP ? &flow->udp : NULL;
		if (ref.listen.ns)
			return udp_splice_new(ctx, ref, &skey, i, to, ifindex);
	}

	/* The tap path: also where a loopback peer went earlier when no
	 * namespace socket could be had, so keep it there
	 */
	af = inany_af(&peer);
	tap_ok = (af == AF_INET ? c->ip4.enabled : c->ip6.enabled);
	if (tap_ok) {
		/* No address to show the peer as (no gateway, -i given):
		 * never a datagram from 0.0.0.0 or ::, dropped and counted
		 */
		if (!fwd_nat_to_guest(c, &peer, &src))
			udp_stats.no_source++;
		if (taddr)
			gaddr = *taddr;
		else
			fwd_guest_addr(c, af, &gaddr);
		tap_ok = !inany_is_unspecified(&src) &&
			 !inany_is_unspecified(&gaddr);
	}
	if (tap_ok) {
		flow_key_fill(&tkey, IPPROTO_UDP, &gaddr, to, &src, pport);
		flow = flow_lookup(&tkey);
		if (flow && flow->f.type != FLOW_UDP)
			return NULL;
		if (flow && udp_flow_peer_is(&flow->udp, &peer, pport, &local))
			return &flow->udp;
		if (flow && !splice) {
			/* Two host peers the guest can't tell apart (the
			 * host's own address and its loopback both appear
			 * as one address): replies go to the latest one,
			 * from the address that one sent to
			 */
			uf = &flow->udp;
			if (uf->kind == UDP_TAP_IN) {
				udp_flow_set_peer(uf, (int)ref.fd, i, &local,
						  ifindex);
				flow_dbg(uf, "peer changed");
			}
			return uf;
		}
		/* A loopback peer never joins the tap flow of another peer
		 * that maps to the same guest-side tuple: its replies would
		 * leave from that peer's local address.  It gets a spliced
		 * flow of its own instead
		 */
		if (flow)
			tap_ok = false;
	}

	if (splice && (uf = udp_splice_new(ctx, ref, &skey, i, to, ifindex)))
		return uf;
	if (!tap_ok)
		return NULL;

	uf = udp_flow_new(ctx, UDP_TAP_IN, &tkey);
	if (!uf)
		return NULL;
	udp_flow_set_peer(uf, (int)ref.fd, i, &local, ifindex);
	flow_dbg(uf, "new flow from port %u", ref.listen.port);
	return uf;
}

/**
 * udp_listen_handler() - Datagrams on a forwarded port (-u, -U)
 * @ctx:	Context
 * @ref:	epoll reference: fd, rule, port, side
 * @events:	epoll events: EPOLLERR for queued ICMP errors
 *		(udp_listen_errqueue())
 *
 * Context: main loop
 * #syscalls recvmmsg sendmmsg
 */
void udp_listen_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events)
{
	int rounds;

	if (events & EPOLLERR)
		udp_listen_errqueue(ctx, ref);
	for (rounds = 0; rounds < UDP_ROUNDS; rounds++) {
		struct udp_flow *run = NULL;
		unsigned i, m = 0;
		int r;

		udp_recv_prepare_bufs();
		for (i = 0; i < UDP_BATCH; i++) {
			struct msghdr *mh = &udp_mh_recv[i].msg_hdr;

			mh->msg_name = &udp_name_recv[i];
			mh->msg_namelen = sizeof(udp_name_recv[i]);
			mh->msg_control = udp_cmsg_recv[i];
			mh->msg_controllen = sizeof(udp_cmsg_recv[i]);
		}
		r = recvmmsg((int)ref.fd, udp_mh_recv, UDP_BATCH, MSG_DONTWAIT,
			     NULL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;

		for (i = 0; i < (unsigned)r; i++) {
			size_t len = udp_mh_recv[i].msg_len, off, gro;
			struct udp_flow *uf;
			struct flow_key k;
			union inany group;
			unsigned nseg, j;
			int mc = 0;

			/* To a group or broadcast: to the guest as such */
			if (!ref.listen.ns)
				mc = udp_mcast_rx_dst(ctx,
						      &udp_mh_recv[i].msg_hdr,
						      &udp_name_recv[i],
						      ref.listen.port, &group);
			if (mc < 0)
				continue;
			uf = udp_listen_flow(ctx, ref, i, mc > 0);
			if (!uf)
				continue;
			udp_flow_touch(uf, ctx->now);
			uf->seen |= UDP_SEEN_OPENER;

			/* A super-datagram (UDP_GRO): its datagrams, as the
			 * peer sent them, one by one from here on
			 */
			gro = udp_gro_size(&udp_mh_recv[i].msg_hdr);
			nseg = udp_gso_segs(len, gro);
			if (nseg > 1)
				udp_stats.gro_dgrams += nseg;

			if (uf->kind != UDP_SPLICE_IN &&
			    uf->kind != UDP_SPLICE_OUT) {
				k = uf->f.key;
				if (mc > 0)
					k.gaddr = group;
				for (j = 0, off = 0; j < nseg; j++) {
					size_t l = MIN(len - off,
						       nseg > 1 ? gro : len);

					udp_run_add(ctx, uf, &k, mc > 0,
						    udp_buf[i] + off, l);
					off += l;
				}
				continue;
			}

			/* Spliced: consecutive messages of a flow in one
			 * sendmmsg(), a super-datagram whole
			 */
			if (run && run != uf && m)
				udp_send_flush(ctx, run, run->sock, &m, 0);
			run = uf;
			udp_splice_queue(ctx, uf, uf->sock, &m, 0, udp_buf[i],
					 len, gro);
		}
		if (run && m)
			udp_send_flush(ctx, run, run->sock, &m, 0);
		udp_run_flush(ctx);

		if (r < UDP_BATCH)
			return;
	}
}

/**
 * udp_flow_timer() - Close a flow idle for --udp-timeout (flow_timer())
 * @ctx:	Context
 * @flow:	Flow of type FLOW_UDP
 *
 * Return: its expiry, ms, or INT64_MAX if it was closed
 */
static int64_t udp_flow_timer(struct ctx *ctx, union flow *flow)
{
	int64_t at = flow->udp.last_active_ms +
		     (int64_t)ctx->c.udp_timeout_s * 1000;

	if (ctx->now >= at) {
		udp_flow_close(ctx, &flow->udp, "idle");
		return INT64_MAX;
	}
	return at;
}

/**
 * udp_ttl_probe() - The TTL and hop limit our sockets get by default
 *
 * getsockopt() of IP_TTL and IPV6_UNICAST_HOPS on a new socket gives
 * the net.ipv4.ip_default_ttl and IPv6 hop limit of our namespace (ip(7),
 * ipv6(7)): a guest flow's socket starts with these recorded
 * (udp_flow_from_tap()), so the guest's datagrams, nearly always sent
 * with the same value, need no setsockopt() per flow.  A route with its
 * own hoplimit metric would use that instead of the default for a
 * guest TTL equal to it: not set on any route we create, rare elsewhere.
 *
 * Context: set-up (udp_init())
 */
static void udp_ttl_probe(void)
{
	int s, v;
	socklen_t sl = sizeof(v);

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (s >= 0 && !getsockopt(s, IPPROTO_IP, IP_TTL, &v, &sl) &&
	    v > 0 && v < 256)
		udp_ttl_default4 = (uint8_t)v;
	if (s >= 0)
		close(s);
	sl = sizeof(v);
	s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (s >= 0 && !getsockopt(s, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &v, &sl) &&
	    v > 0 && v < 256)
		udp_ttl_default6 = (uint8_t)v;
	if (s >= 0)
		close(s);
}

/**
 * udp_ns_listen() - In the namespace: open the sockets of -U ports
 * @arg:	Context
 *
 * Context: pasta_ns_call() child
 * Return: 0, or -errno for a port that can't be bound
 */
static int udp_ns_listen(void *arg)
{
	struct ctx *ctx = arg;
	int ret = fwd_listen(ctx, IPPROTO_UDP, &ctx->c.udp_out, true);

	return ret < 0 ? ret : 0;
}

/**
 * udp_init() - Forwarded-port sockets on both sides, namespace socket pool
 * @ctx:	Context, after the namespace (pasta) is set up
 *
 * Context: set-up; dies if a non-weak forwarded port can't be bound
 */
void udp_init(struct ctx *ctx)
{
	struct conf *c = &ctx->c;
	int ret;

	if (c->no_udp)
		return;
	udp_gso_probe(c->udp_offload_off);
	udp_ttl_probe();
	if (fwd_listen(ctx, IPPROTO_UDP, &c->udp_in, false) < 0)
		die("-u: can't bind a forwarded port");

	if (c->mode != MODE_PASTA || ctx->ns_fd < 0)
		return;
	/* "auto" ports take namespace sockets from the helper, on demand */
	if (c->udp_in.n && !c->no_splice)
		udp_pool_refill(ctx);
	if (c->udp_out.n) {
		ret = pasta_ns_call(ctx->ns_fd, udp_ns_listen, ctx);
		if (ret < 0)
			die("-U: can't bind a forwarded port in the namespace: %s",
			    strerror(-ret));
	}
}

/**
 * udp_listen_closing() - Close the flows that reply through a forwarded-port
 *			  socket about to be closed
 * @ctx:	Context
 * @s:		The socket ("auto" port gone, passt/fwd_auto.c)
 *
 * Their replies would go out of a closed socket, or of another one that
 * gets the same number later.
 *
 * Context: main loop
 */
void udp_listen_closing(struct ctx *ctx, int s)
{
	unsigned i, hwm = flow_hwm();

	for (i = 0; i < hwm; i++) {
		union flow *flow = flow_at(i);

		if (flow->f.type == FLOW_UDP && flow->udp.listen_sock == s)
			udp_flow_close(ctx, &flow->udp,
				       "forwarded port closed");
	}
}

/**
 * udp_flow_guest_gone() - Close a flow that has a guest side: guest gone
 * @ctx:	Context
 * @flow:	Flow of type FLOW_UDP
 * @ms:		Unused (datagrams need no drain)
 *
 * Context: passt mode, when the stream client disconnects
 */
static void udp_flow_guest_gone(struct ctx *ctx, union flow *flow,
				unsigned ms)
{
	(void)ms;
	if (flow->udp.kind == UDP_TAP_OUT || flow->udp.kind == UDP_TAP_IN)
		udp_flow_close(ctx, &flow->udp, "guest gone");
}

/**
 * udp_flow_host_changed() - Close a tap flow whose host-side address the
 *			     host no longer has
 * @ctx:	Context
 * @flow:	Flow of type FLOW_UDP
 * @has_addr:	Does the host have this address (family, network order)?
 *
 * UDP_TAP_OUT: the source address the kernel chose at connect() for our
 * socket; UDP_TAP_IN: the address the host peer sent to, which the
 * guest's replies leave from.  The kernel keeps that address on the
 * socket, and every later datagram would be dropped (sendmmsg() fails)
 * until the flow is idle for --udp-timeout.  The flow goes, quietly, the
 * way the kernel's own NAT forgets the connections it masqueraded to an
 * address that went away (nf_nat_masquerade.c: on NETDEV_DOWN of an
 * IPv4 or IPv6 address, its conntrack entries are deleted, nothing is
 * sent): the guest's next datagram opens a new flow, from an address
 * the host has.  Spliced flows (loopback) are left alone.
 */
static void udp_flow_host_changed(struct ctx *ctx, union flow *flow,
				  bool (*has_addr)(int af, const void *addr))
{
	struct udp_flow *uf = &flow->udp;

	if ((uf->kind == UDP_TAP_OUT && flow_sock_addr_gone(uf->sock, has_addr)) ||
	    (uf->kind == UDP_TAP_IN && flow_addr_gone(&uf->local, has_addr)))
		udp_flow_close(ctx, uf, "host-side address gone");
}

/**
 * udp_count() - Add to a counter of UDP on behalf of another file
 * @what:	Counter
 * @n:		Datagrams
 *
 * Context: main loop (single threaded: plain additions)
 */
void udp_count(enum udp_count what, uint64_t n)
{
	switch (what) {
	case UDP_COUNT_DGRAMS_TO_TAP:
		udp_stats.dgrams_to_tap += n;
		break;
	case UDP_COUNT_TOO_BIG:
		udp_stats.too_big += n;
		break;
	case UDP_COUNT_NO_SOURCE:
		udp_stats.no_source += n;
		break;
	}
}

/**
 * udp_stats_print() - Print the counters of UDP
 */
static void udp_stats_print(void)
{
	info_always("stats: UDP flows %lu, datagrams to guest %lu, from guest %lu, super-frames to guest %lu, datagrams in host super-datagrams %lu, super-frames from guest %lu (cut here %lu, bad %lu), too big %lu, refused %lu, evicted %lu (answered %lu, unanswered %lu), no source address %lu, spliced super-datagrams whole %lu, split %lu",
		    udp_stats.flows_opened, udp_stats.dgrams_to_tap,
		    udp_stats.dgrams_from_tap, udp_stats.uso_frames,
		    udp_stats.gro_dgrams, udp_stats.gso_from_tap,
		    udp_stats.gso_fallback, udp_stats.gso_bad,
		    udp_stats.too_big, udp_stats.refused_full,
		    flow_stats.evicted, udp_stats.evicted_answered,
		    udp_stats.evicted_unanswered, udp_stats.no_source,
		    udp_stats.gso_splice, udp_stats.gso_splice_cut);
	udp_mcast_stats_log();
}

/**
 * udp_flow_describe() - What flow_log() says of a UDP flow: kind and tuple
 * @flow:	UDP flow
 * @buf:	Output: "KIND [GADDR]:GPORT <-> [FADDR]:FPORT", NUL-terminated
 * @len:	Size of @buf, bytes
 */
static void udp_flow_describe(const union flow *flow, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s ", udp_kind_str[flow->udp.kind]);

	if (n > 0 && (size_t)n < len)
		flow_describe_key(flow, buf + n, len - (size_t)n);
}

static const struct flow_ops udp_flow_ops = {
	.name		= "UDP",
	.epoll_type	= EPOLL_TYPE_UDP,
	.sock		= udp_sock_handler,
	.timer		= udp_flow_timer,
	.idle_since	= udp_flow_idle_since,
	.evict		= udp_flow_evict,
	.guest_gone	= udp_flow_guest_gone,
	.host_changed	= udp_flow_host_changed,
	.stats_print	= udp_stats_print,
	.counters	= (const uint64_t *)&udp_stats,
	.ncounters	= sizeof(udp_stats) / sizeof(uint64_t),
	.describe	= udp_flow_describe,
};

/**
 * udp_flow_register() - Register the operations of UDP flows
 *
 * Context: start of main() (the entry point names each flow type)
 */
void udp_flow_register(void)
{
	flow_ops_register(FLOW_UDP, &udp_flow_ops);
}
