// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/tap_test.c - Transmit path of tap/tap.c, frames with external
 *			  payload (tap_tx_add_ext()) among ordinary ones
 *
 * The back-ends write to one end of a socketpair and the test reads the
 * other.  Expected bytes follow the formats, not our code: QEMU's stream
 * transport puts a 4-byte big-endian length before each frame (QEMU
 * net/stream.c); a tap device with IFF_VNET_HDR takes one write() per
 * frame, starting with a 10-byte struct virtio_net_hdr {u8 flags, u8
 * gso_type, u16 hdr_len, u16 gso_size, u16 csum_start, u16 csum_offset},
 * little-endian on x86, flags NEEDS_CSUM = 1 (include/uapi/linux/
 * virtio_net.h).  A datagram socketpair keeps each write() a record.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../../tap/tap.h"
#include "fake_parse.h"

static int sv[2];
static uint8_t payload[3][30000];	/* "external" memory */

/**
 * fill() - Deterministic bytes
 * @p:		Buffer
 * @len:	Length
 * @seed:	Varies the content
 */
static void fill(uint8_t *p, size_t len, unsigned seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 13 + seed * 71 + (i >> 7));
}

/**
 * queue_three() - Queue an ordinary frame, an external-payload frame (60
 *		   bytes of headers + 1000 + 30000 + 7 bytes of pieces), and
 *		   an ordinary frame
 * @a:		Copy of the first frame (100 bytes)
 * @b:		Copy of the second frame, as it must appear (31067 bytes)
 * @c:		Copy of the third frame (70 bytes)
 */
static void queue_three(uint8_t *a, uint8_t *b, uint8_t *c)
{
	struct iovec pay[3];
	size_t avail;
	uint8_t *p = tap_tx_space(&avail), *f;

	ck_assert_uint_ge(avail, 1024);
	fill(payload[0], sizeof(payload[0]), 1);
	fill(payload[1], sizeof(payload[1]), 2);
	fill(payload[2], sizeof(payload[2]), 3);

	f = p + TAP_HEADROOM;
	fill(f, 100, 4);
	memcpy(a, f, 100);
	tap_tx_add(f, 100, TAP_CSUM_DONE, 0);

	f = p + 128 + TAP_HEADROOM;
	fill(f, 60, 5);
	memcpy(b, f, 60);
	pay[0].iov_base = payload[0] + 5;
	pay[0].iov_len = 1000;
	pay[1].iov_base = payload[1];
	pay[1].iov_len = 30000;
	pay[2].iov_base = payload[2] + 1;
	pay[2].iov_len = 7;
	memcpy(b + 60, payload[0] + 5, 1000);
	memcpy(b + 1060, payload[1], 30000);
	memcpy(b + 31060, payload[2] + 1, 7);
	ck_assert(tap_tx_ext_room(3));
	ck_assert_int_eq(tap_tx_add_ext(f, 60, pay, 3, 34, 16), 0);

	f = p + 256 + TAP_HEADROOM;
	fill(f, 70, 6);
	memcpy(c, f, 70);
	tap_tx_add(f, 70, TAP_CSUM_DONE, 0);
}

/**
 * teardown() - Close the socketpair, forget the back-end
 */
static void teardown(void)
{
	tap_detach();
	close(sv[0]);
	close(sv[1]);
}

/**
 * read_all() - Read exactly @len bytes from the test's end
 * @buf:	Destination
 * @len:	Bytes
 */
static void read_all(uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = recv(sv[1], buf + got, len - got, 0);

		ck_assert_int_gt(n, 0);
		got += (size_t)n;
	}
}

/* Stream: length, frame; the external payload follows its headers */
START_TEST(test_tap_stream_ext)
{
	static uint8_t a[100], b[31067], c[70], got[40000];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	tap_init(TAP_STREAM, sv[0], false);
	queue_three(a, b, c);
	ck_assert_int_eq(tap_flush(), 0);

	read_all(got, 4 + 100 + 4 + 31067 + 4 + 70);
	ck_assert_uint_eq(be32(got), 100);
	ck_assert_mem_eq(got + 4, a, 100);
	ck_assert_uint_eq(be32(got + 104), 31067);
	ck_assert_mem_eq(got + 108, b, 31067);
	ck_assert_uint_eq(be32(got + 31175), 70);
	ck_assert_mem_eq(got + 31179, c, 70);
	ck_assert_uint_eq(tap_stats.tx_frames, 3);
	ck_assert_uint_eq(tap_stats.tx_bytes, 100 + 31067 + 70);
}
END_TEST

/* Tap device: one record per frame, virtio-net header first */
START_TEST(test_tap_dev_ext)
{
	static uint8_t a[100], b[31067], c[70], got[40000];
	uint16_t cs_start, cs_off;
	ssize_t n;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	tap_init(TAP_DEV, sv[0], true);
	queue_three(a, b, c);
	ck_assert_int_eq(tap_flush(), 0);

	n = recv(sv[1], got, sizeof(got), 0);
	ck_assert_int_eq(n, 10 + 100);
	ck_assert_uint_eq(got[0], 0);		/* checksum complete */
	ck_assert_mem_eq(got + 10, a, 100);

	n = recv(sv[1], got, sizeof(got), 0);
	ck_assert_int_eq(n, 10 + 31067);
	ck_assert_uint_eq(got[0], 1);		/* NEEDS_CSUM */
	ck_assert_uint_eq(got[1], 0);		/* no GSO */
	cs_start = (uint16_t)(got[6] | got[7] << 8);
	cs_off = (uint16_t)(got[8] | got[9] << 8);
	ck_assert_uint_eq(cs_start, 34);
	ck_assert_uint_eq(cs_off, 16);
	ck_assert_mem_eq(got + 10, b, 31067);

	n = recv(sv[1], got, sizeof(got), 0);
	ck_assert_int_eq(n, 10 + 70);
	ck_assert_mem_eq(got + 10, c, 70);
}
END_TEST

/* A stream write cut short keeps the rest, whole frames, in order */
START_TEST(test_tap_stream_ext_partial)
{
	static uint8_t a[100], b[31067], c[70], got[40000];
	size_t total = 4 + 100 + 4 + 31067 + 4 + 70, off = 0;
	int sz = 4096;		/* the kernel doubles it: about 8 KiB */
	unsigned i;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz,
				    sizeof(sz)), 0);
	tap_init(TAP_STREAM, sv[0], false);

	queue_three(a, b, c);
	ck_assert_int_eq(tap_flush(), 0);
	ck_assert(tap_tx_pending());		/* the kernel took a part */

	/* Drain, and flush again until the pending tail is gone */
	for (i = 0; i < 100000 && off < total; i++) {
		ssize_t n = recv(sv[1], got + off, total - off, MSG_DONTWAIT);

		if (n > 0)
			off += (size_t)n;
		ck_assert_int_eq(tap_flush(), 0);
	}
	ck_assert_uint_eq(off, total);
	ck_assert(!tap_tx_pending());
	ck_assert_uint_eq(be32(got), 100);
	ck_assert_mem_eq(got + 4, a, 100);
	ck_assert_uint_eq(be32(got + 104), 31067);
	ck_assert_mem_eq(got + 108, b, 31067);
	ck_assert_uint_eq(be32(got + 31175), 70);
	ck_assert_mem_eq(got + 31179, c, 70);
}
END_TEST

/* No room: refused, never cut */
START_TEST(test_tap_ext_limits)
{
	static struct iovec pay[TAP_FRAME_IOV_MAX + 1];
	size_t avail, i;
	uint8_t *p;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	tap_init(TAP_STREAM, sv[0], false);
	p = tap_tx_space(&avail);
	for (i = 0; i < TAP_FRAME_IOV_MAX + 1; i++) {
		pay[i].iov_base = payload[0];
		pay[i].iov_len = 10;
	}
	ck_assert(!tap_tx_ext_room(TAP_FRAME_IOV_MAX + 1));
	ck_assert_int_eq(tap_tx_add_ext(p + TAP_HEADROOM, 54, pay,
					TAP_FRAME_IOV_MAX + 1, 0, 0), -ENOBUFS);
	pay[0].iov_len = 70000;			/* above FRAME_MAX */
	ck_assert_int_eq(tap_tx_add_ext(p + TAP_HEADROOM, 54, pay, 1, 0, 0),
			 -ENOBUFS);
	ck_assert_int_eq(tap_flush(), 0);
	ck_assert_uint_eq(tap_stats.tx_frames, 0);
}
END_TEST

/* Runts: an ARP reply is 42 bytes, a bare TCP ACK 54 (14 + 20 + 20), an
 * ACK with 3 bytes of external payload 57; each goes out zero-padded to
 * the 60 bytes of IEEE 802.3's minimum frame (without FCS), the bytes
 * before the pad untouched; a 60-byte frame stays as it is
 */
START_TEST(test_tap_runts_padded)
{
	static uint8_t arp[42], ack[54], dat[57], full[60], got[4 * 64];
	struct iovec pay = { .iov_base = payload[0], .iov_len = 3 };
	size_t avail, off;
	uint8_t *f, *p;
	unsigned i;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	tap_init(TAP_STREAM, sv[0], false);
	fill(payload[0], 3, 9);

	f = tap_tx_frame(sizeof(arp));
	ck_assert_ptr_nonnull(f);
	fill(f, sizeof(arp), 7);
	memcpy(arp, f, sizeof(arp));

	p = tap_tx_space(&avail);
	f = p + TAP_HEADROOM;
	memset(f, 0xff, 64);		/* what a pad must not leave */
	fill(f, sizeof(ack), 8);
	memcpy(ack, f, sizeof(ack));
	ck_assert_int_eq(tap_tx_add_ext(f, sizeof(ack), NULL, 0, 34, 16), 0);

	p = tap_tx_space(&avail);
	f = p + TAP_HEADROOM;
	memset(f, 0xff, 64);
	fill(f, 54, 10);
	memcpy(dat, f, 54);
	memcpy(dat + 54, payload[0], 3);
	ck_assert_int_eq(tap_tx_add_ext(f, 54, &pay, 1, 34, 16), 0);

	f = tap_tx_frame(sizeof(full));
	fill(f, sizeof(full), 11);
	memcpy(full, f, sizeof(full));
	ck_assert_int_eq(tap_flush(), 0);

	read_all(got, 4 * (4 + 60));
	for (i = 0, off = 0; i < 4; i++, off += 64)
		ck_assert_uint_eq(be32(got + off), 60);
	ck_assert_mem_eq(got + 4, arp, sizeof(arp));
	for (i = sizeof(arp); i < 60; i++)
		ck_assert_uint_eq(got[4 + i], 0);
	ck_assert_mem_eq(got + 68, ack, sizeof(ack));
	for (i = sizeof(ack); i < 60; i++)
		ck_assert_uint_eq(got[68 + i], 0);
	ck_assert_mem_eq(got + 132, dat, sizeof(dat));
	for (i = sizeof(dat); i < 60; i++)
		ck_assert_uint_eq(got[132 + i], 0);
	ck_assert_mem_eq(got + 196, full, sizeof(full));
}
END_TEST

/**
 * tcp_frame() - Ethernet + IP + TCP frame with a partial checksum layout
 * @f:		Buffer, at least 54 + 40 + @plen bytes
 * @v6:		IPv6 (next header 6 at byte 20) instead of IPv4 (protocol 6
 *		at byte 23)
 * @optlen:	TCP option bytes, multiple of 4 (data offset 5 + @optlen / 4)
 * @plen:	Payload bytes
 *
 * Return: frame length
 */
static size_t tcp_frame(uint8_t *f, bool v6, size_t optlen, size_t plen)
{
	size_t l3 = v6 ? 40 : 20, th = 14 + l3;

	memset(f, 0, th + 20 + optlen);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		f[14] = 0x60;
		f[14 + 6] = 6;
	} else {
		f[14] = 0x45;
		f[14 + 9] = 6;
	}
	f[th + 12] = (uint8_t)((5 + optlen / 4) << 4);
	fill(f + th + 20 + optlen, plen, 9);
	return th + 20 + optlen + plen;
}

/* A TCP super-frame marked with tap_tx_gso() goes out as one write() whose
 * virtio_net_hdr says GSO: gso_type VIRTIO_NET_HDR_GSO_TCPV4 (1) or _TCPV6
 * (4), hdr_len = Ethernet to the end of the TCP header, gso_size = MSS
 * (virtio spec 1.2, 5.1.6.2; include/uapi/linux/virtio_net.h).  A frame
 * with no more than one MSS of payload carries no GSO.
 */
START_TEST(test_tap_dev_gso)
{
	static uint8_t got[70000];
	struct { bool v6; size_t opt, plen, mss; uint8_t type; size_t hdr; } t[] = {
		{ false, 0, 14600, 1460, 1, 54 },	/* 10 segments */
		{ true, 12, 14280, 1428, 4, 86 },	/* options: data offset 8 */
		{ false, 0, 1460, 1460, 0, 0 },		/* one segment: no GSO */
	};
	size_t avail, len[3], i;
	uint8_t *p, *f[3];
	ssize_t n;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	tap_init(TAP_DEV, sv[0], true);
	p = tap_tx_space(&avail);
	ck_assert_uint_ge(avail, 3 * 20000);
	for (i = 0; i < 3; i++) {
		size_t th = t[i].v6 ? 54 : 34;

		f[i] = p + TAP_HEADROOM + i * 20000;
		len[i] = tcp_frame(f[i], t[i].v6, t[i].opt, t[i].plen);
		tap_tx_add(f[i], len[i], th, 16);
		tap_tx_gso(t[i].mss);
	}
	ck_assert_int_eq(tap_flush(), 0);

	for (i = 0; i < 3; i++) {
		n = recv(sv[1], got, sizeof(got), 0);
		ck_assert_int_eq(n, (ssize_t)(10 + len[i]));
		ck_assert_uint_eq(got[0], 1);			/* NEEDS_CSUM */
		ck_assert_uint_eq(got[1], t[i].type);
		ck_assert_uint_eq((unsigned)(got[2] | got[3] << 8), t[i].hdr);
		ck_assert_uint_eq((unsigned)(got[4] | got[5] << 8),
				  t[i].type ? t[i].mss : 0);
		ck_assert_uint_eq((unsigned)(got[6] | got[7] << 8),
				  t[i].v6 ? 54 : 34);
		ck_assert_uint_eq((unsigned)(got[8] | got[9] << 8), 16);
		ck_assert_mem_eq(got + 10, f[i], len[i]);
	}
}
END_TEST

/* tap_gso_seg(): a multiple of the MSS that keeps the frame within 65535
 * bytes of IP datagram (IPv4 total length, RFC 791; IPv6 payload length,
 * RFC 8200: both 16-bit) plus the Ethernet header; one MSS where segments
 * can't be offloaded (stream back-end) or two wouldn't fit
 */
START_TEST(test_tap_gso_seg)
{
	size_t s;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	tap_init(TAP_DEV, sv[0], true);
	s = tap_gso_seg(54, 1460);
	ck_assert_uint_eq(s % 1460, 0);
	ck_assert_uint_le(s + 54 - 14, 65535);
	ck_assert_uint_gt(s + 54 - 14 + 1460, 65535);
	s = tap_gso_seg(74, 1440);		/* IPv6: payload length */
	ck_assert_uint_eq(s % 1440, 0);
	ck_assert_uint_le(s + 74 - 54, 65535);
	ck_assert_uint_eq(tap_gso_seg(54, 65480), 65480);
	close(sv[0]);
	close(sv[1]);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	tap_init(TAP_STREAM, sv[0], false);
	ck_assert_uint_eq(tap_gso_seg(54, 1460), 1460);
}
END_TEST

/**
 * tap_suite() - Build the suite
 *
 * Return: suite
 */
static Suite *tap_suite(void)
{
	Suite *s = suite_create("tap");
	TCase *tc = tcase_create("tx");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_tap_stream_ext);
	tcase_add_test(tc, test_tap_dev_ext);
	tcase_add_test(tc, test_tap_stream_ext_partial);
	tcase_add_test(tc, test_tap_ext_limits);
	tcase_add_test(tc, test_tap_runts_padded);
	tcase_add_test(tc, test_tap_dev_gso);
	tcase_add_test(tc, test_tap_gso_seg);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - Run the suite
 *
 * Return: 0 if all tests pass
 */
int main(void)
{
	SRunner *sr = srunner_create(tap_suite());
	int failed;

	log_level = LOG_ERR;
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
