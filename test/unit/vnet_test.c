// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/vnet_test.c - Tests for tap/vnet.c, the virtio-net header
 *
 * Expected values come from the virtio 1.x specification, 5.1.6 ("Device
 * Operation": struct virtio_net_hdr, 5.1.6.2.1 driver requirements for
 * what a guest sends, 5.1.6.4.1 device requirements for what we send) and
 * include/uapi/linux/virtio_net.h: VIRTIO_NET_HDR_F_NEEDS_CSUM 1,
 * VIRTIO_NET_HDR_GSO_NONE 0, _TCPV4 1, _UDP 3, _TCPV6 4, _UDP_L4 5,
 * _ECN 0x80; hdr_len is Ethernet + IP + TCP header bytes, csum_start the
 * offset of the TCP header, csum_offset 16 (the TCP checksum field, RFC
 * 9293 3.1).
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../../tap/vnet.h"

/**
 * tcp_frame() - Lay out Ethernet + IPv4/IPv6 + TCP headers, zero payload
 * @f:		Buffer (at least 14 + 40 + 60 + @plen bytes)
 * @v6:		IPv6 (else IPv4)
 * @optlen:	TCP option bytes
 * @plen:	Payload bytes
 *
 * Return: frame length
 */
static size_t tcp_frame(uint8_t *f, bool v6, size_t optlen, size_t plen)
{
	size_t th = v6 ? 54 : 34;

	memset(f, 0, th + 20 + optlen + plen);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	f[14] = v6 ? 0x60 : 0x45;
	f[v6 ? 14 + 6 : 14 + 9] = 6;		/* TCP */
	f[th + 12] = (uint8_t)((5 + optlen / 4) << 4);
	return th + 20 + optlen + plen;
}

static uint8_t fr[70000];

START_TEST(test_vnet_out_gso_v4)
{
	struct virtio_net_hdr h;
	size_t len = tcp_frame(fr, false, 0, 44 * 1460);

	vnet_hdr_out(&h, fr, len, len, 34 << 16 | 16, 1460);
	ck_assert_uint_eq(h.flags, 1);
	ck_assert_uint_eq(h.gso_type, 1);
	ck_assert_uint_eq(h.hdr_len, 14 + 20 + 20);
	ck_assert_uint_eq(h.gso_size, 1460);
	ck_assert_uint_eq(h.csum_start, 34);
	ck_assert_uint_eq(h.csum_offset, 16);
}
END_TEST

START_TEST(test_vnet_out_gso_v6_options)
{
	struct virtio_net_hdr h;
	size_t len = tcp_frame(fr, true, 12, 45 * 1428);

	vnet_hdr_out(&h, fr, len, len, 54 << 16 | 16, 1428);
	ck_assert_uint_eq(h.flags, 1);
	ck_assert_uint_eq(h.gso_type, 4);
	ck_assert_uint_eq(h.hdr_len, 14 + 40 + 32);
	ck_assert_uint_eq(h.gso_size, 1428);
	ck_assert_uint_eq(h.csum_start, 54);
}
END_TEST

/* Headers in the first piece, payload elsewhere: @hlen covers the headers */
START_TEST(test_vnet_out_gso_headers_only_in_first_piece)
{
	struct virtio_net_hdr h;

	tcp_frame(fr, false, 0, 0);
	vnet_hdr_out(&h, fr, 54, 54 + 10 * 1460, 34 << 16 | 16, 1460);
	ck_assert_uint_eq(h.gso_type, 1);
	ck_assert_uint_eq(h.hdr_len, 54);
	vnet_hdr_out(&h, fr, 40, 54 + 10 * 1460, 34 << 16 | 16, 1460);
	ck_assert_uint_eq(h.gso_type, 0);	/* TCP header not readable */
	ck_assert_uint_eq(h.flags, 1);
}
END_TEST

/* No GSO where it would be wrong: one segment of payload, no partial
 * checksum (5.1.6.4.1: a GSO type needs NEEDS_CSUM), not TCP
 */
START_TEST(test_vnet_out_no_gso)
{
	struct virtio_net_hdr h;
	size_t len = tcp_frame(fr, false, 0, 1460);

	vnet_hdr_out(&h, fr, len, len, 34 << 16 | 16, 1460);
	ck_assert_uint_eq(h.flags, 1);
	ck_assert_uint_eq(h.gso_type, 0);
	ck_assert_uint_eq(h.gso_size, 0);
	ck_assert_uint_eq(h.hdr_len, 0);

	len = tcp_frame(fr, false, 0, 10 * 1460);
	vnet_hdr_out(&h, fr, len, len, 0, 1460);
	ck_assert_uint_eq(h.flags, 0);
	ck_assert_uint_eq(h.gso_type, 0);
	ck_assert_uint_eq(h.csum_start, 0);

	fr[14 + 9] = 1;				/* ICMP: never GSO */
	vnet_hdr_out(&h, fr, len, len, 34 << 16 | 2, 1460);
	ck_assert_uint_eq(h.gso_type, 0);
	ck_assert_uint_eq(h.csum_offset, 2);
}
END_TEST

/* UDP super-frames (tap_tx_uso()): VIRTIO_NET_HDR_GSO_UDP_L4 (5), hdr_len
 * up to the end of the 8-byte UDP header (RFC 768), csum_offset 6; one
 * datagram's worth of payload or less stays GSO_NONE
 */
START_TEST(test_vnet_out_uso)
{
	struct virtio_net_hdr h;
	size_t len = tcp_frame(fr, false, 0, 10 * 1400);

	fr[14 + 9] = 17;			/* UDP */
	vnet_hdr_out(&h, fr, len, len, 34 << 16 | 6, 1400);
	ck_assert_uint_eq(h.flags, 1);
	ck_assert_uint_eq(h.gso_type, 5);
	ck_assert_uint_eq(h.hdr_len, 14 + 20 + 8);
	ck_assert_uint_eq(h.gso_size, 1400);
	ck_assert_uint_eq(h.csum_start, 34);
	ck_assert_uint_eq(h.csum_offset, 6);

	len = tcp_frame(fr, true, 0, 3 * 1000);
	fr[14 + 6] = 17;
	vnet_hdr_out(&h, fr, len, len, 54 << 16 | 6, 1000);
	ck_assert_uint_eq(h.gso_type, 5);
	ck_assert_uint_eq(h.hdr_len, 14 + 40 + 8);

	/* payload of one datagram at most: no super-frame */
	len = 14 + 20 + 8 + 1400;
	fr[14 + 6] = 0;
	tcp_frame(fr, false, 0, 1400);
	fr[14 + 9] = 17;
	vnet_hdr_out(&h, fr, len, len, 34 << 16 | 6, 1400);
	ck_assert_uint_eq(h.gso_type, 0);
	ck_assert_uint_eq(h.flags, 1);
}
END_TEST

START_TEST(test_vnet_in_ok)
{
	struct virtio_net_hdr h = { 0 };
	size_t l4 = tcp_frame(fr, false, 0, 44 * 1460);

	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, false, false, false), 0);
	h.flags = 1;
	h.gso_type = 1;
	h.gso_size = 1460;
	h.csum_start = 34;
	h.csum_offset = 16;
	h.hdr_len = 1000;	/* not relied on (5.1.6.2.2) */
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, false, false), 0);
	h.flags = 1 | 2;	/* DATA_VALID: a flag we ignore */
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, false, false), 0);
}
END_TEST

START_TEST(test_vnet_in_bad)
{
	struct virtio_net_hdr g = { .flags = 1, .gso_type = 1,
				    .gso_size = 1460, .csum_start = 34,
				    .csum_offset = 16 }, h;
	size_t l4 = tcp_frame(fr, false, 0, 44 * 1460);

	h = g;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, false, true, false),
			 -VNET_IN_TYPE);	/* HOST_TSO4 not negotiated */
	h.gso_type = 4;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, false),
			 -VNET_IN_PROTO);	/* TCPV6 on IPv4 */
	h.gso_type = 3;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, false),
			 -VNET_IN_TYPE);	/* UFO */
	h.gso_type = 5;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, false),
			 -VNET_IN_TYPE);	/* USO, HOST_USO not negotiated */
	h.gso_type = 0x81;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, false),
			 -VNET_IN_TYPE);	/* ECN, not offered */
	h = g;
	h.flags = 0;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, false),
			 -VNET_IN_NOCSUM);
	h = g;
	h.gso_size = 0;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, false),
			 -VNET_IN_SIZE);
	h = g;
	h.csum_start = (uint16_t)(l4 - 17);	/* field ends past the frame */
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, false),
			 -VNET_IN_CSUM);
	h.gso_type = 0;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, false),
			 -VNET_IN_CSUM);
	h = g;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, 50, true, true, false),
			 -VNET_IN_CSUM);	/* short frame */
	h.csum_start = 14;
	h.csum_offset = 0;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, 50, true, true, false),
			 -VNET_IN_PROTO);	/* no room for IP + TCP */
	fr[14 + 9] = 17;
	h = g;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, false),
			 -VNET_IN_PROTO);	/* TCPV4 on UDP */
}
END_TEST

/* virtio 1.2 5.1.6.2.1 with VIRTIO_NET_F_HOST_USO: a UDP super-frame needs
 * NEEDS_CSUM at the UDP checksum (RFC 768: offset 6 in the header) and a
 * gso_size; IPv4 or IPv6 UDP only
 */
START_TEST(test_vnet_in_uso)
{
	struct virtio_net_hdr g = { .flags = 1, .gso_type = 5,
				    .gso_size = 1400, .csum_start = 34,
				    .csum_offset = 6 }, h;
	size_t l4 = tcp_frame(fr, false, 0, 10 * 1400);

	fr[14 + 9] = 17;			/* UDP */
	h = g;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, true), 0);
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, true, true, false),
			 -VNET_IN_TYPE);	/* HOST_USO not negotiated */
	h.flags = 0;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, false, false, true),
			 -VNET_IN_NOCSUM);
	h = g;
	h.gso_size = 0;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, false, false, true),
			 -VNET_IN_SIZE);
	h = g;
	h.csum_offset = 16;			/* TCP's field, not UDP's */
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, false, false, true),
			 -VNET_IN_CSUM);
	h = g;
	h.csum_start = (uint16_t)(l4 - 7);	/* field ends past the frame */
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, false, false, true),
			 -VNET_IN_CSUM);
	fr[14 + 9] = 6;				/* TCP under a USO header */
	h = g;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, false, false, true),
			 -VNET_IN_PROTO);

	l4 = tcp_frame(fr, true, 0, 3 * 1000);
	fr[14 + 6] = 17;			/* IPv6, next header UDP */
	h = g;
	h.csum_start = 54;
	h.gso_size = 1000;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, false, false, true), 0);
	fr[14 + 6] = 6;
	ck_assert_int_eq(vnet_hdr_in_check(&h, fr, l4, false, false, true),
			 -VNET_IN_PROTO);
}
END_TEST

/**
 * vnet_suite() - Build the suite
 *
 * Return: suite
 */
static Suite *vnet_suite(void)
{
	Suite *s = suite_create("vnet");
	TCase *tc = tcase_create("hdr");

	tcase_add_test(tc, test_vnet_out_gso_v4);
	tcase_add_test(tc, test_vnet_out_gso_v6_options);
	tcase_add_test(tc, test_vnet_out_gso_headers_only_in_first_piece);
	tcase_add_test(tc, test_vnet_out_no_gso);
	tcase_add_test(tc, test_vnet_out_uso);
	tcase_add_test(tc, test_vnet_in_ok);
	tcase_add_test(tc, test_vnet_in_bad);
	tcase_add_test(tc, test_vnet_in_uso);
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
	SRunner *sr = srunner_create(vnet_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
