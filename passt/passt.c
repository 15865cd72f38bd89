// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/passt.c - Main loop: epoll dispatch, guest frame dispatch, timers
 *
 * DOC: Theory of Operation
 *
 * One thread, one epoll instance.  Every registered fd carries a
 * union epoll_ref; the loop switches on its type and hands the event to the
 * owning module with no lookup.  A wake-up on the tap side reads a batch of
 * frames (tap_rx()), parses each once (frame_parse()), answers ARP, DHCP,
 * NDP and DHCPv6 locally, and passes runs of consecutive frames that share
 * a TCP or UDP 4-tuple to the protocol handler in one call.  Frames to the
 * guest queue up in the tap transmit arena and are written once, at the end
 * of the wake-up (tap_flush()).
 *
 * Timers: modules record their earliest deadline with timer_want(); the
 * epoll_wait() timeout runs until then (at most one second, for the
 * housekeeping tick: netns still there, periodic router advertisements).
 *
 * Turns at the tap: a TCP connection that found the tap blocked (a stream
 * write pending, the tap device refusing writes), or that had its turn's
 * worth of bytes, waits; tcp_tap_resume() serves the waiting ones round
 * robin before each flush, and the loop doesn't sleep while some wait and
 * the tap could take their frames.
 *
 * Exit.  A reason to quit (the command exited, SIGTERM/SIGINT/SIGHUP, the
 * target namespace went away, a --one-off guest left) starts a drain, not
 * an exit: the loop goes on, and connections that finish (flow_drain():
 * each flow type's drain operation) are closed cleanly, for up to --drain-timeout seconds.
 * Then those still open are reset as soon as their host peers have ACKed
 * what we ACKed, for as long again, and whatever is left after that is
 * reset.  A second signal exits at once.  The listening sockets of
 * forwarded ports are closed first, before the drain: the next instance
 * (podman restart) binds the same ports at once, while the connections
 * already open here still drain.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/visible.h"
#include "../tap/guest.h"
#include "../tap/hdr.h"
#include "../tap/services.h"
#include "../tap/tap.h"
#include "../tap/vhost_user.h"
#include "ctl.h"
#include "devmem.h"
#include "tcp_devmem.h"
#include "epoll_ref.h"
#include "flow.h"
#include "follow.h"
#include "frame_input.h"
#include "fwd.h"
#include "fwd_auto.h"
#include "icmp.h"
#include "isolation.h"
#include "limits.h"
#include "nsock.h"
#include "passt.h"
#include "pasta.h"
#include "repair.h"
#include "restart_wait.h"
#include "sdnotify.h"
#include "signals.h"
#include "tcp.h"
#include "udp.h"
#include "vhost.h"

#define EPOLL_EVENTS		64
#define HOUSEKEEPING_MS		1000

VISIBLE_IF_UNIT
struct passt_stats passt_stats;

static struct tap_rx_batch tap_batch;
static struct frame tap_frames[TAP_RX_MAX];
static uint8_t svc_out[4096];
static bool tap_epollout_armed;

/**
 * passt_stats_dump() - Log the counters (--stats at exit, or SIGUSR1)
 *
 * Each module prints its own (tap, vhost-user, the flow types, limits,
 * devmem, local services); this file prints those of frame dispatch.
 */
void passt_stats_dump(void)
{
	uint64_t dropped = 0;
	unsigned i;

	for (i = 1; i < FD_COUNT; i++)
		dropped += passt_stats.frames_dropped[i];

	tap_stats_print();
	vu_stats_print();
	info_always("stats: malformed frames dropped %lu, unhandled %lu",
		    dropped, passt_stats.frames_unhandled);
	if (passt_stats.clients || passt_stats.clients_refused)
		info_always("stats: clients accepted %lu, refused (one at a time) %lu",
			    passt_stats.clients, passt_stats.clients_refused);
	for (i = 1; i < FD_COUNT; i++)
		if (passt_stats.frames_dropped[i])
			info_always("stats:   %s: %lu", frame_drop_str[i],
				    passt_stats.frames_dropped[i]);
	flow_stats_print();
	limits_stats_print();
	tcp_devmem_stats_print();
	svc_stats_print();
}

/**
 * svc_send() - Queue a reply built by a local service
 * @len:	Length of the frame in svc_out, 0 for none
 */
static void svc_send(size_t len)
{
	uint8_t *l2;

	if (!len)
		return;
	l2 = tap_tx_frame(len);
	if (l2)
		memcpy(l2, svc_out, len);
}

/**
 * same_tuple() - Do two frames belong to the same L4 flow?
 * @a:		Frame
 * @b:		Frame
 *
 * Return: true if protocol, addresses and ports match
 */
static bool same_tuple(const struct frame *a, const struct frame *b)
{
	return a->proto == b->proto && a->sport == b->sport &&
	       a->dport == b->dport && inany_equals(&a->src, &b->src) &&
	       inany_equals(&a->dst, &b->dst);
}

/**
 * passt_frames_dispatch() - Handle a batch of parsed frames
 * @ctx:	Context
 * @f:		Frames (valid ones only)
 * @n:		Count
 */
static void passt_frames_dispatch(struct ctx *ctx, const struct frame *f,
				  unsigned n)
{
	const struct conf *c = &ctx->c;
	unsigned i = 0;

	while (i < n) {
		const struct frame *fr = &f[i];
		unsigned j = i + 1, used;

		if (fr->ethertype == ETH_P_ARP) {
			if (c->ip4.enabled)
				svc_send(arp_handle(c, fr, svc_out,
						    sizeof(svc_out)));
			i++;
			continue;
		}

		if (fr->af == AF_INET && !c->ip4.enabled) {
			i++;
			continue;
		}
		if (fr->af == AF_INET6 && !c->ip6.enabled) {
			i++;
			continue;
		}

		switch (fr->proto) {
		case IPPROTO_TCP:
			while (j < n && j - i < TCP_MAX_BATCH &&
			       same_tuple(fr, &f[j]))
				j++;
			used = tcp_tap_handler(ctx, fr, j - i);
			i += used ? used : 1;
			continue;
		case IPPROTO_UDP:
			if (fr->af == AF_INET && fr->dport == 67) {
				if (!c->no_dhcp)
					svc_send(dhcp_handle(c, fr, svc_out,
							     sizeof(svc_out)));
				i++;
				continue;
			}
			if (fr->af == AF_INET6 && fr->dport == 547 &&
			    IN6_IS_ADDR_MULTICAST(&fr->dst.a6)) {
				if (!c->no_dhcpv6)
					svc_send(dhcpv6_handle(c, fr, svc_out,
							       sizeof(svc_out)));
				i++;
				continue;
			}
			while (j < n && j - i < TCP_MAX_BATCH &&
			       same_tuple(fr, &f[j]))
				j++;
			used = udp_tap_handler(ctx, fr, j - i);
			i += used ? used : 1;
			continue;
		case IPPROTO_ICMP:
			/* frame_parse() passes ICMP in IPv6 as opaque */
			if (fr->af != AF_INET || !icmp_tap_handler(ctx, fr))
				passt_stats.frames_unhandled++;
			break;
		case IPPROTO_ICMPV6: {
			uint8_t type;

			if (fr->af != AF_INET6) {	/* ICMPv6 in IPv4 */
				passt_stats.frames_unhandled++;
				break;
			}
			type = hdr_get8(fr->l4, struct icmp6_hdr, icmp6_type);

			if (type == ND_ROUTER_SOLICIT ||
			    type == ND_NEIGHBOR_SOLICIT) {
				if (!c->no_ndp)
					svc_send(ndp_handle(c, fr, svc_out,
							    sizeof(svc_out)));
			} else if (!icmp_tap_handler(ctx, fr)) {
				passt_stats.frames_unhandled++;
			}
			break;
		}
		default:
			passt_stats.frames_unhandled++;
			break;
		}
		i++;
	}
}

/**
 * passt_frames_input_gso() - Handle frames from the guest: parse, learn,
 *			      dispatch
 * @ctx:	Context
 * @frame:	Start of each frame (Ethernet header)
 * @len:	Length of each frame, bytes
 * @gso:	UDP segment size of each frame (struct tap_rx_batch), or NULL
 *		if none is a UDP super-frame
 * @n:		Number of frames, at most TAP_RX_MAX
 *
 * Malformed frames are dropped and counted (passt_stats.frames_dropped), the
 * others go to the local services and to the L4 handlers, whose replies
 * queue up in tap/ (the caller flushes).  Also the entry point of the
 * fuzzing harness test/fuzz/frame.c.
 *
 * Context: main loop
 */
static void passt_frames_input_gso(struct ctx *ctx,
				   const uint8_t *const *frame,
				   const size_t *len, const uint16_t *gso,
				   unsigned n)
{
	unsigned i, good = 0;

	for (i = 0; i < n && i < TAP_RX_MAX; i++) {
		int r = frame_parse(frame[i], len[i], &tap_frames[good]);

		if (r < 0) {
			uint64_t *dropped = passt_stats.frames_dropped;

			dropped[-r < FD_COUNT ? -r : 0]++;
			if (r == -FD_IP_FRAG)
				frame_frag_warn(ctx->now, dropped[FD_IP_FRAG]);
			trace("from tap: dropped %zu-byte frame: %s", len[i],
			      frame_drop_str[-r < FD_COUNT ? -r : 0]);
			continue;
		}
		if (unlikely(log_trace_on))
			frame_trace("from tap", frame[i], len[i], len[i]);
		if (gso && tap_frames[good].proto == IPPROTO_UDP)
			tap_frames[good].gso_size = gso[i];
		if (!fwd_src_is_taddr(&ctx->c, &tap_frames[good]))
			tap_guest_learn(&tap_frames[good]);
		good++;
	}
	passt_frames_dispatch(ctx, tap_frames, good);
}

/**
 * passt_frames_input() - Handle frames from the guest, none a UDP
 *			  super-frame (passt_frames_input_gso())
 * @ctx:	Context
 * @frame:	Start of each frame (Ethernet header)
 * @len:	Length of each frame, bytes
 * @n:		Number of frames, at most TAP_RX_MAX
 *
 * Context: main loop, and the fuzzing harnesses
 */
VISIBLE_IF_UNIT
void passt_frames_input(struct ctx *ctx, const uint8_t *const *frame,
			const size_t *len, unsigned n)
{
	passt_frames_input_gso(ctx, frame, len, NULL, n);
}

/**
 * passt_tap_read() - Read and handle everything the guest sent
 * @ctx:	Context
 *
 * Return: 0, or -errno if the back-end failed (stream client gone)
 */
static int passt_tap_read(struct ctx *ctx)
{
	int rounds;

	for (rounds = 0; rounds < 16; rounds++) {
		int n = tap_rx(&tap_batch);

		if (n < 0)
			return n;
		if (!n)
			return 0;

		passt_frames_input_gso(ctx, tap_batch.frame, tap_batch.len,
				       tap_batch.gso, (unsigned)n);

		if (n < (tap_backend() == TAP_STREAM ? TAP_RX_MAX :
						       TAP_RX_FRAMES))
			return 0;
	}
	return 0;
}

/**
 * passt_tap_epoll_update() - Watch EPOLLOUT on the stream while a write is pending
 * @ctx:	Context
 *
 * #syscalls epoll_ctl
 */
static void passt_tap_epoll_update(struct ctx *ctx)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TAP };
	bool want = tap_tx_pending();
	struct epoll_event ev;

	if (want == tap_epollout_armed || tap_fd() < 0)
		return;
	ref.fd = (uint32_t)tap_fd() & EPOLL_REF_FD_MAX;
	ev.events = EPOLLIN | EPOLLRDHUP | (want ? EPOLLOUT : 0);
	ev.data.u64 = ref.u64;
	epoll_ctl(ctx->epollfd, EPOLL_CTL_MOD, tap_fd(), &ev);
	tap_epollout_armed = want;
}

/**
 * passt_tap_add() - Register the tap fd (or the stream client) with epoll
 * @ctx:	Context
 * @fd:		fd
 *
 * #syscalls epoll_ctl
 * Return: 0 or -errno
 */
int passt_tap_add(struct ctx *ctx, int fd)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TAP,
				.fd = (uint32_t)fd & EPOLL_REF_FD_MAX };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP,
				  .data.u64 = ref.u64 };

	tap_epollout_armed = false;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	return 0;
}

/**
 * passt_client_gone() - passt: the stream client disconnected
 * @ctx:	Context
 *
 * #syscalls:passt epoll_ctl close
 */
static void passt_client_gone(struct ctx *ctx)
{
	int fd = tap_fd();

	/* A front-end that connects and leaves in a loop (QEMU retrying a
	 * setting we refuse) must not flood the log
	 */
	info_ratelimit(ctx->now, "client disconnected");
	if (fd >= 0) {
		tap_flush();	/* replies to frames before a bad length */
		epoll_ctl(ctx->epollfd, EPOLL_CTL_DEL, fd, NULL);
		if (tap_backend() == TAP_VHOST)
			vu_detach();	/* kick fds, guest memory */
		close(fd);
	}
	tap_detach();
	if (ctx->c.one_off) {
		/* UDP and ICMP flows of the guest go now; the exit drain gives
		 * TCP connections up (flow_drain())
		 */
		flow_guest_gone(ctx, 0);
		ctx->quit = true;
		ctx->exit_status = 0;
	} else {
		/* What the guest sent and we ACKed still reaches the host */
		flow_guest_gone(ctx, MAX(ctx->c.drain_timeout_s, 1U) * 1000);
	}
}

/**
 * passt_tap_handler() - Events on the tap fd or the stream client
 * @ctx:	Context
 * @e:		epoll events (EPOLLIN alone for frames already buffered)
 *
 * A stream client that hangs up, or sends a bad length, is dropped; a tap
 * device that fails is fatal.
 */
static void passt_tap_handler(struct ctx *ctx, uint32_t e)
{
	int r = 0;

	if (e & EPOLLOUT)
		tap_flush();
	if (!(e & (EPOLLIN | EPOLLHUP | EPOLLRDHUP | EPOLLERR)))
		return;

	r = passt_tap_read(ctx);
	if (tap_backend() == TAP_VHOST) {
		if (r < 0)
			passt_client_gone(ctx);
		return;
	}
	if (r < 0 || ((e & (EPOLLHUP | EPOLLERR)) && !(e & EPOLLIN))) {
		if (tap_backend() == TAP_STREAM) {
			if (r == -EBADMSG)
				warn("bad frame length from the client, dropping it");
			passt_client_gone(ctx);
		} else {
			die("tap device: %s", strerror(-r));
		}
	}
}

static void guest_attached(struct ctx *ctx);

/**
 * passt_listen_handler() - passt: a client connects to the UNIX socket
 * @ctx:	Context
 * @ref:	epoll reference of the listening socket
 *
 * Out of descriptors, the client is taken off the queue and its connection
 * closed (limits_accept_refuse()), as for forwarded TCP ports.
 *
 * #syscalls:passt accept4 close
 */
static void passt_listen_handler(struct ctx *ctx, union epoll_ref ref)
{
	int s = accept4((int)ref.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (s < 0) {
		/* Left in the queue, the client would wake us for ever */
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			limits_refused(ctx->now, LIMIT_FDS,
				       "client of the UNIX socket");
			limits_accept_refuse((int)ref.fd);
		}
		return;
	}
	if (tap_fd() >= 0) {
		/* One guest at a time, as with QEMU's -netdev stream.  QEMU
		 * retries at once, in a loop: few lines, all counted
		 */
		passt_stats.clients_refused++;
		info_ratelimit(ctx->now, "refusing a second client (%lu so far)",
			       passt_stats.clients_refused);
		close(s);
		return;
	}
	if (ctx->c.vhost_user) {
		if (passt_vhost_attach(ctx, s) < 0)
			close(s);
		return;
	}
	tap_init(TAP_STREAM, s, false);
	if (passt_tap_add(ctx, s) < 0) {
		tap_detach();
		close(s);
		return;
	}
	passt_stats.clients++;
	info_ratelimit(ctx->now, "client connected");
	guest_attached(ctx);
}

/**
 * guest_attached() - Frames can reach the guest now: send what waited
 * @ctx:	Context
 */
static void guest_attached(struct ctx *ctx)
{
	const struct conf *c = &ctx->c;

	/* passt: ask for the guest, which may have kept its addresses from
	 * before we started and say nothing; its answer gives its MAC
	 * (tap_guest_learn()), without which frames go to the broadcast
	 * address, and its TCP drops them
	 */
	if (c->mode == MODE_PASST) {
		struct in_addr a4 = tap_guest.addr4_seen.s_addr ?
				    tap_guest.addr4_seen : c->ip4.addr;

		svc_send(arp_probe(c, a4, svc_out, sizeof(svc_out)));
		svc_send(ndp_ns_probe(c, &c->ip6.addr, svc_out,
				      sizeof(svc_out)));
		if (!IN6_IS_ADDR_UNSPECIFIED(&tap_guest.addr6_seen) &&
		    !IN6_ARE_ADDR_EQUAL(&tap_guest.addr6_seen, &c->ip6.addr))
			svc_send(ndp_ns_probe(c, &tap_guest.addr6_seen,
					      svc_out, sizeof(svc_out)));
		if (!IN6_IS_ADDR_UNSPECIFIED(&tap_guest.addr6_ll_seen))
			svc_send(ndp_ns_probe(c, &tap_guest.addr6_ll_seen,
					      svc_out, sizeof(svc_out)));
	}
	flow_guest_attached(ctx);
	ndp_ra_restart();
	if (ctx->c.ip6.enabled && !ctx->c.no_ra && !ctx->c.no_ndp)
		svc_send(ndp_ra_timer(&ctx->c, ctx->now, svc_out,
				      sizeof(svc_out)));
}

/**
 * passt_vhost_attach() - A vhost-user front-end connected (or was passed, -F)
 * @ctx:	Context
 * @s:		Its socket, non-blocking
 *
 * Return: 0, or -errno (the caller closes @s)
 */
int passt_vhost_attach(struct ctx *ctx, int s)
{
	int ret = vhost_start(ctx, s);

	if (ret < 0)
		return ret;
	passt_stats.clients++;
	info_ratelimit(ctx->now, "vhost-user front-end connected");
	return 0;
}

/**
 * vhost_cmd_handler() - Messages (or hang-up) from the vhost-user front-end
 * @ctx:	Context
 * @e:		epoll events
 */
static void vhost_cmd_handler(struct ctx *ctx, uint32_t e)
{
	bool was = tap_connected();
	int r = 0;

	if (e & EPOLLIN)
		r = vu_cmd_handler();
	if (r == 0 && (e & (EPOLLHUP | EPOLLERR)) && !(e & EPOLLIN))
		r = -EPIPE;
	if (r < 0 || vu_broken()) {
		passt_client_gone(ctx);
		return;
	}
	if (!was && tap_connected()) {
		info("vhost-user: queues running");
		guest_attached(ctx);
	}
}

/**
 * vhost_kick_handler() - The guest kicked a vhost-user queue
 * @ctx:	Context
 * @ref:	epoll reference: queue index in @data
 */
static void vhost_kick_handler(struct ctx *ctx, union epoll_ref ref)
{
	if (tap_backend() != TAP_VHOST || vu_kick_handler(ref.data) < 0)
		return;
	if (ref.data == 1)	/* transmitq: frames from the guest */
		passt_tap_handler(ctx, EPOLLIN);
}

/**
 * stats_periodic() - --stats DELAY: dump the counters if they changed and
 *		      DELAY seconds have passed since the last periodic dump
 * @ctx:	Context
 */
static void stats_periodic(const struct ctx *ctx)
{
	static int64_t last_ms;
	static uint64_t last_sum;
	uint64_t sum;

	if (!ctx->c.stats_delay_s ||
	    (last_ms && ctx->now - last_ms < ctx->c.stats_delay_s * 1000LL))
		return;

	/* Any event moves at least one of these */
	sum = tap_stats.rx_frames + tap_stats.tx_frames + tap_stats.tx_dropped +
	      flow_stats_sum() + passt_stats.frames_unhandled;
	if (sum == last_sum)
		return;
	last_sum = sum;
	last_ms = ctx->now;
	passt_stats_dump();
}

/**
 * ns_gone_check() - pasta: quit if the target namespace or process is gone
 * @ctx:	Context
 *
 * From housekeeping, and at once on an event of the watches of
 * pasta_watch_add()
 */
static void ns_gone_check(struct ctx *ctx)
{
	if (ctx->c.mode == MODE_PASTA && !ctx->c.no_netns_quit && !ctx->quit &&
	    (pasta_netns_gone(ctx) || pasta_target_gone(ctx))) {
		info("target namespace is gone, exiting");
		ctx->quit = true;
		ctx->exit_status = 0;
	}
}

/**
 * housekeeping() - Once a second: namespace gone?  "auto" ports changed?
 *		    Router advertisement due?  Counters due (--stats DELAY)?
 * @ctx:	Context
 */
static void housekeeping(struct ctx *ctx)
{
	ns_gone_check(ctx);
	ctl_timer(ctx);
	if (ctx->c.mode == MODE_PASTA && !ctx->quit)
		fwd_auto_scan(ctx);

	if (ctx->c.ip6.enabled && !ctx->c.no_ra && !ctx->c.no_ndp &&
	    tap_connected())
		svc_send(ndp_ra_timer(&ctx->c, ctx->now, svc_out,
				      sizeof(svc_out)));

	stats_periodic(ctx);
}

/**
 * passt_listeners_close() - Close every forwarded port's listening socket
 * @ctx:	Context
 *
 * At the start of the exit drain: a port stays bound no longer than we
 * accept connections on it.  Connections already accepted keep their own
 * sockets (SO_REUSEADDR, inherited from the listener, lets a new listener
 * bind next to them: socket(7)).  UDP flows replying through a closed
 * socket go with it.
 */
static void passt_listeners_close(struct ctx *ctx)
{
	unsigned i, k, m;

	for (i = 0; i < FWD_TBLS; i++) {
		for (k = 0; k < CONF_MAX_FWD_RULES; k++) {
			struct fwd_socks *l = fwd_socks_of((enum fwd_tbl)i, k);

			for (m = 0; m < l->n; m++) {
				if (i == FWD_TBL_U || i == FWD_TBL_UNS)
					udp_listen_closing(ctx, l->s[m].fd);
				close(l->s[m].fd);
			}
			l->n = 0;
		}
	}
	fwd_auto_close_all(ctx);
}

/**
 * passt_drain_step() - Asked to quit: go on draining, or stop now?
 * @ctx:	Context, @ctx->quit set
 *
 * The first call starts the drain (see the DOC comment above).
 *
 * Return: true to run the loop once more, false to leave it
 */
static bool passt_drain_step(struct ctx *ctx)
{
	int64_t t = (int64_t)ctx->c.drain_timeout_s * 1000;
	unsigned left;
	bool abort;

	ctx->now = now_ms();
	if (!ctx->draining) {
		passt_listeners_close(ctx);
		if (!t)
			return false;
		ctx->draining = true;
		sdnotify_stopping();
		ctx->drain_soft = ctx->now + t;
		ctx->drain_hard = ctx->drain_soft + t;
	}
	abort = ctx->now >= ctx->drain_soft;
	left = flow_drain(ctx, abort);
	if (!left)
		return false;
	if (ctx->now >= ctx->drain_hard) {
		info("exiting: %u connection(s) still open after %u s, reset",
		     left, 2 * ctx->c.drain_timeout_s);
		return false;
	}
	return true;
}

/**
 * passt_loop() - Run until told to quit
 * @ctx:	Context, with everything registered
 *
 * #syscalls epoll_wait
 * Return: exit status
 */
int passt_loop(struct ctx *ctx)
{
	struct epoll_event ev[EPOLL_EVENTS];
	int64_t next_hk = 0, spin_until_us = 0;

	/* The first round runs the timers: flows taken over at set-up
	 * (passt/restart.c) have deadlines already
	 */
	ctx->timer_next = 0;
	while (!ctx->quit_now) {
		int64_t now, wait = HOUSEKEEPING_MS;
		int n, i;

		if (ctx->quit && !passt_drain_step(ctx))
			break;
		now = now_ms();

		if (ctx->timer_next != INT64_MAX)
			wait = MIN(wait, MAX(ctx->timer_next - now, 0));
		if (next_hk)
			wait = MIN(wait, MAX(next_hk - now, 0));
		if (ctx->draining)
			wait = MIN(wait, 20);	/* poll what's left to drain */
		if (tcp_tap_waiting()) {
			if (!tap_tx_blocked())
				wait = 0;	/* their turn comes now */
			else if (tap_backend() == TAP_DEV)
				wait = MIN(wait, 1);	/* device refused */
		}		/* else the stream's EPOLLOUT wakes us */

		if (tap_rx_buffered())
			wait = 0;
		/* --busy-poll: no sleep (and no wake-up) while events came
		 * in the last busy_poll_us
		 */
		if (wait && spin_until_us && now_us() < spin_until_us)
			wait = 0;

		n = epoll_wait(ctx->epollfd, ev, EPOLL_EVENTS, (int)wait);
		if (n < 0 && errno != EINTR)
			die_perror("epoll_wait");
		ctx->now = now_ms();
		tap_tx_unblock();

		for (i = 0; i < n; i++) {
			union epoll_ref ref = { .u64 = ev[i].data.u64 };
			uint32_t e = ev[i].events;

			switch (ref.type) {
			case EPOLL_TYPE_TAP:
				/* Not for a client that went earlier in this batch */
				if ((int)ref.fd == tap_fd())
					passt_tap_handler(ctx, e);
				break;
			case EPOLL_TYPE_TAP_LISTEN:
				passt_listen_handler(ctx, ref);
				break;
			case EPOLL_TYPE_TCP_LISTEN:
				tcp_listen_handler(ctx, ref);
				break;
			case EPOLL_TYPE_UDP_LISTEN:
				udp_listen_handler(ctx, ref, e);
				break;
			case EPOLL_TYPE_SIGNAL: {
				unsigned usr1;

				usr1 = signals_handler(ctx, (int)ref.fd,
						       pasta_child_pid_get());
				while (usr1--)
					passt_stats_dump();
				break;
			}
			case EPOLL_TYPE_NS_HELPER:
				nsock_handler(ctx, e);
				break;
			case EPOLL_TYPE_CTL_LISTEN:
				ctl_listen_handler(ctx);
				break;
			case EPOLL_TYPE_CTL:
				ctl_handler(ctx, e);
				break;
			case EPOLL_TYPE_NS_WATCH:
				ns_gone_check(ctx);
				break;
			case EPOLL_TYPE_VHOST_CMD:
				if ((int)ref.fd == tap_fd())
					vhost_cmd_handler(ctx, e);
				break;
			case EPOLL_TYPE_VHOST_KICK:
				vhost_kick_handler(ctx, ref);
				break;
			case EPOLL_TYPE_VHOST_STATE:
				vu_state_handler();
				break;
			case EPOLL_TYPE_REPAIR_LISTEN:
				repair_listen_handler(ctx);
				break;
			case EPOLL_TYPE_REPAIR:
				repair_handler(ctx, e);
				break;
			case EPOLL_TYPE_RESTART_WAIT: {
				unsigned usr1 = restart_wait_handler(ctx);

				while (usr1--)
					passt_stats_dump();
				break;
			}
			case EPOLL_TYPE_FOLLOW_NL:
			case EPOLL_TYPE_FOLLOW_RESOLV:
				follow_handler(ctx, ref);
				break;
			default:	/* a flow's socket */
				flow_sock_event(ctx, ref, e);
				break;
			}
		}

		/* -c: after the batch, whose events may name listeners that
		 * a change closes
		 */
		ctl_process(ctx);

		/* Frames left in the stream buffer after a full batch */
		if (tap_rx_buffered())
			passt_tap_handler(ctx, EPOLLIN);

		if (ctx->now >= ctx->timer_next) {
			ctx->timer_next = INT64_MAX;
			nsock_refill();	/* namespace socket pools */
			flow_timer(ctx);
			follow_timer(ctx);	/* host changes settled? */
		}
		if (ctx->now >= next_hk) {
			housekeeping(ctx);
			next_hk = ctx->now + HOUSEKEEPING_MS;
		}

		if (tcp_tap_waiting() && !tap_tx_blocked())
			tcp_tap_resume(ctx);
		tap_flush();
		if (tap_backend() == TAP_VHOST && vu_broken())
			passt_client_gone(ctx);	/* a ring broke */
		passt_tap_epoll_update(ctx);
		flow_free_flush();
		/* --busy-poll: from the end of the handling, as passt.1 says */
		if (n > 0 && ctx->c.busy_poll_us)
			spin_until_us = now_us() + ctx->c.busy_poll_us;
	}

	/* What is still open is aborted, not complete: the host peers see a
	 * reset, not the end of the stream (RFC 9293 3.6, ABORT vs CLOSE)
	 */
	flow_abort_all(ctx);
	tap_flush();
	flow_free_flush();
	return ctx->exit_status;
}
