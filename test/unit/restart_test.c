// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/restart_test.c - Tests for passt/restart.c: the hand-over stream
 *
 * The expected bytes are written by hand from the layout documented in
 * passt/restart.h (big-endian fields, a 24-byte header, 4-byte record
 * headers), not produced by the encoder.  The parser is fed every
 * truncation and every single-byte corruption of a valid stream: it must
 * never read out of bounds (the sanitizer build), never hand a record to
 * the callback unless the whole stream passed, and never accept a field
 * out of the ranges RFC 7323 allows (window shift at most 14) or a
 * descriptor index outside the descriptors received, or twice.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../passt/restart.h"
#include "../../passt/tcp.h"

/* Header + one listener record: TCP, table 0 (-t), rule 3, host side,
 * port 7310, descriptor 0; one descriptor
 */
static const uint8_t listen1[] = {
	'P', 'A', 'S', 'T', 'A', 'H', 'O', '\n',
	0x00, 0x02,			/* version 2 */
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x0e,		/* 14 bytes of records */
	0x00, 0x00, 0x00, 0x01,		/* 1 descriptor */
	0x00, 0x00, 0x00, 0x01,		/* 1 record */
	0x04, 0x00, 0x00, 0x0a,		/* LISTEN, 10 bytes */
	0x06, 0x00, 0x03, 0x00,		/* TCP, table 0, rule 3, flags */
	0x1c, 0x8e,			/* port 7310 */
	0x00, 0x00, 0x00, 0x00,		/* fd 0 */
};

static uint8_t sbuf[8192];

/**
 * struct seen - What the callback got
 * @n:		Records
 * @rec:	The last one
 */
static struct seen {
	unsigned n;
	struct restart_rec rec;
} seen;

/**
 * count_cb() - Callback: count records, keep the last
 * @arg:	Unused
 * @r:		Record
 *
 * Return: 0
 */
static int count_cb(void *arg, const struct restart_rec *r)
{
	(void)arg;
	seen.n++;
	seen.rec = *r;
	return 0;
}

/**
 * range_cb() - Callback: every record handed over is within its ranges
 * @arg:	Descriptor count
 * @r:		Record
 *
 * Return: 0
 */
static int range_cb(void *arg, const struct restart_rec *r)
{
	uint32_t nfds = *(uint32_t *)arg;

	seen.n++;
	ck_assert_int_gt(r->type, 0);
	ck_assert_int_lt(r->type, RESTART_REC_COUNT);
	if (r->type == RESTART_REC_TCP) {
		ck_assert_uint_le(r->u.tcp.ws_from_tap, 14);
		ck_assert_uint_le(r->u.tcp.ws_to_tap, 14);
		ck_assert_uint_gt(r->u.tcp.mss_to_tap, 0);
		ck_assert_uint_lt(r->u.tcp.fd, nfds);
	}
	if (r->type == RESTART_REC_LISTEN)
		ck_assert_uint_lt(r->u.listen.fd, nfds);
	return 0;
}

/**
 * tcp_rec() - A TCP record: guest 198.51.100.2:40000 to 203.0.113.7:80,
 *	       established, window shifts 7 and 8, MSS 1460
 * @r:		Filled
 * @fd:		Descriptor index
 */
static void tcp_rec(struct restart_rec *r, uint32_t fd)
{
	memset(r, 0, sizeof(*r));
	r->type = RESTART_REC_TCP;
	inet_pton(AF_INET6, "::ffff:198.51.100.2", &r->u.tcp.gaddr);
	inet_pton(AF_INET6, "::ffff:203.0.113.7", &r->u.tcp.faddr);
	r->u.tcp.gport = 40000;
	r->u.tcp.fport = 80;
	r->u.tcp.events = 0x13;	/* TAP_SYN_RCVD SOCK_CONNECTED ESTABLISHED */
	r->u.tcp.flags = 1U << 7;		/* TFL_IPV4 */
	r->u.tcp.ws_from_tap = 7;
	r->u.tcp.ws_to_tap = 8;
	r->u.tcp.mss_to_tap = 1460;
	r->u.tcp.seq_ack_from_tap = 0x11223000;
	r->u.tcp.seq_to_tap = 0x11223344;
	r->u.tcp.seq_from_tap = 0xa0b0c0d0;
	r->u.tcp.orphan_until_ms = 0x0102030405060708LL;
	r->u.tcp.fd = fd;
}

/**
 * stream_make() - A stream: the guest side, a listener, two TCP records
 * @len:	Set: its length
 *
 * Return: descriptors it refers to (4)
 */
static uint32_t stream_make(size_t *len)
{
	struct restart_buf b = { .p = sbuf, .size = sizeof(sbuf) };
	int fds[8];
	struct restart_rec r;

	memset(&r, 0, sizeof(r));
	r.type = RESTART_REC_TAP;
	r.u.tap.kind = RESTART_TAP_DEV;
	r.u.tap.fd = restart_fd_add(&b, fds, 8, 10);
	restart_put(&b, &r);
	memset(&r, 0, sizeof(r));
	r.type = RESTART_REC_LISTEN;
	r.u.listen.proto = IPPROTO_TCP;
	r.u.listen.port = 7310;
	r.u.listen.fd = restart_fd_add(&b, fds, 8, 11);
	restart_put(&b, &r);
	tcp_rec(&r, restart_fd_add(&b, fds, 8, 12));
	restart_put(&b, &r);
	tcp_rec(&r, restart_fd_add(&b, fds, 8, 13));
	r.u.tcp.gport = 40001;
	restart_put(&b, &r);
	restart_hdr_put(&b, b.nfd);
	ck_assert_uint_le(b.len, b.size);
	*len = b.len;
	return b.nfd;
}

START_TEST(test_listen_layout)
{
	struct restart_buf b = { .p = sbuf, .size = sizeof(sbuf) };
	struct restart_rec r = { .type = RESTART_REC_LISTEN };
	int fds[1];

	r.u.listen.proto = IPPROTO_TCP;
	r.u.listen.tbl = 0;
	r.u.listen.rule = 3;
	r.u.listen.port = 7310;
	r.u.listen.fd = restart_fd_add(&b, fds, 1, 42);
	ck_assert_int_eq(fds[0], 42);
	restart_put(&b, &r);
	restart_hdr_put(&b, b.nfd);
	ck_assert_uint_eq(b.len, sizeof(listen1));
	ck_assert_mem_eq(sbuf, listen1, sizeof(listen1));
}
END_TEST

START_TEST(test_listen_parse)
{
	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(restart_parse(listen1, sizeof(listen1), 1, count_cb,
				       NULL), 0);
	ck_assert_uint_eq(seen.n, 1);
	ck_assert_int_eq(seen.rec.type, RESTART_REC_LISTEN);
	ck_assert_uint_eq(seen.rec.u.listen.port, 7310);
	ck_assert_uint_eq(seen.rec.u.listen.rule, 3);
	ck_assert(!seen.rec.u.listen.ns);
	/* the header says 1 descriptor: 2 received is a mismatch */
	ck_assert_int_eq(restart_parse(listen1, sizeof(listen1), 2, NULL,
				       NULL), -RESTART_E_LEN);
}
END_TEST

START_TEST(test_tcp_offsets)
{
	size_t len;
	const uint8_t *p;

	stream_make(&len);
	/* the third record: after the header, TAP (4 + 49), LISTEN (4 + 10) */
	p = sbuf + RESTART_HDR_LEN + 4 + RESTART_TAP_LEN + 4 +
	    RESTART_LISTEN_LEN;
	ck_assert_uint_eq(p[0], RESTART_REC_TCP);
	ck_assert_uint_eq((unsigned)p[2] << 8 | p[3], 122);
	p += 4;
	ck_assert_uint_eq(p[10], 0xff);			/* v4-mapped */
	ck_assert_uint_eq(p[12], 198);
	ck_assert_uint_eq((unsigned)p[32] << 8 | p[33], 40000);
	ck_assert_uint_eq((unsigned)p[34] << 8 | p[35], 80);
	ck_assert_uint_eq(p[44], 7);			/* ws_from_tap */
	ck_assert_uint_eq(p[45], 8);
	ck_assert_uint_eq((unsigned)p[46] << 8 | p[47], 1460);
	/* SND.UNA at 52, big-endian */
	ck_assert_uint_eq(p[52], 0x11);
	ck_assert_uint_eq(p[55], 0x00);
	ck_assert_uint_eq(p[110], 0x01);		/* orphan_until_ms */
	ck_assert_uint_eq(p[117], 0x08);
}
END_TEST

START_TEST(test_round_trip)
{
	struct restart_rec want;
	uint32_t nfds;
	size_t len;

	nfds = stream_make(&len);
	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(restart_parse(sbuf, len, nfds, count_cb, NULL), 0);
	ck_assert_uint_eq(seen.n, 4);
	tcp_rec(&want, 3);
	want.u.tcp.gport = 40001;
	ck_assert_mem_eq(&seen.rec.u.tcp, &want.u.tcp, sizeof(want.u.tcp));
}
END_TEST

/**
 * vu_rec() - A vhost-user device record: one region, both queues started
 * @r:		Filled
 * @b:		Stream the descriptor indices are taken from
 * @fds:	Descriptors (room for 8)
 */
static void vu_rec(struct restart_rec *r, struct restart_buf *b, int *fds)
{
	unsigned i;

	memset(r, 0, sizeof(*r));
	r->type = RESTART_REC_VU;
	r->u.vu.features = 0x0000000100008000ULL;  /* VERSION_1, MRG_RXBUF */
	r->u.vu.had_buffers = true;
	r->u.vu.nregions = 1;
	r->u.vu.r[0].gpa = 0x40000000;
	r->u.vu.r[0].size = 0x100000;
	r->u.vu.r[0].uva = 0x7f3400000000ULL;
	r->u.vu.r[0].off = 0x1000;
	r->u.vu.r[0].fd = (int)restart_fd_add(b, fds, 8, 20);
	for (i = 1; i < VU_REGIONS_MAX; i++)
		r->u.vu.r[i].fd = -1;
	for (i = 0; i < VU_QUEUES; i++) {
		struct vu_snap_queue *q = &r->u.vu.q[i];

		q->num = 256;
		q->desc = 0x7f3400000000ULL + i * 0x8000;
		q->avail = q->desc + 0x1000;
		q->used = q->desc + 0x2000;
		q->last_avail = (uint16_t)(0xfff0 + i);
		q->used_idx = (uint16_t)(0xffe0 + i);
		q->addr_set = q->enabled = q->started = true;
		q->kick = (int)restart_fd_add(b, fds, 8, 21 + 2 * (int)i);
		q->call = (int)restart_fd_add(b, fds, 8, 22 + 2 * (int)i);
		q->err = -1;
	}
}

START_TEST(test_vu_layout)
{
	struct restart_buf b = { .p = sbuf, .size = sizeof(sbuf) };
	struct restart_rec r;
	const uint8_t *p;
	int fds[8];

	vu_rec(&r, &b, fds);
	restart_put(&b, &r);
	restart_hdr_put(&b, b.nfd);
	ck_assert_uint_eq(b.nfd, 5);
	p = sbuf + RESTART_HDR_LEN;
	ck_assert_uint_eq(p[0], RESTART_REC_VU);
	ck_assert_uint_eq((unsigned)p[2] << 8 | p[3], 412);
	ck_assert_uint_eq(b.len, RESTART_HDR_LEN + 4 + 412);
	p += 4;
	ck_assert_uint_eq(p[3], 0x01);			/* features, bit 32 */
	ck_assert_uint_eq(p[6], 0x80);			/* bit 15 */
	ck_assert_uint_eq(p[16], 0x08);			/* had_buffers */
	ck_assert_uint_eq(p[17], 1);			/* one region */
	ck_assert_uint_eq(p[18 + 4], 0x40);		/* gpa */
	ck_assert_uint_eq(p[18 + 13], 0x10);		/* size 0x100000 */
	ck_assert_uint_eq(p[18 + 30], 0x10);		/* offset 0x1000 */
	ck_assert_uint_eq(p[18 + 35], 0);		/* region 0: fd 0 */
	ck_assert_uint_eq(p[54 + 32], 0xff);		/* region 1: none */
	ck_assert_uint_eq(p[54 + 35], 0xff);
	ck_assert_uint_eq((unsigned)p[308] << 8 | p[309], 256);	/* num */
	ck_assert_uint_eq((unsigned)p[342] << 8 | p[343], 0xfff0);
	ck_assert_uint_eq((unsigned)p[344] << 8 | p[345], 0xffe0);
	ck_assert_uint_eq(p[346], 0x07);	/* addresses, enabled, started */
	ck_assert_uint_eq(p[350], 1);			/* kick: fd 1 */
	ck_assert_uint_eq(p[354], 2);			/* call: fd 2 */
	ck_assert_uint_eq(p[355], 0xff);		/* no err fd */
	ck_assert_uint_eq((unsigned)p[359 + 36] << 8 | p[359 + 37], 0xfff1);
	ck_assert_uint_eq(p[359 + 44], 3);		/* queue 1 kick */

	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(restart_parse(sbuf, b.len, b.nfd, count_cb, NULL), 0);
	ck_assert_uint_eq(seen.n, 1);
	ck_assert_mem_eq(&seen.rec.u.vu, &r.u.vu, sizeof(r.u.vu));
}
END_TEST

START_TEST(test_vu_refusals)
{
	struct restart_buf b = { .p = sbuf, .size = sizeof(sbuf) };
	struct restart_rec r;
	int fds[8];

	/* a descriptor for a region beyond the count */
	vu_rec(&r, &b, fds);
	r.u.vu.r[1].fd = (int)restart_fd_add(&b, fds, 8, 30);
	restart_put(&b, &r);
	restart_hdr_put(&b, b.nfd);
	ck_assert_int_eq(restart_parse(sbuf, b.len, b.nfd, NULL, NULL),
			 -RESTART_E_FD);

	/* a started queue without its kick eventfd */
	memset(&b, 0, sizeof(b));
	b.p = sbuf;
	b.size = sizeof(sbuf);
	vu_rec(&r, &b, fds);
	r.u.vu.q[1].kick = -1;
	restart_put(&b, &r);
	restart_hdr_put(&b, b.nfd);
	ck_assert_int_eq(restart_parse(sbuf, b.len, b.nfd, NULL, NULL),
			 -RESTART_E_FD);

	/* nine regions */
	memset(&b, 0, sizeof(b));
	b.p = sbuf;
	b.size = sizeof(sbuf);
	vu_rec(&r, &b, fds);
	r.u.vu.nregions = 9;
	restart_put(&b, &r);
	restart_hdr_put(&b, b.nfd);
	ck_assert_int_eq(restart_parse(sbuf, b.len, b.nfd, NULL, NULL),
			 -RESTART_E_FIELD);
}
END_TEST

START_TEST(test_truncated)
{
	uint32_t nfds;
	size_t len, l;

	nfds = stream_make(&len);
	for (l = 0; l < len; l++) {
		uint8_t *copy = malloc(l ? l : 1);

		memcpy(copy, sbuf, l);
		if (l >= 16) {		/* a header that agrees with @l */
			uint32_t body = (uint32_t)(l >= RESTART_HDR_LEN ?
						   l - RESTART_HDR_LEN : 0);

			copy[12] = (uint8_t)(body >> 24);
			copy[13] = (uint8_t)(body >> 16);
			copy[14] = (uint8_t)(body >> 8);
			copy[15] = (uint8_t)body;
		}
		memset(&seen, 0, sizeof(seen));
		ck_assert_int_lt(restart_parse(copy, l, nfds, count_cb, NULL),
				 0);
		ck_assert_uint_eq(seen.n, 0);
		free(copy);
	}
}
END_TEST

START_TEST(test_every_byte_corrupted)
{
	uint32_t nfds;
	size_t len, i;
	unsigned v;

	nfds = stream_make(&len);
	for (i = 0; i < len; i++) {
		for (v = 0; v < 256; v += 17) {
			uint8_t *copy = malloc(len);

			memcpy(copy, sbuf, len);
			copy[i] ^= (uint8_t)(v | 1);
			memset(&seen, 0, sizeof(seen));
			if (restart_parse(copy, len, nfds, range_cb, &nfds))
				ck_assert_uint_eq(seen.n, 0);
			free(copy);
		}
	}
}
END_TEST

START_TEST(test_refusals)
{
	struct restart_buf b = { .p = sbuf, .size = sizeof(sbuf) };
	struct restart_rec r;
	uint8_t copy[sizeof(listen1) + 8];
	int fds[4];

	memcpy(copy, listen1, sizeof(listen1));
	copy[0] = 'X';
	ck_assert_int_eq(restart_parse(copy, sizeof(listen1), 1, NULL, NULL),
			 -RESTART_E_MAGIC);
	memcpy(copy, listen1, sizeof(listen1));
	copy[9] = 3;
	ck_assert_int_eq(restart_parse(copy, sizeof(listen1), 1, NULL, NULL),
			 -RESTART_E_VERSION);
	copy[9] = 0;
	ck_assert_int_eq(restart_parse(copy, sizeof(listen1), 1, NULL, NULL),
			 -RESTART_E_VERSION);
	copy[9] = 1;				/* a version 1 stream */
	ck_assert_int_eq(restart_parse(copy, sizeof(listen1), 1, NULL, NULL),
			 0);
	memcpy(copy, listen1, sizeof(listen1));
	copy[24] = 99;
	ck_assert_int_eq(restart_parse(copy, sizeof(listen1), 1, NULL, NULL),
			 -RESTART_E_TYPE);
	memcpy(copy, listen1, sizeof(listen1));
	copy[37] = 1;					/* fd 1 of 1 */
	ck_assert_int_eq(restart_parse(copy, sizeof(listen1), 1, NULL, NULL),
			 -RESTART_E_FD);
	memcpy(copy, listen1, sizeof(listen1));
	copy[28] = 17;				/* UDP is fine, 18 is not */
	ck_assert_int_eq(restart_parse(copy, sizeof(listen1), 1, NULL, NULL),
			 0);
	copy[28] = 18;
	ck_assert_int_eq(restart_parse(copy, sizeof(listen1), 1, NULL, NULL),
			 -RESTART_E_FIELD);

	/* A longer payload (a newer minor layout): extra bytes skipped */
	memcpy(copy, listen1, sizeof(listen1));
	copy[15] += 4;
	copy[27] += 4;
	memset(copy + sizeof(listen1), 0xee, 4);
	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(restart_parse(copy, sizeof(listen1) + 4, 1, count_cb,
				       NULL), 0);
	ck_assert_uint_eq(seen.rec.u.listen.port, 7310);

	/* The same descriptor in two records */
	tcp_rec(&r, restart_fd_add(&b, fds, 4, 5));
	restart_put(&b, &r);
	r.u.tcp.gport++;
	restart_put(&b, &r);
	restart_fd_add(&b, fds, 4, 6);
	restart_hdr_put(&b, b.nfd);
	ck_assert_int_eq(restart_parse(sbuf, b.len, b.nfd, NULL, NULL),
			 -RESTART_E_FD);

	/* RFC 7323 2.3: a window shift of 15 is refused */
	memset(&b, 0, sizeof(b));
	b.p = sbuf;
	b.size = sizeof(sbuf);
	tcp_rec(&r, restart_fd_add(&b, fds, 4, 5));
	r.u.tcp.ws_to_tap = 15;
	restart_put(&b, &r);
	restart_hdr_put(&b, b.nfd);
	ck_assert_int_eq(restart_parse(sbuf, b.len, b.nfd, NULL, NULL),
			 -RESTART_E_FIELD);
}
END_TEST

/**
 * udp_rec() - A UDP record: a peer 203.0.113.9:41000 answered through a
 *	       forwarded-port socket (UDP_TAP_IN: no socket of its own)
 * @r:		Filled
 */
static void udp_rec(struct restart_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->type = RESTART_REC_UDP;
	inet_pton(AF_INET6, "::ffff:198.51.100.2", &r->u.udp.gaddr);
	inet_pton(AF_INET6, "::ffff:203.0.113.9", &r->u.udp.faddr);
	r->u.udp.gport = 5301;
	r->u.udp.fport = 41000;
	r->u.udp.kind = 1;
	r->u.udp.flags = RESTART_UDP_GRO;
	r->u.udp.seen = 3;
	r->u.udp.last_active_ms = 0x0102030405060708LL;
	inet_pton(AF_INET6, "::ffff:198.51.100.1", &r->u.udp.local);
	r->u.udp.peer_family = AF_INET;
	r->u.udp.peer_port = 41000;
	inet_pton(AF_INET6, "::ffff:203.0.113.9", &r->u.udp.peer_addr);
	r->u.udp.listen_cookie = 0x1122334455667788ULL;
	r->u.udp.fd = RESTART_FD_NONE;
}

START_TEST(test_udp)
{
	struct restart_buf b = { .p = sbuf, .size = sizeof(sbuf) };
	struct restart_rec r;
	const uint8_t *p;

	/* Version 2: the record, at its offsets (passt/restart.h) */
	udp_rec(&r);
	restart_put(&b, &r);
	restart_hdr_put(&b, 0);
	ck_assert_uint_eq(sbuf[9], 2);
	ck_assert_uint_eq(b.len, RESTART_HDR_LEN + 4 + 112);
	p = sbuf + RESTART_HDR_LEN;
	ck_assert_uint_eq(p[0], RESTART_REC_UDP);
	ck_assert_uint_eq((unsigned)p[2] << 8 | p[3], 112);
	p += 4;
	ck_assert_uint_eq((unsigned)p[32] << 8 | p[33], 5301);
	ck_assert_uint_eq(p[36], 1);			/* kind */
	ck_assert_uint_eq(p[44], 0x01);			/* last_active_ms */
	ck_assert_uint_eq(p[51], 0x08);
	ck_assert_uint_eq((unsigned)p[72] << 8 | p[73], AF_INET);
	ck_assert_uint_eq((unsigned)p[74] << 8 | p[75], 41000);
	ck_assert_uint_eq(p[88], 203);			/* peer, v4-mapped */
	ck_assert_uint_eq(p[100], 0x11);		/* listen_cookie */
	ck_assert_uint_eq(p[107], 0x88);
	ck_assert_uint_eq(p[108], 0xff);		/* no descriptor */
	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(restart_parse(sbuf, b.len, 0, count_cb, NULL), 0);
	ck_assert_uint_eq(seen.n, 1);
	ck_assert_mem_eq(&seen.rec.u.udp, &r.u.udp, sizeof(r.u.udp));

	/* The same record in a version 1 stream: an unknown type */
	sbuf[9] = 1;
	ck_assert_int_eq(restart_parse(sbuf, b.len, 0, NULL, NULL),
			 -RESTART_E_TYPE);

	/* A stream for a new process that reads version 1 leaves it out */
	memset(&b, 0, sizeof(b));
	b.p = sbuf;
	b.size = sizeof(sbuf);
	b.ver = 1;
	ck_assert(!restart_buf_takes(&b, RESTART_REC_UDP));
	ck_assert(restart_buf_takes(&b, RESTART_REC_TCP));
	restart_put(&b, &r);
	restart_hdr_put(&b, 0);
	ck_assert_uint_eq(b.nrec, 0);
	ck_assert_uint_eq(sbuf[9], 1);
	ck_assert_int_eq(restart_parse(sbuf, b.len, 0, NULL, NULL), 0);

	/* An IPv4 peer whose address isn't IPv4-mapped */
	memset(&b, 0, sizeof(b));
	b.p = sbuf;
	b.size = sizeof(sbuf);
	inet_pton(AF_INET6, "2001:db8::9", &r.u.udp.peer_addr);
	restart_put(&b, &r);
	restart_hdr_put(&b, 0);
	ck_assert_int_eq(restart_parse(sbuf, b.len, 0, NULL, NULL),
			 -RESTART_E_FIELD);
}
END_TEST

START_TEST(test_tcp_events)
{
	struct restart_rec r;

	/* outbound, established (RFC 9293 3.5 handshake seen from us) */
	tcp_rec(&r, 0);
	ck_assert_int_eq(tcp_restart_check(&r.u.tcp), 0);
	/* inbound: accepted, SYN sent, established, then the guest's FIN */
	r.u.tcp.events = (1U << 2) | (1U << 3) | (1U << 4) | (1U << 5);
	ck_assert_int_eq(tcp_restart_check(&r.u.tcp), 0);
	/* both an outbound and an inbound opening: no such connection */
	r.u.tcp.events = (1U << 0) | (1U << 2) | (1U << 3) | (1U << 4);
	ck_assert_int_eq(tcp_restart_check(&r.u.tcp), -EINVAL);
	/* established with no handshake at all */
	r.u.tcp.events = 1U << 4;
	ck_assert_int_eq(tcp_restart_check(&r.u.tcp), -EINVAL);
	/* our FIN ACKed before it was due (no SOCK_EOF) */
	r.u.tcp.events = 0x13 | (1U << 8);
	ck_assert_int_eq(tcp_restart_check(&r.u.tcp), -EINVAL);
	/* an unknown event bit */
	r.u.tcp.events = 0x13 | (1U << 12);
	ck_assert_int_eq(tcp_restart_check(&r.u.tcp), -EINVAL);
}
END_TEST

/**
 * restart_suite() - The cases
 *
 * Return: suite
 */
static Suite *restart_suite(void)
{
	Suite *s = suite_create("restart");
	TCase *tc = tcase_create("stream");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_listen_layout);
	tcase_add_test(tc, test_listen_parse);
	tcase_add_test(tc, test_tcp_offsets);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_every_byte_corrupted);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_tcp_events);
	tcase_add_test(tc, test_udp);
	tcase_add_test(tc, test_vu_layout);
	tcase_add_test(tc, test_vu_refusals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(restart_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
