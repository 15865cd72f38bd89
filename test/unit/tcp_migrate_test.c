// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/tcp_migrate_test.c - Tests for passt/tcp_migrate.c: TCP records
 *
 * The expected bytes are written by hand from upstream passt's structs
 * (struct tcp_tap_transfer and struct tcp_tap_transfer_ext in its
 * tcp_conn.h, packed; struct flowside in its flow.h; the htonl()/htons()
 * in its tcp.c tcp_flow_migrate_source() and
 * tcp_flow_migrate_source_ext()): pif[2],
 * two flowsides {oaddr[16], eaddr[16], oport, eport in host order}, then
 * u8 retries, ws_from_tap, ws_to_tap, events, be32 tap_mss, be32 sndbuf,
 * u8 flags, seq_dup_ack_approx, be16 wnd_from_tap, wnd_to_tap, be32 x5
 * sequences: 112 bytes; and twelve be32 then four u8: 52 bytes.  The
 * decoders get every single-byte corruption of a valid record, and must
 * never accept a value outside the ranges RFC 7323 and Linux allow.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../passt/tcp_mig_flows.h"
#include "../../passt/tcp_migrate.h"

/* A connection the guest 198.51.100.2:40000 opened to 203.0.113.7:80
 * (tap side: initiating), our host socket 192.0.2.1:40000 -> 203.0.113.7:80.
 * ESTABLISHED | SOCK_FIN_RCVD, ACK_FROM_TAP_DUE, MSS 1460, ws 7 and 8,
 * sndbuf 87040 (340 << 8), windows 502 and 256 (unscaled).
 */
static const uint8_t flow4[TCP_MIG_FLOW_LEN] = {
	0x02, 0x01,					/* pif: tap, host */
	/* side[0]: oaddr 203.0.113.7, eaddr 198.51.100.2, 80, 40000 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 203, 0, 113, 7,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 51, 100, 2,
#if __BYTE_ORDER == __LITTLE_ENDIAN
	0x50, 0x00, 0x40, 0x9c,
#else
	0x00, 0x50, 0x9c, 0x40,
#endif
	/* side[1]: oaddr 192.0.2.1, eaddr 203.0.113.7, 40000, 80 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 203, 0, 113, 7,
#if __BYTE_ORDER == __LITTLE_ENDIAN
	0x40, 0x9c, 0x50, 0x00,
#else
	0x9c, 0x40, 0x00, 0x50,
#endif
	0x00, 0x07, 0x08, 0x0c,				/* retries ws ws ev */
	0x00, 0x00, 0x05, 0xb4,				/* tap_mss 1460 */
	0x00, 0x00, 0x01, 0x54,				/* sndbuf 340 */
	0x10, 0x34,					/* flags, dup_ack */
	0x01, 0xf6, 0x01, 0x00,				/* wnd 502, 256 */
	0x11, 0x22, 0x33, 0x44,				/* seq_to_tap */
	0x11, 0x22, 0x30, 0x00,				/* seq_ack_from_tap */
	0xa0, 0xb0, 0xc0, 0xd0,				/* seq_from_tap */
	0xa0, 0xb0, 0xc0, 0xd0,				/* seq_ack_to_tap */
	0xa0, 0xb0, 0x00, 0x01,				/* seq_init_from_tap */
};

/* FIN-WAIT-1, sndq 5000 (notsent 1000), rcvq 300, MSS 1448, timestamps,
 * SACK and window scaling, shifts 7 and 9
 */
static const uint8_t ext1[TCP_MIG_EXT_LEN] = {
	0x01, 0x02, 0x03, 0x04,		/* seq_snd */
	0xff, 0xff, 0xff, 0xf0,		/* seq_rcv */
	0x00, 0x00, 0x13, 0x88,		/* sndq 5000 */
	0x00, 0x00, 0x03, 0xe8,		/* notsent 1000 */
	0x00, 0x00, 0x01, 0x2c,		/* rcvq 300 */
	0x00, 0x00, 0x05, 0xa8,		/* mss 1448 */
	0xde, 0xad, 0xbe, 0xef,		/* timestamp */
	0x01, 0x02, 0x03, 0x00,		/* snd_wl1 */
	0x00, 0x01, 0x00, 0x00,		/* snd_wnd 65536 */
	0x00, 0x02, 0x00, 0x00,		/* max_window */
	0x00, 0x03, 0x00, 0x00,		/* rcv_wnd */
	0xff, 0xff, 0xff, 0x00,		/* rcv_wup */
	0x07, 0x09, 0x04, 0x07,		/* snd_ws rcv_ws state options */
};

/**
 * sample_flow() - The record @flow4 holds
 * @f:		Filled
 */
static void sample_flow(struct tcp_mig_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->pif[0] = TCP_MIG_PIF_TAP;
	f->pif[1] = TCP_MIG_PIF_HOST;
	inet_pton(AF_INET6, "::ffff:203.0.113.7", &f->side[0].oaddr);
	inet_pton(AF_INET6, "::ffff:198.51.100.2", &f->side[0].eaddr);
	f->side[0].oport = 80;
	f->side[0].eport = 40000;
	inet_pton(AF_INET6, "::ffff:192.0.2.1", &f->side[1].oaddr);
	inet_pton(AF_INET6, "::ffff:203.0.113.7", &f->side[1].eaddr);
	f->side[1].oport = 40000;
	f->side[1].eport = 80;
	f->ws_from_tap = 7;
	f->ws_to_tap = 8;
	f->events = TCP_MIG_EV_ESTABLISHED | TCP_MIG_EV_SOCK_FIN_RCVD;
	f->tap_mss = 1460;
	f->sndbuf = 87040 >> 8;
	f->flags = TCP_MIG_FL_ACK_FROM_TAP_DUE;
	f->dup_ack = 0x34;
	f->wnd_from_tap = 502;
	f->wnd_to_tap = 256;
	f->seq_to_tap = 0x11223344;
	f->seq_ack_from_tap = 0x11223000;
	f->seq_from_tap = 0xa0b0c0d0;
	f->seq_ack_to_tap = 0xa0b0c0d0;
	f->seq_init_from_tap = 0xa0b00001;
}

/**
 * sample_ext() - The record @ext1 holds
 * @e:		Filled
 */
static void sample_ext(struct tcp_mig_ext *e)
{
	memset(e, 0, sizeof(*e));
	e->seq_snd = 0x01020304;
	e->seq_rcv = 0xfffffff0;
	e->sndq = 5000;
	e->notsent = 1000;
	e->rcvq = 300;
	e->mss = 1448;
	e->timestamp = 0xdeadbeef;
	e->snd_wl1 = 0x01020300;
	e->snd_wnd = 65536;
	e->max_window = 0x20000;
	e->rcv_wnd = 0x30000;
	e->rcv_wup = 0xffffff00;
	e->snd_ws = 7;
	e->rcv_ws = 9;
	e->tcpi_state = TCP_MIG_ST_FIN_WAIT1;
	e->tcpi_options = TCP_MIG_OPT_TIMESTAMPS | TCP_MIG_OPT_SACK |
			  TCP_MIG_OPT_WSCALE;
}

START_TEST(test_flow_encode_layout)
{
	uint8_t buf[TCP_MIG_FLOW_LEN];
	struct tcp_mig_flow f;

	sample_flow(&f);
	tcp_mig_flow_encode(&f, buf);
	ck_assert_mem_eq(buf, flow4, sizeof(flow4));
}
END_TEST

START_TEST(test_flow_decode_fields)
{
	struct tcp_mig_flow f, want;

	sample_flow(&want);
	ck_assert_int_eq(tcp_mig_flow_decode(flow4, &f), 0);
	ck_assert_mem_eq(&f.side[0].oaddr, &want.side[0].oaddr, 16);
	ck_assert_mem_eq(&f.side[1].oaddr, &want.side[1].oaddr, 16);
	ck_assert_uint_eq(f.side[0].oport, 80);
	ck_assert_uint_eq(f.side[0].eport, 40000);
	ck_assert_uint_eq(f.side[1].oport, 40000);
	ck_assert_uint_eq(f.tap_mss, 1460);
	ck_assert_uint_eq(f.sndbuf << 8, 87040);
	ck_assert_uint_eq(f.wnd_from_tap, 502);
	ck_assert_uint_eq(f.seq_to_tap, 0x11223344);
	ck_assert_uint_eq(f.seq_ack_from_tap, 0x11223000);
	ck_assert_uint_eq(f.seq_init_from_tap, 0xa0b00001);
	ck_assert_int_eq(tcp_mig_flow_tap_side(&f), 0);
}
END_TEST

START_TEST(test_flow_round_trip_v6_inbound)
{
	uint8_t buf[TCP_MIG_FLOW_LEN];
	struct tcp_mig_flow f, g;

	sample_flow(&f);
	f.pif[0] = TCP_MIG_PIF_HOST;
	f.pif[1] = TCP_MIG_PIF_TAP;
	inet_pton(AF_INET6, "2001:db8::1", &f.side[0].oaddr);
	inet_pton(AF_INET6, "2001:db8:1::7", &f.side[0].eaddr);
	inet_pton(AF_INET6, "fe80::1", &f.side[1].oaddr);
	inet_pton(AF_INET6, "2001:db8::2", &f.side[1].eaddr);
	tcp_mig_flow_encode(&f, buf);
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(tcp_mig_flow_decode(buf, &g), 0);
	ck_assert_mem_eq(&f, &g, sizeof(f));
	ck_assert_int_eq(tcp_mig_flow_tap_side(&g), 1);
}
END_TEST

START_TEST(test_flow_decode_refuses)
{
	struct tcp_mig_flow f;
	uint8_t b[TCP_MIG_FLOW_LEN];

	memcpy(b, flow4, sizeof(b));
	b[1] = 3;				/* PIF_SPLICE */
	ck_assert_int_eq(tcp_mig_flow_decode(b, &f), -TCP_MIG_E_PIF);
	memcpy(b, flow4, sizeof(b));
	b[0] = 1;				/* host, host */
	ck_assert_int_eq(tcp_mig_flow_decode(b, &f), -TCP_MIG_E_PIF);
	memcpy(b, flow4, sizeof(b));
	b[2 + 10] = 0;				/* oaddr no longer v4-mapped */
	ck_assert_int_eq(tcp_mig_flow_decode(b, &f), -TCP_MIG_E_ADDR);
	memcpy(b, flow4, sizeof(b));
	b[38 + 16 + 12] = 224;			/* peer 224.0.113.7 */
	ck_assert_int_eq(tcp_mig_flow_decode(b, &f), -TCP_MIG_E_ADDR);
	memcpy(b, flow4, sizeof(b));
	memset(b + 38 + 32, 0, 2);		/* our host port 0 */
	ck_assert_int_eq(tcp_mig_flow_decode(b, &f), -TCP_MIG_E_ADDR);
	memcpy(b, flow4, sizeof(b));
	b[77] = TCP_MIG_EV_TAP_SYN_RCVD;	/* handshake */
	ck_assert_int_eq(tcp_mig_flow_decode(b, &f), -TCP_MIG_E_EVENTS);
	memcpy(b, flow4, sizeof(b));
	b[75] = 15;				/* RFC 7323 2.3: at most 14 */
	ck_assert_int_eq(tcp_mig_flow_decode(b, &f), -TCP_MIG_E_WS);
	memcpy(b, flow4, sizeof(b));
	b[79] = 1;				/* MSS 65536 + 1460 */
	ck_assert_int_eq(tcp_mig_flow_decode(b, &f), -TCP_MIG_E_MSS);
}
END_TEST

START_TEST(test_ext_encode_layout)
{
	uint8_t buf[TCP_MIG_EXT_LEN];
	struct tcp_mig_ext e;

	sample_ext(&e);
	tcp_mig_ext_encode(&e, buf);
	ck_assert_mem_eq(buf, ext1, sizeof(ext1));
}
END_TEST

START_TEST(test_ext_round_trip)
{
	struct tcp_mig_ext e, want;

	sample_ext(&want);
	ck_assert_int_eq(tcp_mig_ext_decode(ext1, &e), 0);
	ck_assert_mem_eq(&e, &want, sizeof(e));
}
END_TEST

START_TEST(test_ext_decode_refuses)
{
	uint8_t b[TCP_MIG_EXT_LEN];
	struct tcp_mig_ext e;

	memcpy(b, ext1, sizeof(b));
	b[50] = 10;				/* TCP_LISTEN */
	ck_assert_int_eq(tcp_mig_ext_decode(b, &e), -TCP_MIG_E_STATE);
	b[50] = 6;				/* TCP_TIME_WAIT */
	ck_assert_int_eq(tcp_mig_ext_decode(b, &e), -TCP_MIG_E_STATE);
	memcpy(b, ext1, sizeof(b));
	b[14] = 0x13;				/* notsent 5096 > sndq */
	b[15] = 0xe8;
	ck_assert_int_eq(tcp_mig_ext_decode(b, &e), -TCP_MIG_E_QUEUE);
	memcpy(b, ext1, sizeof(b));
	b[16] = 0x04;				/* rcvq 64 MiB + 300 */
	ck_assert_int_eq(tcp_mig_ext_decode(b, &e), -TCP_MIG_E_QUEUE);
	memcpy(b, ext1, sizeof(b));
	b[49] = 15;
	ck_assert_int_eq(tcp_mig_ext_decode(b, &e), -TCP_MIG_E_WS);
	memcpy(b, ext1, sizeof(b));
	memset(b + 20, 0, 4);
	ck_assert_int_eq(tcp_mig_ext_decode(b, &e), -TCP_MIG_E_MSS);
	/* state 0: skip, whatever the rest says (upstream's dump failure) */
	memset(b, 0xff, sizeof(b));
	b[50] = 0;
	ck_assert_int_eq(tcp_mig_ext_decode(b, &e), 0);
	ck_assert_uint_eq(e.tcpi_state, 0);
}
END_TEST

START_TEST(test_every_byte_corrupted)
{
	uint8_t b[TCP_MIG_EXT_LEN > TCP_MIG_FLOW_LEN ? TCP_MIG_EXT_LEN :
							TCP_MIG_FLOW_LEN];
	struct tcp_mig_flow f;
	struct tcp_mig_ext e;
	unsigned i, v;

	for (i = 0; i < TCP_MIG_FLOW_LEN; i++) {
		for (v = 0; v < 256; v += 17) {
			memcpy(b, flow4, TCP_MIG_FLOW_LEN);
			b[i] = (uint8_t)v;
			if (tcp_mig_flow_decode(b, &f))
				continue;
			ck_assert(f.ws_from_tap <= 14 && f.ws_to_tap <= 14);
			ck_assert(f.tap_mss && f.tap_mss <= 65535);
			ck_assert(f.events & TCP_MIG_EV_ESTABLISHED);
		}
	}
	for (i = 0; i < TCP_MIG_EXT_LEN; i++) {
		for (v = 0; v < 256; v += 17) {
			memcpy(b, ext1, TCP_MIG_EXT_LEN);
			b[i] = (uint8_t)v;
			if (tcp_mig_ext_decode(b, &e) || !e.tcpi_state)
				continue;
			ck_assert(e.notsent <= e.sndq);
			ck_assert(e.sndq <= TCP_MIG_QUEUE_MAX);
			ck_assert(e.rcvq <= TCP_MIG_QUEUE_MAX);
			ck_assert(e.snd_ws <= 14 && e.rcv_ws <= 14);
		}
	}
}
END_TEST

/**
 * section() - A flow section of two connections, as upstream's flow.c
 *	       writes it: both flow records, then each extended record
 *	       followed by its send and receive queues
 * @b:		Filled (room for 2 * 112 + 2 * 52 + 5000 + 300 bytes)
 *
 * Return: its length
 */
static size_t section(uint8_t *b)
{
	struct tcp_mig_flow f;
	struct tcp_mig_ext e;
	size_t off;

	sample_flow(&f);
	tcp_mig_flow_encode(&f, b);
	f.side[0].eport = 40001;
	f.side[1].oport = 40001;
	tcp_mig_flow_encode(&f, b + TCP_MIG_FLOW_LEN);
	off = 2 * TCP_MIG_FLOW_LEN;
	sample_ext(&e);				/* 5000 + 300 bytes of queues */
	tcp_mig_ext_encode(&e, b + off);
	off += TCP_MIG_EXT_LEN;
	memset(b + off, 0x55, e.sndq + e.rcvq);
	off += e.sndq + e.rcvq;
	memset(&e, 0, sizeof(e));		/* not dumped: no queues */
	tcp_mig_ext_encode(&e, b + off);
	return off + TCP_MIG_EXT_LEN;
}

/* The daemon's check of a whole section (passt/tcp_mig_flows.c) before it
 * touches a socket: the stream's own lengths must add up to its end
 */
START_TEST(test_section_check)
{
	static uint8_t b[2 * TCP_MIG_FLOW_LEN + 2 * TCP_MIG_EXT_LEN + 5300 + 1];
	size_t len = section(b), i;

	ck_assert_uint_eq(len, sizeof(b) - 1);
	ck_assert_int_eq(tcp_mig_check(b, len, 2), 0);
	for (i = 0; i < len; i++)		/* every truncation */
		ck_assert_int_eq(tcp_mig_check(b, i, 2), -EPROTO);
	ck_assert_int_eq(tcp_mig_check(b, len + 1, 2), -EPROTO);
	ck_assert_int_eq(tcp_mig_check(b, len, 1), -EPROTO);
	ck_assert_int_eq(tcp_mig_check(b, len, 3), -EPROTO);
	ck_assert_int_eq(tcp_mig_check(b, len, 0xffffffff), -EPROTO);
	b[2 * TCP_MIG_FLOW_LEN + 8] = 0x7f;	/* sndq 2 GiB: past the end */
	ck_assert_int_eq(tcp_mig_check(b, len, 2), -EPROTO);
}
END_TEST

/* Random bytes after valid flow records: refused or in bounds, never a
 * crash (run under ASan in make check)
 */
START_TEST(test_section_garbage)
{
	static uint8_t b[2 * TCP_MIG_FLOW_LEN + 2 * TCP_MIG_EXT_LEN + 5300 + 1];
	unsigned seed = 7, i;
	size_t len = section(b);

	for (i = 0; i < 5000; i++) {
		size_t k, n = 2 * TCP_MIG_FLOW_LEN +
			      (size_t)rand_r(&seed) % (len - 2 * TCP_MIG_FLOW_LEN);
		uint8_t *g = malloc(n);

		section(b);
		memcpy(g, b, n);
		for (k = 2 * TCP_MIG_FLOW_LEN; k < n; k++)
			if (!(rand_r(&seed) % 8))
				g[k] = (uint8_t)rand_r(&seed);
		ck_assert_int_le(tcp_mig_check(g, n, 2), 0);
		free(g);
	}
}
END_TEST

/**
 * tcp_migrate_suite() - The cases
 *
 * Return: suite
 */
static Suite *tcp_migrate_suite(void)
{
	Suite *s = suite_create("tcp_migrate");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, test_flow_encode_layout);
	tcase_add_test(tc, test_flow_decode_fields);
	tcase_add_test(tc, test_flow_round_trip_v6_inbound);
	tcase_add_test(tc, test_flow_decode_refuses);
	tcase_add_test(tc, test_ext_encode_layout);
	tcase_add_test(tc, test_ext_round_trip);
	tcase_add_test(tc, test_ext_decode_refuses);
	tcase_add_test(tc, test_every_byte_corrupted);
	tcase_add_test(tc, test_section_check);
	tcase_add_test(tc, test_section_garbage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tcp_migrate_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
