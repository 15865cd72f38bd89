// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/restart.c - Hitless restart: hand the live state to a new process
 *
 * DOC: Theory of Operation
 *
 * The running daemon is sandboxed (empty root, seccomp, no execve()), so it
 * can't start its successor.  The successor is started from outside, as a
 * service manager or podman would start any new version, with the same
 * options plus --restart-from PATH, PATH being the running one's -c socket.
 * Before anything else of its set-up (no namespace joined or configured, no
 * tap device, no listener bound), it connects there, reads the usual pesto
 * greeting (conf/wire.h), and sends the text request RESTART_REQ.  Text
 * requests are ours: upstream's pesto only ever sends binary tables, so
 * it never meets this.  The version in the request is the highest stream
 * version the new process reads; an old process that writes only a higher
 * one answers "error" and goes on.
 *
 * The old process (restart_give()), same UID only (SO_PEERCRED, as every -c
 * client), between two batches of events: refuses with "error\n..." (and
 * goes on untouched) what it can't hand over (a command it spawned and
 * waits for, more descriptors than fit, a vhost-user device in the middle
 * of a migration or of a message: vu_snapshot()); otherwise writes the
 * stream of passt/restart.h: the guest side (tap device, passt's stream
 * socket, or passt's vhost-user socket with the device's state: memory
 * regions and their files, ring addresses and indices, eventfds,
 * features, taken over by vu_resume() without a message to the
 * front-end), the guest's MAC and addresses, the namespace, the -c listener,
 * every forwarded-port listener, and one record per TCP connection (tap
 * side: the sequence and window state of struct tcp_conn; splice: the two
 * sockets and two pipes with their fill levels), then the descriptors
 * themselves (SCM_RIGHTS).  No TCP_REPAIR is needed: what the guest hasn't
 * acknowledged is still in the host socket's receive queue (we read with
 * MSG_PEEK, and SO_PEEK_OFF belongs to the socket, so it travels with it),
 * and what the guest sent and we acknowledged is in the socket's send
 * queue.  The old process then blocks (RESTART_TIMEOUT_S at most) until
 * the new one says 'K': meanwhile it reads nothing from any socket.  On
 * 'K' it exits 0 at once, without closing a flow: its descriptors are
 * copies of open file descriptions the new process holds, so no FIN or RST
 * leaves; the helper that removes socket files at exit is told to keep the
 * -c socket, which the new process now listens on.  Anything else (EOF,
 * timeout, 'N') and it resumes its loop as if nothing happened.
 *
 * The new process (restart_take()) parses and checks the whole stream
 * before it says 'K' (restart_parse(): bounds, lengths, versions, field
 * ranges, each descriptor index used once; then per flow what the TCP and
 * splice modules check, and room in the flow table); on failure it says
 * 'N', so the old one goes on, and exits with an error.  After 'K' it
 * waits for the old process to close the connection (its exit) and only
 * then (restart_adopt(), in place of the usual set-up) registers
 * everything in its own epoll instance: no two processes ever read from
 * the same socket.  TCP connections go on where they were; each gets an
 * ACK (a window update) and its timer.  Then set-up continues as usual
 * (isolation, seccomp, the loop).
 *
 * UDP flows (stream version 2) go over with their own sockets and what
 * they recorded of their peer; a flow that answers a peer of a forwarded
 * port names that port's socket by its SO_COOKIE, which both processes
 * see the same, as the new process has its own descriptor numbers.  A
 * flow whose forwarded-port socket isn't handed over ("auto" ports) is
 * closed by the new process; the next datagram makes it again.
 *
 * Not handed over: ICMP echo flows (made again by the next request),
 * idle pipes of the splice pool and idle sockets of the UDP pool,
 * passt-repair's socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "../lib/log.h"
#include "../lib/util.h"
#include "../conf/wire.h"
#include "ctx.h"
#include "restart.h"

const char *const restart_err_str[RESTART_E_COUNT] = {
	[RESTART_OK] = "no error",
	[RESTART_E_SHORT] = "stream truncated",
	[RESTART_E_MAGIC] = "not a hand-over stream",
	[RESTART_E_VERSION] = "unknown stream version",
	[RESTART_E_LEN] = "lengths don't add up",
	[RESTART_E_TYPE] = "unknown record type",
	[RESTART_E_FD] = "descriptor index out of range or used twice",
	[RESTART_E_FIELD] = "field out of range",
};

/* Known payload length of each record type, bytes */
static const uint16_t restart_rec_len[RESTART_REC_COUNT] = {
	[RESTART_REC_TAP] = RESTART_TAP_LEN,
	[RESTART_REC_NS] = RESTART_FD_LEN,
	[RESTART_REC_CTL] = RESTART_FD_LEN,
	[RESTART_REC_LISTEN] = RESTART_LISTEN_LEN,
	[RESTART_REC_TCP] = RESTART_TCP_LEN,
	[RESTART_REC_SPLICE] = RESTART_SPLICE_LEN,
	[RESTART_REC_STREAM] = RESTART_STREAM_MIN,
	[RESTART_REC_VU] = RESTART_VU_LEN,
	[RESTART_REC_UDP] = RESTART_UDP_LEN,
};

/**
 * restart_rec_version() - The stream version that brought a record type
 * @type:	enum restart_rec_type
 *
 * Return: 2 for RESTART_REC_UDP, 1 for the others
 */
static uint16_t restart_rec_version(uint8_t type)
{
	return type == RESTART_REC_UDP ? 2 : 1;
}

/**
 * restart_buf_takes() - Does the stream being written carry a record type?
 * @b:		Stream
 * @type:	enum restart_rec_type
 *
 * For the modules' save functions: a record the version can't carry is
 * left out whole, with its descriptors.
 *
 * Return: true if @b's version has @type
 */
bool restart_buf_takes(const struct restart_buf *b, uint8_t type)
{
	return restart_rec_version(type) <= (b->ver ? b->ver : RESTART_VERSION);
}

/**
 * struct restart_cur - A cursor over a payload being read or written
 * @p:		Payload start
 * @len:	Its length, bytes
 * @off:	Current offset (past @len: a write or read out of bounds)
 */
struct restart_cur {
	uint8_t *p;
	size_t len;
	size_t off;
};

/**
 * cur_put() - Write a big-endian unsigned integer
 * @c:		Cursor
 * @v:		Value
 * @n:		Size, bytes (1 to 8)
 */
static void cur_put(struct restart_cur *c, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++, c->off++) {
		if (c->off < c->len)
			c->p[c->off] = (uint8_t)(v >> (8 * (n - 1 - i)));
	}
}

/**
 * cur_get() - Read a big-endian unsigned integer
 * @c:		Cursor
 * @n:		Size, bytes (1 to 8)
 *
 * Return: the value, 0 past the end (then @c->off > @c->len)
 */
static uint64_t cur_get(struct restart_cur *c, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++, c->off++) {
		v <<= 8;
		if (c->off < c->len)
			v |= c->p[c->off];
	}
	return v;
}

/**
 * cur_bytes() - Copy bytes in (@in) or out (@out) at the cursor
 * @c:		Cursor
 * @out:	Destination when reading, NULL when writing
 * @in:		Source when writing, NULL when reading
 * @n:		Bytes
 */
static void cur_bytes(struct restart_cur *c, void *out, const void *in,
		      size_t n)
{
	if (c->off + n <= c->len) {
		if (in)
			memcpy(c->p + c->off, in, n);
		else
			memcpy(out, c->p + c->off, n);
	} else if (out) {
		memset(out, 0, n);
	}
	c->off += n;
}

/**
 * restart_fd_add() - Queue a descriptor to send, get its index
 * @b:		Stream being written
 * @fds:	Descriptors to send, in index order
 * @max:	Room in @fds
 * @fd:		Descriptor, or -1
 *
 * Return: its index, RESTART_FD_NONE for -1; past @max the count still
 *	   grows, so that the caller sees the stream didn't fit
 */
uint32_t restart_fd_add(struct restart_buf *b, int *fds, size_t max, int fd)
{
	if (fd < 0)
		return RESTART_FD_NONE;
	if (b->nfd < max)
		fds[b->nfd] = fd;
	return b->nfd++;
}

/**
 * restart_payload() - Write or read the payload of a record
 * @c:		Cursor on the payload
 * @r:		Record: read from when @get is false, filled when true
 * @get:	Read (true) or write (false)
 *
 * One function for both ways, so that the layouts can't drift apart: each
 * field goes through RW() in order.
 */
static void restart_payload(struct restart_cur *c, struct restart_rec *r,
			    bool get)
{
#define RW(field, n) do {						\
		if (get)						\
			(field) = (__typeof__(field))cur_get(c, n);	\
		else							\
			cur_put(c, (uint64_t)(field), n);		\
	} while (0)
#define RWB(ptr, n)	cur_bytes(c, get ? (void *)(ptr) : NULL,	\
				  get ? NULL : (const void *)(ptr), n)
	unsigned i;

	switch (r->type) {
	case RESTART_REC_TAP: {
		struct restart_tap *t = &r->u.tap;

		RW(t->kind, 1);
		RW(t->vnet, 1);
		RW(t->fd, 4);
		RWB(t->mac, 6);
		RW(t->mac_set, 1);
		RWB(&t->addr4, 4);
		RWB(&t->addr6, 16);
		RWB(&t->addr6_ll, 16);
		break;
	}
	case RESTART_REC_NS:
	case RESTART_REC_CTL:
		RW(r->u.fd, 4);
		break;
	case RESTART_REC_LISTEN: {
		struct restart_listen *l = &r->u.listen;
		uint8_t bits = (uint8_t)((l->ns ? 1 : 0) | (l->dyn ? 2 : 0));

		RW(l->proto, 1);
		RW(l->tbl, 1);
		RW(l->rule, 1);
		RW(bits, 1);
		RW(l->port, 2);
		RW(l->fd, 4);
		if (get) {
			l->ns = bits & 1;
			l->dyn = bits & 2;
		}
		break;
	}
	case RESTART_REC_TCP: {
		struct restart_tcp *t = &r->u.tcp;

		RWB(&t->gaddr, 16);
		RWB(&t->faddr, 16);
		RW(t->gport, 2);
		RW(t->fport, 2);
		RW(t->events, 2);
		RW(t->flags, 4);
		RW(t->reader, 1);
		RW(t->retrans, 1);
		RW(t->ws_from_tap, 1);
		RW(t->ws_to_tap, 1);
		RW(t->mss_to_tap, 2);
		RW(t->iss_to_tap, 4);
		RW(t->seq_ack_from_tap, 4);
		RW(t->seq_to_tap, 4);
		RW(t->seq_max_to_tap, 4);
		RW(t->seq_fin_to_tap, 4);
		RW(t->seq_recover_to_tap, 4);
		RW(t->wnd_from_tap, 4);
		RW(t->wnd_from_tap_max, 4);
		RW(t->wnd_from_tap_last_unscaled, 2);
		RW(t->seq_from_tap, 4);
		RW(t->seq_wnd_edge_to_tap, 4);
		RW(t->wnd_to_tap, 4);
		RW(t->rto_ms, 4);
		RW(t->srtt_ms, 4);
		RW(t->rttvar_ms, 4);
		RW(t->sock_sndbuf, 4);
		RW(t->orphan_until_ms, 8);
		RW(t->fd, 4);
		break;
	}
	case RESTART_REC_SPLICE: {
		struct restart_splice *s = &r->u.splice;

		RW(s->events, 1);
		RW(s->flags, 1);
		RW(s->port, 2);
		RW(s->to_port, 2);
		RW(s->pipe_used[0], 4);
		RW(s->pipe_used[1], 4);
		RW(s->deadline_ms, 8);
		for (i = 0; i < 6; i++)
			RW(s->fd[i], 4);
		break;
	}
	case RESTART_REC_UDP: {
		struct restart_udp *u = &r->u.udp;

		RWB(&u->gaddr, 16);
		RWB(&u->faddr, 16);
		RW(u->gport, 2);
		RW(u->fport, 2);
		RW(u->kind, 1);
		RW(u->flags, 1);
		RW(u->seen, 1);
		RW(u->ttl, 1);
		RW(u->last_len, 2);
		RW(u->mcast_port, 2);
		RW(u->last_active_ms, 8);
		RWB(&u->local, 16);
		RW(u->local_ifindex, 4);
		RW(u->peer_family, 2);
		RW(u->peer_port, 2);
		RWB(&u->peer_addr, 16);
		RW(u->peer_flowinfo, 4);
		RW(u->peer_scope, 4);
		RW(u->listen_cookie, 8);
		RW(u->fd, 4);
		break;
	}
	case RESTART_REC_STREAM: {
		struct restart_bytes *y = &r->u.bytes;

		RW(y->tx, 1);
		if (get) {		/* the rest of the payload */
			y->p = c->p + c->off;
			y->len = c->len > c->off ? c->len - c->off : 0;
			c->off += y->len;
		} else {
			cur_bytes(c, NULL, y->p, y->len);
		}
		break;
	}
	case RESTART_REC_VU: {
		struct vu_snap *v = &r->u.vu;
		uint8_t bits = (uint8_t)((v->rx_full ? 1 : 0) |
					 (v->tso_off ? 2 : 0) |
					 (v->uso_off ? 4 : 0) |
					 (v->had_buffers ? 8 : 0));

		RW(v->features, 8);
		RW(v->protocol, 8);
		RW(bits, 1);
		RW(v->nregions, 1);
		if (get) {
			v->rx_full = bits & 1;
			v->tso_off = bits & 2;
			v->uso_off = bits & 4;
			v->had_buffers = bits & 8;
		}
		for (i = 0; i < VU_REGIONS_MAX; i++) {
			struct vu_snap_region *g = &v->r[i];
			uint32_t fd = (uint32_t)g->fd;

			RW(g->gpa, 8);
			RW(g->size, 8);
			RW(g->uva, 8);
			RW(g->off, 8);
			RW(fd, 4);
			if (get)
				g->fd = (int)fd;
		}
		for (i = 0; i < VU_QUEUES; i++) {
			struct vu_snap_queue *q = &v->q[i];
			uint32_t fd[3] = { (uint32_t)q->kick, (uint32_t)q->call,
					   (uint32_t)q->err };
			uint8_t qb = (uint8_t)((q->addr_set ? 1 : 0) |
					       (q->enabled ? 2 : 0) |
					       (q->started ? 4 : 0) |
					       (q->log_used ? 8 : 0));
			unsigned k;

			RW(q->num, 4);
			RW(q->desc, 8);
			RW(q->avail, 8);
			RW(q->used, 8);
			RW(q->log_gpa, 8);
			RW(q->last_avail, 2);
			RW(q->used_idx, 2);
			RW(qb, 1);
			for (k = 0; k < 3; k++)
				RW(fd[k], 4);
			if (get) {
				q->addr_set = qb & 1;
				q->enabled = qb & 2;
				q->started = qb & 4;
				q->log_used = qb & 8;
				q->kick = (int)fd[0];
				q->call = (int)fd[1];
				q->err = (int)fd[2];
			}
		}
		break;
	}
	default:
		break;
	}
#undef RW
#undef RWB
}

/**
 * restart_put() - Append a record to a stream
 * @b:		Stream, header room (RESTART_HDR_LEN) kept at its start
 * @r:		Record
 *
 * Past the end of the buffer only @b->len grows: the caller checks it.  A
 * record of a later version than @b's is left out (restart_buf_takes()).
 */
void restart_put(struct restart_buf *b, const struct restart_rec *r)
{
	uint16_t plen = restart_rec_len[r->type];
	struct restart_cur c = { .p = b->p, .len = b->size };
	struct restart_rec copy = *r;

	if (!restart_buf_takes(b, r->type))
		return;
	if (r->type == RESTART_REC_STREAM) {	/* the caller splits */
		copy.u.bytes.len = MIN(r->u.bytes.len,
				       (size_t)RESTART_STREAM_CHUNK);
		plen = (uint16_t)(1 + copy.u.bytes.len);
	}

	if (b->len < RESTART_HDR_LEN)
		b->len = RESTART_HDR_LEN;
	c.off = b->len;
	cur_put(&c, r->type, 1);
	cur_put(&c, 0, 1);
	cur_put(&c, plen, 2);
	if (c.off + plen <= b->size) {
		struct restart_cur pc = { .p = b->p + c.off, .len = plen };

		restart_payload(&pc, &copy, false);
	}
	b->len = c.off + plen;
	b->nrec++;
}

/**
 * restart_hdr_put() - Write the header, once all records are in
 * @b:		Stream
 * @nfds:	Descriptors that follow the records
 */
void restart_hdr_put(struct restart_buf *b, uint32_t nfds)
{
	struct restart_cur c = { .p = b->p, .len = b->size };

	if (b->len < RESTART_HDR_LEN)
		b->len = RESTART_HDR_LEN;
	cur_bytes(&c, NULL, RESTART_MAGIC, 8);
	cur_put(&c, b->ver ? b->ver : RESTART_VERSION, 2);
	cur_put(&c, 0, 2);
	cur_put(&c, b->len - RESTART_HDR_LEN, 4);
	cur_put(&c, nfds, 4);
	cur_put(&c, b->nrec, 4);
}

/**
 * restart_fd_check() - A descriptor index of a record: in range, used once
 * @fd:		Index
 * @nfds:	Descriptors in the stream
 * @used:	Bitmap of indices seen, @nfds bits
 * @none_ok:	RESTART_FD_NONE is allowed here
 *
 * Return: 0, or -RESTART_E_FD
 */
static int restart_fd_check(uint32_t fd, uint32_t nfds, uint8_t *used,
			    bool none_ok)
{
	if (fd == RESTART_FD_NONE && none_ok)
		return 0;
	if (fd >= nfds || (used[fd / 8] & (1U << (fd % 8))))
		return -RESTART_E_FD;
	used[fd / 8] |= (uint8_t)(1U << (fd % 8));
	return 0;
}

/**
 * restart_rec_check() - Ranges of the fields of a decoded record
 * @r:		Record
 * @nfds:	Descriptors in the stream
 * @used:	Bitmap of descriptor indices seen so far
 *
 * What each field may hold on its own: whether a TCP connection's events
 * make sense together is for the TCP module (tcp_restart_check()).
 *
 * Return: 0, or -RESTART_E_FD, -RESTART_E_FIELD
 */
static int restart_rec_check(const struct restart_rec *r, uint32_t nfds,
			     uint8_t *used)
{
	unsigned i;
	int rc;

	switch (r->type) {
	case RESTART_REC_TAP:
		if (r->u.tap.kind > RESTART_TAP_VHOST)
			return -RESTART_E_FIELD;
		return restart_fd_check(r->u.tap.fd, nfds, used,
					r->u.tap.kind == RESTART_TAP_NONE);
	case RESTART_REC_NS:
	case RESTART_REC_CTL:
		return restart_fd_check(r->u.fd, nfds, used, false);
	case RESTART_REC_LISTEN:
		if ((r->u.listen.proto != IPPROTO_TCP &&
		     r->u.listen.proto != IPPROTO_UDP) || r->u.listen.tbl > 3)
			return -RESTART_E_FIELD;
		return restart_fd_check(r->u.listen.fd, nfds, used, false);
	case RESTART_REC_TCP: {
		const struct restart_tcp *t = &r->u.tcp;

		/* RFC 7323 2.3: shift at most 14; an MSS of 0 sends nothing */
		if (t->ws_from_tap > 14 || t->ws_to_tap > 14 ||
		    !t->mss_to_tap || !t->events ||
		    IN6_IS_ADDR_V4MAPPED(&t->gaddr) !=
		    IN6_IS_ADDR_V4MAPPED(&t->faddr))
			return -RESTART_E_FIELD;
		return restart_fd_check(t->fd, nfds, used, false);
	}
	case RESTART_REC_STREAM:
		return r->u.bytes.len <= RESTART_STREAM_CHUNK ? 0 :
		       -RESTART_E_FIELD;
	case RESTART_REC_UDP: {
		const struct restart_udp *u = &r->u.udp;
		bool v4 = IN6_IS_ADDR_V4MAPPED(&u->gaddr);

		/* what the UDP module checks: udp_restart_check() */
		if (v4 != IN6_IS_ADDR_V4MAPPED(&u->faddr) ||
		    (u->peer_family && u->peer_family != AF_INET &&
		     u->peer_family != AF_INET6) ||
		    (u->peer_family == AF_INET &&
		     !IN6_IS_ADDR_V4MAPPED(&u->peer_addr)))
			return -RESTART_E_FIELD;
		return restart_fd_check(u->fd, nfds, used, true);
	}
	case RESTART_REC_VU: {
		const struct vu_snap *v = &r->u.vu;

		if (v->nregions > VU_REGIONS_MAX)
			return -RESTART_E_FIELD;
		for (i = 0; i < VU_REGIONS_MAX; i++) {
			/* a file for each region in use, none beyond */
			if (i >= v->nregions) {
				if ((uint32_t)v->r[i].fd != RESTART_FD_NONE)
					return -RESTART_E_FD;
				continue;
			}
			if ((rc = restart_fd_check((uint32_t)v->r[i].fd, nfds,
						   used, false)))
				return rc;
		}
		for (i = 0; i < VU_QUEUES; i++) {
			const struct vu_snap_queue *q = &v->q[i];

			if ((rc = restart_fd_check((uint32_t)q->kick, nfds,
						   used, !q->started)) ||
			    (rc = restart_fd_check((uint32_t)q->call, nfds,
						   used, true)) ||
			    (rc = restart_fd_check((uint32_t)q->err, nfds,
						   used, true)))
				return rc;
		}
		return 0;
	}
	case RESTART_REC_SPLICE: {
		const struct restart_splice *s = &r->u.splice;

		for (i = 0; i < 6; i++) {
			/* sockets always; a pipe's two ends both or none */
			bool none_ok = i >= 2 && ((s->fd[i] == RESTART_FD_NONE) ==
						  (s->fd[i ^ 1] ==
						   RESTART_FD_NONE));

			if ((rc = restart_fd_check(s->fd[i], nfds, used,
						   none_ok)))
				return rc;
		}
		return 0;
	}
	default:
		return -RESTART_E_TYPE;
	}
}

#define RESTART_FDS_MAX		(1U << 20)	/* descriptors in a stream */

/**
 * restart_parse() - Check a whole stream, hand each record to a callback
 * @p:		Stream: header and records
 * @len:	Its length, bytes
 * @nfds:	Descriptors received with it
 * @cb:		Called per record once all of them passed the checks; a
 *		negative return stops the walk and is returned.  NULL: check
 *		only
 * @arg:	Passed to @cb
 *
 * Hostile input: every length is checked against what is left, every
 * record against its type's known length (longer ones: the extra bytes
 * are skipped), every descriptor index against @nfds and against reuse.
 * Nothing reaches @cb unless the whole stream passed.
 *
 * Return: 0, -RESTART_E_* if the stream is refused, or what @cb returned
 */
int restart_parse(const uint8_t *p, size_t len, uint32_t nfds,
		  int (*cb)(void *arg, const struct restart_rec *r),
		  void *arg)
{
	static uint8_t used[RESTART_FDS_MAX / 8];
	struct restart_cur c = { .p = (uint8_t *)(uintptr_t)p, .len = len };
	uint32_t body, nhdr, nrec, i;
	size_t start;
	uint8_t magic[8];
	uint16_t ver;
	int pass, rc;

	if (len < RESTART_HDR_LEN)
		return -RESTART_E_SHORT;
	cur_bytes(&c, magic, NULL, 8);
	if (memcmp(magic, RESTART_MAGIC, 8))
		return -RESTART_E_MAGIC;
	ver = (uint16_t)cur_get(&c, 2);
	if (ver < RESTART_VERSION_MIN || ver > RESTART_VERSION)
		return -RESTART_E_VERSION;
	cur_get(&c, 2);
	body = (uint32_t)cur_get(&c, 4);
	nhdr = (uint32_t)cur_get(&c, 4);
	nrec = (uint32_t)cur_get(&c, 4);
	if (body != len - RESTART_HDR_LEN || nhdr != nfds ||
	    nfds > RESTART_FDS_MAX)
		return -RESTART_E_LEN;
	start = c.off;

	for (pass = 0; pass < 2; pass++) {
		if (pass && !cb)
			break;
		memset(used, 0, (nfds + 7) / 8);
		c.off = start;
		for (i = 0; i < nrec; i++) {
			struct restart_rec r = { 0 };
			struct restart_cur pc;
			uint16_t plen;

			if (len - c.off < 4)
				return -RESTART_E_SHORT;
			r.type = (uint8_t)cur_get(&c, 1);
			cur_get(&c, 1);
			plen = (uint16_t)cur_get(&c, 2);
			if (len - c.off < plen)
				return -RESTART_E_SHORT;
			if (!r.type || r.type >= RESTART_REC_COUNT ||
			    restart_rec_version(r.type) > ver)
				return -RESTART_E_TYPE;
			if (plen < restart_rec_len[r.type])
				return -RESTART_E_SHORT;
			pc.p = (uint8_t *)(uintptr_t)p + c.off;
			pc.len = plen;
			pc.off = 0;
			restart_payload(&pc, &r, true);
			c.off += plen;
			if ((rc = restart_rec_check(&r, nfds, used)))
				return rc;
			if (pass && (rc = cb(arg, &r)) < 0)
				return rc;
		}
		if (c.off != len)
			return -RESTART_E_LEN;
	}
	return 0;
}

/**
 * restart_handover_req() - Is a -c client's input our hand-over request?
 * @in:		What the client sent so far
 * @len:	Bytes
 *
 * Return: true if it starts with "handover " and holds a whole line (the
 *	   version is for restart_give() to judge)
 */
bool restart_handover_req(const uint8_t *in, size_t len)
{
	return len >= 9 && !memcmp(in, "handover ", 9) &&
	       memchr(in, '\n', len);
}
