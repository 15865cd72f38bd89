// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/restart.c - Harness: the hitless restart's hand-over stream
 *
 * Input: a hand-over stream as the new process receives it from the old
 * one (passt/restart.h), header included.  The number of descriptors that
 * "arrived" with it is the header's count, up to RS_FDS (more: the stream
 * is offered with RS_FDS, which restart_parse() must refuse).
 *
 * Each input goes through what restart_take() and restart_adopt() do with
 * it: restart_parse() with the checks the new process makes before it
 * confirms (tcp_restart_check(), the splice module's check,
 * vu_snap_check(), room in the flow table), then, if the stream passed,
 * the adoption of every TCP and spliced connection around fresh
 * descriptors (TCP sockets, pipes) into a real flow table, with a few
 * timer rounds, and at the end every flow aborted (flow_abort_all()); a
 * vhost-user device record is resumed (vu_resume()) over memfds and
 * eventfds made for it, then detached.  Two properties are checked besides the
 * sanitizers': a stream that passed is written again with restart_put()
 * and restart_hdr_put() and must pass again and give the same records
 * (the writer and the reader share restart_payload(), this catches a
 * drift); and the checks never reach the callback with a descriptor index
 * out of range or used twice.  Sockets live in an empty namespace.
 */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "fuzz.h"
#include "../../passt/flow.h"
#include "../../passt/restart.h"
#include "../../passt/tcp.h"
#include "../../passt/flow_table.h"
#include "../../passt/udp.h"
#include "../../passt/udp_internal.h"
#include "../../passt/udp_restart.h"
#include "../../splice/splice.h"
#include "../../tap/tap.h"
#include "../../tap/vhost_user.h"

#define RS_FDS		64		/* descriptors offered at most */
#define RS_BUF		(1 << 16)	/* re-written stream, bytes */
#define RS_VU_MEM	(1 << 20)	/* largest guest memory file, bytes */

static struct ctx rs_ctx;
static int rs_sp[2];			/* tap stream: [0] ours, [1] "QEMU" */
static uint8_t rs_used[RS_FDS];		/* index seen by a callback */
static uint32_t rs_nfds;		/* descriptors offered */
static struct restart_rec rs_recs[1024];	/* max_len 2048: 512 at most */
static unsigned rs_nrec, rs_cmp;
static bool rs_cmp_bad;

/**
 * rs_setup() - Namespace, configuration, flow table, TCP, tap stream
 */
static void rs_setup(void)
{
	struct ctx *ctx = &rs_ctx;

	fuzz_isolate_net();
	fuzz_conf(&ctx->c);
	ctx->c.mode = MODE_PASST;
	ctx->ns_fd = ctx->host_ns_fd = -1;
	if (flow_init(ctx->c.flow_max))
		abort();
	splice_flow_register();
	udp_flow_register();
	udp_restart_register();
	ctx->epollfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->epollfd < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       rs_sp))
		abort();
	tcp_init(ctx);
	tap_init(TAP_STREAM, rs_sp[0], false);
	ctx->now = 1000;
	ctx->timer_next = INT64_MAX;
}

/**
 * rs_fd_seen() - A callback got a descriptor index: in range, once only
 * @idx:	Index, RESTART_FD_NONE allowed
 * @nfds:	Descriptors offered
 */
static void rs_fd_seen(uint32_t idx, uint32_t nfds)
{
	if (idx == RESTART_FD_NONE)
		return;
	if (idx >= nfds || rs_used[idx])
		abort();	/* restart_parse() let a bad index through */
	rs_used[idx] = 1;
}

/**
 * rs_check_cb() - What restart_check_cb() checks, and the indices
 * @arg:	Flow count, unsigned
 * @r:		Record
 *
 * Return: 0, or -RESTART_E_FIELD
 */
static int rs_check_cb(void *arg, const struct restart_rec *r)
{
	unsigned *flows = arg, i;

	switch (r->type) {
	case RESTART_REC_TAP:
		rs_fd_seen(r->u.tap.fd, rs_nfds);
		break;
	case RESTART_REC_NS:
	case RESTART_REC_CTL:
		rs_fd_seen(r->u.fd, rs_nfds);
		break;
	case RESTART_REC_LISTEN:
		rs_fd_seen(r->u.listen.fd, rs_nfds);
		break;
	case RESTART_REC_TCP:
		rs_fd_seen(r->u.tcp.fd, rs_nfds);
		if (tcp_restart_check(&r->u.tcp))
			return -RESTART_E_FIELD;
		(*flows)++;
		break;
	case RESTART_REC_SPLICE:
		for (i = 0; i < 6; i++)
			rs_fd_seen(r->u.splice.fd[i], rs_nfds);
		if (!flow_restart_check(FLOW_TCP_SPLICE, r))
			return -RESTART_E_FIELD;
		(*flows)++;
		break;
	case RESTART_REC_UDP:
		rs_fd_seen(r->u.udp.fd, rs_nfds);
		if (!flow_restart_check(FLOW_UDP, r))
			return -RESTART_E_FIELD;
		(*flows)++;
		break;
	case RESTART_REC_STREAM:
		if (r->u.bytes.len > RESTART_STREAM_CHUNK)
			abort();
		break;
	case RESTART_REC_VU:
		for (i = 0; i < VU_REGIONS_MAX; i++)
			rs_fd_seen((uint32_t)r->u.vu.r[i].fd, rs_nfds);
		for (i = 0; i < VU_QUEUES; i++) {
			rs_fd_seen((uint32_t)r->u.vu.q[i].kick, rs_nfds);
			rs_fd_seen((uint32_t)r->u.vu.q[i].call, rs_nfds);
			rs_fd_seen((uint32_t)r->u.vu.q[i].err, rs_nfds);
		}
		if (vu_snap_check(&r->u.vu))
			return -RESTART_E_FIELD;
		break;
	default:
		abort();	/* an unknown type reached the callback */
	}
	if (rs_nrec < sizeof(rs_recs) / sizeof(rs_recs[0]))
		memcpy(&rs_recs[rs_nrec++], r, sizeof(*r));
	return 0;
}

/**
 * rs_same_cb() - The re-written stream gives the records of the first
 * @arg:	Unused
 * @r:		Record
 *
 * Return: 0
 */
static int rs_same_cb(void *arg, const struct restart_rec *r)
{
	const struct restart_rec *o;

	(void)arg;
	if (rs_cmp >= rs_nrec) {
		rs_cmp_bad = true;
		return 0;
	}
	o = &rs_recs[rs_cmp++];
	if (o->type != r->type)
		rs_cmp_bad = true;
	else if (r->type == RESTART_REC_STREAM)
		rs_cmp_bad |= o->u.bytes.tx != r->u.bytes.tx ||
			      o->u.bytes.len != r->u.bytes.len ||
			      memcmp(o->u.bytes.p, r->u.bytes.p, r->u.bytes.len);
	else
		rs_cmp_bad |= !!memcmp(&o->u, &r->u, sizeof(o->u));
	return 0;
}

/**
 * rs_tcp_sock() - A fresh, unconnected TCP socket
 * @v4:		IPv4, else IPv6
 *
 * Return: the socket, or -1
 */
static int rs_tcp_sock(bool v4)
{
	return socket(v4 ? AF_INET : AF_INET6,
		      SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

/**
 * rs_vu_resume() - What vhost_resume() does with a RESTART_REC_VU record,
 *		    with fresh descriptors
 * @r:		Record, RESTART_REC_VU
 *
 * Each region gets a memfd of its offset + size, at most RS_VU_MEM bytes
 * (a larger region then doesn't fit its file: refused), each eventfd
 * index an eventfd; the front-end's socket is one end of a socket pair.
 * The device is detached again at the end.
 */
static void rs_vu_resume(const struct restart_rec *r)
{
	struct vu_snap v = r->u.vu;
	int sp[2];
	unsigned i;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       sp))
		return;
	for (i = 0; i < VU_REGIONS_MAX; i++) {
		uint64_t len = v.r[i].off + v.r[i].size;

		if (i >= v.nregions) {
			v.r[i].fd = -1;
			continue;
		}
		/* a region longer than its file: refused by vu_resume() */
		v.r[i].fd = memfd_create("rs", MFD_CLOEXEC);
		if (v.r[i].fd >= 0)
			(void)!ftruncate(v.r[i].fd,
					 (off_t)MIN(len, (uint64_t)RS_VU_MEM));
	}
	for (i = 0; i < VU_QUEUES; i++) {
		int *fd[3] = { &v.q[i].kick, &v.q[i].call, &v.q[i].err };
		unsigned k;

		for (k = 0; k < 3; k++)
			*fd[k] = (uint32_t)*fd[k] == RESTART_FD_NONE ? -1 :
				 eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	}
	if (!vu_resume(sp[0], &v))
		vu_detach();
	close(sp[0]);
	close(sp[1]);
}

/**
 * rs_adopt_cb() - What restart_adopt_cb() does, with fresh descriptors
 * @arg:	Context
 * @r:		Record
 *
 * Return: 0
 */
static int rs_adopt_cb(void *arg, const struct restart_rec *r)
{
	struct ctx *ctx = arg;
	int fds[6] = { -1, -1, -1, -1, -1, -1 }, i;

	if (r->type == RESTART_REC_VU) {
		rs_vu_resume(r);
	} else if (r->type == RESTART_REC_TCP) {
		tcp_restart_adopt(ctx, &r->u.tcp,
				  rs_tcp_sock(IN6_IS_ADDR_V4MAPPED(
						      &r->u.tcp.gaddr)));
	} else if (r->type == RESTART_REC_SPLICE) {
		for (i = 0; i < 2; i++)
			fds[i] = rs_tcp_sock(true);
		for (i = 0; i < 2; i++) {
			if (r->u.splice.fd[2 + 2 * i] != RESTART_FD_NONE &&
			    pipe2(fds + 2 + 2 * i, O_NONBLOCK | O_CLOEXEC))
				fds[2 + 2 * i] = fds[3 + 2 * i] = -1;
		}
		if (!flow_restart_adopt(ctx, FLOW_TCP_SPLICE, r, fds)) {
			for (i = 0; i < 6; i++)
				if (fds[i] >= 0)
					close(fds[i]);
		}
	} else if (r->type == RESTART_REC_UDP) {
		if (r->u.udp.fd != RESTART_FD_NONE)
			fds[0] = socket(IN6_IS_ADDR_V4MAPPED(&r->u.udp.gaddr) ?
					AF_INET : AF_INET6,
					SOCK_DGRAM | SOCK_NONBLOCK |
					SOCK_CLOEXEC, 0);
		if (!flow_restart_adopt(ctx, FLOW_UDP, r, fds) && fds[0] >= 0)
			close(fds[0]);
	}
	return 0;
}

/**
 * rs_drain() - Discard what the daemon wrote to the guest
 */
static void rs_drain(void)
{
	static uint8_t buf[65536];

	tap_flush();
	while (recv(rs_sp[1], buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/**
 * LLVMFuzzerTestOneInput() - One hand-over stream
 * @data:	Bytes
 * @size:	Length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t again[RS_BUF];
	static bool ready;
	struct ctx *ctx = &rs_ctx;
	struct restart_buf b = { .p = again, .size = sizeof(again) };
	unsigned flows = 0, i;
	uint32_t nfds = RS_FDS;
	int rc;

	if (!ready) {
		rs_setup();
		ready = true;
	}
	if (size >= RESTART_HDR_LEN) {
		uint32_t h = (uint32_t)data[16] << 24 |
			     (uint32_t)data[17] << 16 |
			     (uint32_t)data[18] << 8 | data[19];

		nfds = MIN(h, (uint32_t)RS_FDS);
	}

	rs_nfds = nfds;
	memset(rs_used, 0, sizeof(rs_used));
	rs_nrec = 0;
	rc = restart_parse(data, size, nfds, rs_check_cb, &flows);
	if (rc > 0 || rc <= -RESTART_E_COUNT)
		abort();	/* not one of the documented returns */
	if (rc < 0 || flows > flow_max())
		return 0;

	/* Written again, read again: the same records */
	for (i = 0; i < rs_nrec; i++)
		restart_put(&b, &rs_recs[i]);
	restart_hdr_put(&b, nfds);
	if (b.len <= b.size) {
		rs_cmp = 0;
		rs_cmp_bad = false;
		if (restart_parse(again, b.len, nfds, rs_same_cb, NULL) ||
		    rs_cmp != rs_nrec || rs_cmp_bad)
			abort();
	}

	/* Adopted as the new process would, then run for a while */
	ctx->now += 1000;
	restart_parse(data, size, nfds, rs_adopt_cb, ctx);
	for (i = 0; i < 4; i++) {
		fuzz_timers(ctx);
		rs_drain();
	}
	flow_abort_all(ctx);
	for (i = 0; i < flow_hwm(); i++) {	/* UDP has no abort */
		union flow *flow = flow_at(i);

		if (flow->f.state == FLOW_STATE_ACTIVE &&
		    flow->f.type == FLOW_UDP)
			udp_flow_close(ctx, &flow->udp, "end of input");
	}
	rs_drain();
	flow_free_flush();
	return 0;
}
