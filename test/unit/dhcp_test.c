// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/dhcp_test.c - Tests for tap/dhcp.c (dhcp_handle())
 *
 * Requests are real ones from busybox udhcpc and ISC dhclient
 * (captured_frames.h), or built here from the message layout of RFC 2131
 * section 2 where no client sends what a test needs (DHCPINFORM, a renewal
 * from a bound client).  Offsets and option codes come from RFC 2131 and
 * RFC 2132; option 119 from RFC 3397, option 121 from RFC 3442, option 61
 * echoing from RFC 6842.  Options are read back with a walker written
 * here, not with tap/dhcp.c.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../tap/services.h"
#include "captured_frames.h"
#include "fake_conf.h"
#include "fake_svc.h"

/* Offsets in a frame with a 20-byte IPv4 header (RFC 2131 figure 1) */
#define IP		14
#define UDP		34
#define BOOTP		42
#define OP		(BOOTP + 0)
#define XID		(BOOTP + 4)
#define FLAGS		(BOOTP + 10)
#define CIADDR		(BOOTP + 12)
#define YIADDR		(BOOTP + 16)
#define SIADDR		(BOOTP + 20)
#define GIADDR		(BOOTP + 24)
#define CHADDR		(BOOTP + 28)
#define COOKIE		(BOOTP + 236)
#define OPTS		(BOOTP + 240)

static struct conf c;
static uint8_t out[2048];

static const uint8_t bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t guest_ip[4] = { 203, 0, 113, 15 };
static const uint8_t gw_ip[4] = { 203, 0, 113, 2 };

/**
 * setup() - Fresh configuration, counters and output for each test
 */
static void setup(void)
{
	svc_setup(&c, out, sizeof(out));
	c.no_follow_host = true;	/* start-up lease: infinite */
}

/**
 * run() - Parse a frame and pass it to dhcp_handle()
 * @frame:	Frame
 * @len:	Its length
 *
 * Return: reply length; a reply also gets its checksums checked
 */
static size_t run(const uint8_t *frame, size_t len)
{
	return svc_run(dhcp_handle, &c, frame, len, out, sizeof(out));
}

/**
 * opt() - Find an option in a DHCP message (RFC 2132 section 2)
 * @frame:	Frame holding the message at BOOTP
 * @len:	Frame length
 * @code:	Option code
 * @n:		Which instance (0 for the first)
 * @olen:	Set to the option length
 *
 * Return: pointer to the option data, or NULL
 */
static const uint8_t *opt(const uint8_t *frame, size_t len, uint8_t code,
			  int n, size_t *olen)
{
	size_t i = OPTS;

	while (i < len && frame[i] != 255) {
		if (frame[i] == 0) {
			i++;
			continue;
		}
		ck_assert_uint_le(i + 2 + frame[i + 1], len);
		if (frame[i] == code && n-- == 0) {
			*olen = frame[i + 1];
			return frame + i + 2;
		}
		i += 2 + (size_t)frame[i + 1];
	}
	ck_assert_uint_lt(i, len);	/* END must be there */
	return NULL;
}

/**
 * opt_eq() - Assert an option is present with the given contents
 * @code:	Option code
 * @data:	Expected data
 * @len:	Expected length
 * @n:		Reply length
 */
static void opt_eq(uint8_t code, const void *data, size_t len, size_t n)
{
	const uint8_t *p;
	size_t olen;

	p = opt(out, n, code, 0, &olen);
	ck_assert_msg(p != NULL, "option %u missing", code);
	ck_assert_uint_eq(olen, len);
	ck_assert_mem_eq(p, data, len);
}

/**
 * opt_absent() - Assert an option is not in the reply
 * @code:	Option code
 * @n:		Reply length
 */
static void opt_absent(uint8_t code, size_t n)
{
	size_t olen;

	ck_assert_msg(opt(out, n, code, 0, &olen) == NULL,
		      "option %u present", code);
}

/**
 * dhcp_build() - A client message from the RFC 2131 layout
 * @b:		Buffer, at least 342 bytes
 * @type:	Option 53 value
 * @src:	IPv4 source, also ciaddr when not "0.0.0.0"
 * @dst:	IPv4 destination
 * @extra:	More options (code, length, data...) or NULL
 * @extra_len:	Length of @extra
 *
 * From MAC 52:54:00:12:34:56, UDP 68 -> 67, xid 0x01020304, BOOTP
 * message of 300 bytes (options padded with 0).
 *
 * Return: frame length (342)
 */
static size_t dhcp_build(uint8_t *b, uint8_t type, const char *src,
			 const char *dst, const uint8_t *extra,
			 size_t extra_len)
{
	static const uint8_t hdr[14] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x08, 0x00
	};
	size_t i = OPTS;

	memset(b, 0, 342);
	memcpy(b, hdr, sizeof(hdr));
	b[IP] = 0x45;
	b[IP + 2] = 0x01;		/* total length 328 */
	b[IP + 3] = 0x48;
	b[IP + 8] = 64;
	b[IP + 9] = 17;
	inet_pton(AF_INET, src, b + IP + 12);
	inet_pton(AF_INET, dst, b + IP + 16);
	ref_ip4_csum_fix(b + IP);
	b[UDP + 1] = 68;
	b[UDP + 3] = 67;
	b[UDP + 4] = 0x01;		/* UDP length 308 */
	b[UDP + 5] = 0x34;

	b[OP] = 1;
	b[OP + 1] = 1;
	b[OP + 2] = 6;
	b[XID] = 1;
	b[XID + 1] = 2;
	b[XID + 2] = 3;
	b[XID + 3] = 4;
	memcpy(b + CIADDR, b + IP + 12, 4);
	memcpy(b + CHADDR, hdr + 6, 6);
	b[COOKIE] = 99;
	b[COOKIE + 1] = 130;
	b[COOKIE + 2] = 83;
	b[COOKIE + 3] = 99;
	b[i++] = 53;
	b[i++] = 1;
	b[i++] = type;
	if (extra_len)
		memcpy(b + i, extra, extra_len);
	i += extra_len;
	b[i] = 255;
	return 342;
}

/**
 * check_reply_common() - Fields every reply to @req has
 * @req:	Client frame
 * @n:		Reply length
 *
 * RFC 2131 section 4.1 and table 3: from server port 67 to client port
 * 68, from our MAC and the server identifier 203.0.113.2, op BOOTREPLY,
 * htype, hlen, xid, flags and chaddr as in the request, giaddr 0, magic
 * cookie; RFC 951: a message of at least 300 bytes.
 */
static void check_reply_common(const uint8_t *req, size_t n)
{
	ck_assert_uint_ge(n, BOOTP + 300);
	ck_assert_mem_eq(out + 6, c.mac_our, 6);
	ck_assert_uint_eq(out[12], 0x08);
	ck_assert_uint_eq(out[13], 0x00);
	ck_assert_mem_eq(out + IP + 12, gw_ip, 4);
	ck_assert_uint_eq((unsigned)(out[UDP] << 8 | out[UDP + 1]), 67);
	ck_assert_uint_eq((unsigned)(out[UDP + 2] << 8 | out[UDP + 3]), 68);
	ck_assert_uint_eq(out[OP], 2);
	ck_assert_uint_eq(out[OP + 1], 1);
	ck_assert_uint_eq(out[OP + 2], 6);
	ck_assert_mem_eq(out + XID, req + XID, 4);
	ck_assert_mem_eq(out + FLAGS, req + FLAGS, 2);
	ck_assert_mem_eq(out + CHADDR, req + CHADDR, 16);
	ck_assert_uint_eq(out[SIADDR] | out[SIADDR + 3], 0);
	ck_assert_uint_eq(out[GIADDR] | out[GIADDR + 3], 0);
	ck_assert_uint_eq(out[COOKIE], 99);
	ck_assert_uint_eq(out[COOKIE + 1], 130);
	ck_assert_uint_eq(out[COOKIE + 2], 83);
	ck_assert_uint_eq(out[COOKIE + 3], 99);
}

/**
 * check_config_opts() - Configuration options from fake_conf.h
 * @n:		Reply length
 */
static void check_config_opts(size_t n)
{
	/* RFC 1035 3.1 by hand, RFC 3397: the second name points back to
	 * "example.org" at offset 0 (0xc000)
	 */
	static const uint8_t search[] = {
		7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'o', 'r', 'g', 0,
		3, 'l', 'a', 'b', 0xc0, 0x00
	};
	static const uint8_t mask[4] = { 255, 255, 255, 0 };
	static const uint8_t dns[4] = { 203, 0, 113, 3 };
	static const uint8_t mtu[2] = { 0x05, 0xdc };	/* 1500 */

	opt_eq(54, gw_ip, 4, n);
	opt_eq(1, mask, 4, n);
	opt_eq(3, gw_ip, 4, n);
	opt_eq(6, dns, 4, n);
	opt_eq(26, mtu, 2, n);
	opt_eq(12, "guest", 5, n);
	opt_eq(15, "example.org", 11, n);
	opt_eq(119, search, sizeof(search), n);
	opt_absent(121, n);
}

/* udhcpc DISCOVER, broadcast flag clear, ciaddr 0: RFC 2131 4.1 says
 * the OFFER goes unicast to chaddr and yiaddr
 */
START_TEST(test_dhcp_handle_udhcpc_discover_offer)
{
	static const uint8_t offer = 2, lease[4] = { 0xff, 0xff, 0xff, 0xff };
	size_t n, olen;
	const uint8_t *p;

	n = run(cap_dhcp_discover_udhcpc, sizeof(cap_dhcp_discover_udhcpc));
	ck_assert_uint_gt(n, 0);
	check_reply_common(cap_dhcp_discover_udhcpc, n);
	ck_assert_mem_eq(out, cap_dhcp_discover_udhcpc + 6, 6);
	ck_assert_mem_eq(out + IP + 16, guest_ip, 4);
	ck_assert_mem_eq(out + YIADDR, guest_ip, 4);
	ck_assert_uint_eq(out[CIADDR] | out[CIADDR + 3], 0);
	opt_eq(53, &offer, 1, n);
	opt_eq(51, lease, 4, n);	/* RFC 2131 3.3: infinite */
	check_config_opts(n);

	/* RFC 6842: client identifier echoed (7 bytes: type 1 + MAC) */
	p = opt(cap_dhcp_discover_udhcpc, sizeof(cap_dhcp_discover_udhcpc),
		61, 0, &olen);
	ck_assert_ptr_nonnull(p);
	opt_eq(61, p, olen, n);

	/* Option 57 of udhcpc is 576: the datagram may not be longer */
	ck_assert_uint_le(n - 14, 576);
	ck_assert_uint_eq(svc_stats.dhcp_req, 1);
	ck_assert_uint_eq(svc_stats.dhcp_reply, 1);
}
END_TEST

/* udhcpc REQUEST for 203.0.113.15, server identifier 203.0.113.2 */
START_TEST(test_dhcp_handle_udhcpc_request_ack)
{
	static const uint8_t ack = 5, lease[4] = { 0xff, 0xff, 0xff, 0xff };
	size_t n;

	n = run(cap_dhcp_request_udhcpc, sizeof(cap_dhcp_request_udhcpc));
	ck_assert_uint_gt(n, 0);
	check_reply_common(cap_dhcp_request_udhcpc, n);
	ck_assert_mem_eq(out, cap_dhcp_request_udhcpc + 6, 6);
	ck_assert_mem_eq(out + IP + 16, guest_ip, 4);
	ck_assert_mem_eq(out + YIADDR, guest_ip, 4);
	opt_eq(53, &ack, 1, n);
	opt_eq(51, lease, 4, n);
	check_config_opts(n);
}
END_TEST

/* Following the host (the default): a 600 s lease, so that the client
 * renews after 300 s (RFC 2131 4.4.5, T1) and learns of a new address
 */
START_TEST(test_dhcp_handle_request_ack_following)
{
	static const uint8_t ack = 5, lease[4] = { 0, 0, 0x02, 0x58 };
	size_t n;

	c.no_follow_host = false;
	n = run(cap_dhcp_request_udhcpc, sizeof(cap_dhcp_request_udhcpc));
	ck_assert_uint_gt(n, 0);
	opt_eq(53, &ack, 1, n);
	opt_eq(51, lease, 4, n);
}
END_TEST

/* -m 0 (upstream passt.1: "A zero value disables assignment"): no
 * option 26 (RFC 2132 5.1) in the OFFER, the other options as usual
 */
START_TEST(test_dhcp_handle_no_mtu_option)
{
	size_t n;

	c.no_mtu = true;
	n = run(cap_dhcp_discover_udhcpc, sizeof(cap_dhcp_discover_udhcpc));
	ck_assert_uint_gt(n, 0);
	opt_absent(26, n);
	opt_eq(12, "guest", 5, n);
}
END_TEST

/* dhclient sends no client identifier: none in the reply */
START_TEST(test_dhcp_handle_dhclient_exchange)
{
	static const uint8_t offer = 2, ack = 5;
	size_t n;

	n = run(cap_dhcp_discover_dhclient,
		sizeof(cap_dhcp_discover_dhclient));
	ck_assert_uint_gt(n, 0);
	check_reply_common(cap_dhcp_discover_dhclient, n);
	opt_eq(53, &offer, 1, n);
	opt_absent(61, n);
	check_config_opts(n);

	n = run(cap_dhcp_request_dhclient, sizeof(cap_dhcp_request_dhclient));
	ck_assert_uint_gt(n, 0);
	check_reply_common(cap_dhcp_request_dhclient, n);
	opt_eq(53, &ack, 1, n);
	ck_assert_mem_eq(out + YIADDR, guest_ip, 4);
	ck_assert_uint_eq(svc_stats.dhcp_reply, 2);
}
END_TEST

/* RFC 2131 4.1: broadcast bit (0x8000) set -> reply to 255.255.255.255
 * and the broadcast MAC; the flags field is echoed
 */
START_TEST(test_dhcp_handle_broadcast_flag_honoured)
{
	static const uint8_t bcast_ip[4] = { 255, 255, 255, 255 };
	uint8_t b[sizeof(cap_dhcp_discover_dhclient)];
	size_t n;

	memcpy(b, cap_dhcp_discover_dhclient, sizeof(b));
	b[FLAGS] = 0x80;
	n = run(b, sizeof(b));
	ck_assert_uint_gt(n, 0);
	ck_assert_mem_eq(out, bcast_mac, 6);
	ck_assert_mem_eq(out + IP + 16, bcast_ip, 4);
	ck_assert_uint_eq(out[FLAGS], 0x80);
	ck_assert_mem_eq(out + YIADDR, guest_ip, 4);
}
END_TEST

/* The real REQUEST asks for 203.0.113.15, but our address is 203.0.113.16:
 * RFC 2131 4.3.2 NAK, broadcast (giaddr 0), table 3: yiaddr 0, only
 * options 53 and 54 (and 61 from RFC 6842)
 */
START_TEST(test_dhcp_handle_request_wrong_address_nak)
{
	static const uint8_t bcast_ip[4] = { 255, 255, 255, 255 };
	static const uint8_t nak = 6;
	size_t n;

	inet_pton(AF_INET, "203.0.113.16", &c.ip4.addr);
	n = run(cap_dhcp_request_udhcpc, sizeof(cap_dhcp_request_udhcpc));
	ck_assert_uint_gt(n, 0);
	check_reply_common(cap_dhcp_request_udhcpc, n);
	ck_assert_mem_eq(out, bcast_mac, 6);
	ck_assert_mem_eq(out + IP + 16, bcast_ip, 4);
	ck_assert_uint_eq(out[YIADDR] | out[YIADDR + 1] | out[YIADDR + 2] |
			  out[YIADDR + 3], 0);
	opt_eq(53, &nak, 1, n);
	opt_eq(54, gw_ip, 4, n);
	opt_absent(51, n);
	opt_absent(1, n);
	opt_absent(3, n);
	opt_absent(6, n);
	ck_assert_uint_eq(svc_stats.dhcp_nak, 1);
	ck_assert_uint_eq(svc_stats.dhcp_reply, 0);
}
END_TEST

/* The REQUEST names server 203.0.113.2, we are 203.0.113.1: RFC 2131 4.3.2,
 * the client declined our offer, no answer
 */
START_TEST(test_dhcp_handle_request_other_server_silent)
{
	inet_pton(AF_INET, "203.0.113.1", &c.ip4.gw);
	ck_assert_uint_eq(run(cap_dhcp_request_udhcpc,
			      sizeof(cap_dhcp_request_udhcpc)), 0);
	ck_assert_uint_eq(svc_stats.dhcp_req, 1);
	ck_assert_uint_eq(svc_stats.dhcp_nak, 0);
}
END_TEST

/* RENEWING (RFC 2131 4.3.2): ciaddr filled, no options 50 and 54; the
 * ACK goes unicast to ciaddr and echoes it (table 3)
 */
START_TEST(test_dhcp_handle_renew_unicast_ack)
{
	static const uint8_t ack = 5;
	uint8_t b[342];
	size_t n;

	dhcp_build(b, 3, "203.0.113.15", "203.0.113.2", NULL, 0);
	n = run(b, sizeof(b));
	ck_assert_uint_gt(n, 0);
	check_reply_common(b, n);
	opt_eq(53, &ack, 1, n);
	ck_assert_mem_eq(out, b + 6, 6);
	ck_assert_mem_eq(out + IP + 16, guest_ip, 4);
	ck_assert_mem_eq(out + CIADDR, guest_ip, 4);
	ck_assert_mem_eq(out + YIADDR, guest_ip, 4);
}
END_TEST

/* Renewal of another address: NAK */
START_TEST(test_dhcp_handle_renew_wrong_address_nak)
{
	static const uint8_t nak = 6;
	uint8_t b[342];
	size_t n;

	dhcp_build(b, 3, "203.0.113.99", "203.0.113.2", NULL, 0);
	n = run(b, sizeof(b));
	ck_assert_uint_gt(n, 0);
	opt_eq(53, &nak, 1, n);
	/* RFC 2131 4.1: with giaddr 0 a NAK is always broadcast */
	ck_assert_mem_eq(out, bcast_mac, 6);
	ck_assert_uint_eq(out[IP + 16] & out[IP + 17] & out[IP + 18] &
			  out[IP + 19], 255);
	ck_assert_uint_eq(out[CIADDR] | out[CIADDR + 3], 0);
}
END_TEST

/* DHCPINFORM (RFC 2131 3.4, 4.3.5): ACK to ciaddr, no yiaddr, no lease
 * time, but the configuration
 */
START_TEST(test_dhcp_handle_inform_ack_without_lease)
{
	static const uint8_t ack = 5;
	uint8_t b[342];
	size_t n;

	dhcp_build(b, 8, "203.0.113.15", "255.255.255.255", NULL, 0);
	n = run(b, sizeof(b));
	ck_assert_uint_gt(n, 0);
	check_reply_common(b, n);
	opt_eq(53, &ack, 1, n);
	opt_absent(51, n);
	check_config_opts(n);
	ck_assert_mem_eq(out + IP + 16, guest_ip, 4);
	ck_assert_mem_eq(out + CIADDR, guest_ip, 4);
	ck_assert_uint_eq(out[YIADDR] | out[YIADDR + 1] | out[YIADDR + 2] |
			  out[YIADDR + 3], 0);
}
END_TEST

/* DHCPRELEASE (7) and DHCPDECLINE (4): nothing to answer */
START_TEST(test_dhcp_handle_release_decline_ignored)
{
	static const uint8_t req[] = { 50, 4, 203, 0, 113, 15 };
	uint8_t b[342];

	dhcp_build(b, 7, "203.0.113.15", "203.0.113.2", NULL, 0);
	ck_assert_uint_eq(run(b, sizeof(b)), 0);
	dhcp_build(b, 4, "0.0.0.0", "255.255.255.255", req, sizeof(req));
	ck_assert_uint_eq(run(b, sizeof(b)), 0);
	ck_assert_uint_eq(svc_stats.dhcp_req, 2);
	ck_assert_uint_eq(svc_stats.dhcp_bad, 0);
}
END_TEST

/* Malformed messages: counted, never answered */
START_TEST(test_dhcp_handle_malformed_counted)
{
	uint8_t b[342];
	size_t olen;
	uint8_t *p;

	/* Last option (61, client identifier) claims 255 bytes, more than
	 * the message has left
	 */
	memcpy(b, cap_dhcp_discover_udhcpc, sizeof(b));
	p = UNCONST(uint8_t *, opt(b, sizeof(b), 61, 0, &olen));
	ck_assert_ptr_nonnull(p);
	ck_assert_int_lt(b + sizeof(b) - p, 255);
	p[-1] = 255;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* BOOTREPLY (op 2) from the client */
	memcpy(b, cap_dhcp_discover_udhcpc, sizeof(b));
	b[OP] = 2;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* Hardware type 6 (IEEE 802) */
	memcpy(b, cap_dhcp_discover_udhcpc, sizeof(b));
	b[OP + 1] = 6;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* Option 53 with length 2 (RFC 2132 9.6 says 1) */
	dhcp_build(b, 1, "0.0.0.0", "255.255.255.255", NULL, 0);
	b[OPTS + 1] = 2;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	/* Message type 9 is not a DHCPv4 type (RFC 2132 9.6) */
	dhcp_build(b, 9, "0.0.0.0", "255.255.255.255", NULL, 0);
	ck_assert_uint_eq(run(b, sizeof(b)), 0);

	ck_assert_uint_eq(svc_stats.dhcp_bad, 5);
	ck_assert_uint_eq(svc_stats.dhcp_req, 0);
}
END_TEST

/* A BOOTP client (RFC 951): a BOOTREQUEST whose vendor area holds only
 * the RFC 1497 magic cookie and END, no option 53.  It gets a BOOTREPLY
 * (op 2, its xid and chaddr, yiaddr its address, at least 300 bytes) with
 * the RFC 1497 / RFC 2132 section 3 options, subnet mask (1) and router (3),
 * and none of the DHCP-only ones: 53, 51, 54 (RFC 2132 section 9)
 */
START_TEST(test_dhcp_handle_bootp_request_bootreply)
{
	static const uint8_t mask[4] = { 255, 255, 255, 0 };
	uint8_t b[342];
	size_t n;

	dhcp_build(b, 1, "0.0.0.0", "255.255.255.255", NULL, 0);
	b[OPTS] = 255;			/* END right after the cookie */
	b[OPTS + 1] = 0;
	b[OPTS + 2] = 0;
	b[OPTS + 3] = 0;
	n = run(b, sizeof(b));
	ck_assert_uint_gt(n, 0);
	check_reply_common(b, n);
	ck_assert_mem_eq(out + YIADDR, guest_ip, 4);
	opt_eq(1, mask, 4, n);
	opt_eq(3, gw_ip, 4, n);
	opt_absent(53, n);
	opt_absent(51, n);
	opt_absent(54, n);
	ck_assert_uint_eq(svc_stats.dhcp_bad, 0);
	ck_assert_uint_eq(svc_stats.dhcp_reply, 1);
}
END_TEST

/* An RFC 951 BOOTP client that knows nothing of RFC 1497: the 300-byte
 * BOOTREQUEST (op 1, htype 1, hlen 6, xid, chaddr) has a vendor area of
 * 64 zero bytes, no magic cookie.  It gets a 300-byte BOOTREPLY (RFC 951
 * section 3: op 2, same xid, flags and chaddr, yiaddr its address, siaddr
 * the server's) whose vendor area is zero too (no cookie, no options: the
 * client's format for that area is unknown), unicast to yiaddr and chaddr
 * (RFC 951 section 4, RFC 1542 section 5.4: broadcast flag clear); a
 * client that sets the broadcast flag (RFC 1542 section 3.1.1) gets it to
 * 255.255.255.255 and ff:ff:ff:ff:ff:ff.  Both are requests, not errors.
 */
START_TEST(test_dhcp_handle_bootp_rfc951_no_cookie)
{
	static const uint8_t zero[64] = { 0 };
	uint8_t b[342];
	size_t n;

	dhcp_build(b, 1, "0.0.0.0", "255.255.255.255", NULL, 0);
	memset(b + COOKIE, 0, 64);	/* RFC 951 vend: 64 bytes, unused */
	n = run(b, sizeof(b));
	ck_assert_uint_eq(n, BOOTP + 300);
	ck_assert_uint_eq(out[OP], 2);
	ck_assert_uint_eq(out[OP + 1], 1);
	ck_assert_uint_eq(out[OP + 2], 6);
	ck_assert_mem_eq(out + XID, b + XID, 4);
	ck_assert_mem_eq(out + FLAGS, b + FLAGS, 2);
	ck_assert_mem_eq(out + CHADDR, b + CHADDR, 16);
	ck_assert_mem_eq(out + YIADDR, guest_ip, 4);
	ck_assert_mem_eq(out + SIADDR, gw_ip, 4);
	ck_assert_uint_eq(out[GIADDR] | out[GIADDR + 3], 0);
	ck_assert_mem_eq(out + COOKIE, zero, 64);
	ck_assert_mem_eq(out + IP + 12, gw_ip, 4);
	ck_assert_mem_eq(out + IP + 16, guest_ip, 4);
	ck_assert_mem_eq(out, b + CHADDR, 6);
	ck_assert_uint_eq((unsigned)(out[UDP] << 8 | out[UDP + 1]), 67);
	ck_assert_uint_eq((unsigned)(out[UDP + 2] << 8 | out[UDP + 3]), 68);

	b[FLAGS] = 0x80;		/* broadcast flag, RFC 1542 3.1.1 */
	n = run(b, sizeof(b));
	ck_assert_uint_eq(n, BOOTP + 300);
	ck_assert_mem_eq(out, bcast_mac, 6);
	ck_assert_uint_eq(out[IP + 16] & out[IP + 17] & out[IP + 18] &
			  out[IP + 19], 255);

	ck_assert_uint_eq(svc_stats.dhcp_bad, 0);
	ck_assert_uint_eq(svc_stats.dhcp_req, 2);
	ck_assert_uint_eq(svc_stats.dhcp_reply, 2);
}
END_TEST

/* A DISCOVER without a parameter request list (option 55): the OFFER
 * still starts with option 53, right after the magic cookie
 */
START_TEST(test_dhcp_handle_msg_type_first_without_prl)
{
	uint8_t b[342];
	size_t n;

	dhcp_build(b, 1, "0.0.0.0", "255.255.255.255", NULL, 0);
	n = run(b, sizeof(b));
	ck_assert_uint_gt(n, OPTS + 3);
	ck_assert_uint_eq(out[OPTS], 53);
	ck_assert_uint_eq(out[OPTS + 1], 1);
	ck_assert_uint_eq(out[OPTS + 2], 2);	/* DHCPOFFER */
}
END_TEST

/* 239 bytes of UDP payload: shorter than the fixed BOOTP fields plus the
 * magic cookie (240)
 */
START_TEST(test_dhcp_handle_short_message_counted)
{
	uint8_t b[14 + 20 + 8 + 239];

	memcpy(b, cap_dhcp_discover_udhcpc, sizeof(b));
	b[IP + 2] = (20 + 8 + 239) >> 8;
	b[IP + 3] = (20 + 8 + 239) & 0xff;
	ref_ip4_csum_fix(b + IP);
	b[UDP + 4] = 0;
	b[UDP + 5] = 8 + 239;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);
	ck_assert_uint_eq(svc_stats.dhcp_bad, 1);
}
END_TEST

/* Relayed (giaddr set, here 198.51.100.1): not from our link */
START_TEST(test_dhcp_handle_relayed_ignored)
{
	static const uint8_t relay[4] = { 198, 51, 100, 1 };
	uint8_t b[342];

	memcpy(b, cap_dhcp_discover_udhcpc, sizeof(b));
	memcpy(b + GIADDR, relay, sizeof(relay));
	ck_assert_uint_eq(run(b, sizeof(b)), 0);
}
END_TEST

/* Not for us: UDP to another port, IPv6, no_dhcp, no gateway */
START_TEST(test_dhcp_handle_not_for_us_ignored)
{
	ck_assert_uint_eq(run(cap_udp4, sizeof(cap_udp4)), 0);
	ck_assert_uint_eq(run(cap_dhcpv6_solicit, sizeof(cap_dhcpv6_solicit)),
			  0);
	ck_assert_uint_eq(svc_stats.dhcp_req + svc_stats.dhcp_bad, 0);

	c.no_dhcp = true;
	ck_assert_uint_eq(run(cap_dhcp_discover_udhcpc,
			      sizeof(cap_dhcp_discover_udhcpc)), 0);
	c.no_dhcp = false;
	c.ip4.gw.s_addr = 0;
	ck_assert_uint_eq(run(cap_dhcp_discover_udhcpc,
			      sizeof(cap_dhcp_discover_udhcpc)), 0);
}
END_TEST

/* Switches: no DNS (6), no search (15, 119), MTU below 576 (26), no host
 * name (12)
 */
START_TEST(test_dhcp_handle_options_switched_off)
{
	size_t n;

	c.no_dhcp_dns = true;
	c.no_dhcp_search = true;
	c.mtu = 575;
	c.hostname[0] = 0;
	n = run(cap_dhcp_discover_dhclient,
		sizeof(cap_dhcp_discover_dhclient));
	ck_assert_uint_gt(n, 0);
	opt_absent(6, n);
	opt_absent(15, n);
	opt_absent(119, n);
	opt_absent(26, n);
	opt_absent(12, n);
	/* Few options: padded to the 300-byte BOOTP minimum (RFC 951) */
	ck_assert_uint_eq(n, BOOTP + 300);
	ck_assert_uint_eq((unsigned)(out[UDP + 4] << 8 | out[UDP + 5]), 308);
}
END_TEST

/* RFC 3397 section 3: "eng.apple.com." and "marketing.apple.com."
 * encode as 03 eng 05 apple 03 com 00 09 marketing c0 04
 */
START_TEST(test_dhcp_handle_search_rfc3397_example)
{
	static const uint8_t ex[] = {
		3, 'e', 'n', 'g', 5, 'a', 'p', 'p', 'l', 'e', 3, 'c', 'o', 'm',
		0, 9, 'm', 'a', 'r', 'k', 'e', 't', 'i', 'n', 'g', 0xc0, 0x04
	};
	size_t n;

	strcpy(c.search[0], "eng.apple.com.");
	strcpy(c.search[1], "marketing.apple.com.");
	n = run(cap_dhcp_discover_dhclient,
		sizeof(cap_dhcp_discover_dhclient));
	opt_eq(119, ex, sizeof(ex), n);
	opt_eq(15, "eng.apple.com", 13, n);
}
END_TEST

/**
 * search_names() - Decode concatenated option 119 data (RFC 1035 4.1.4)
 * @d:		Data
 * @len:	Length
 * @names:	Output, dotted names
 * @max:	Size of @names
 *
 * Return: number of names decoded
 */
static int search_names(const uint8_t *d, size_t len, char names[][256],
			int max)
{
	size_t i = 0;
	int n = 0;

	while (i < len && n < max) {
		size_t p = i, o = 0;
		bool jumped = false;
		int hops = 0;

		for (;;) {
			ck_assert_uint_lt(p, len);
			if ((d[p] & 0xc0) == 0xc0) {
				ck_assert_uint_lt(p + 1, len);
				if (!jumped)
					i = p + 2;
				jumped = true;
				p = (size_t)(d[p] & 0x3f) << 8 | d[p + 1];
				ck_assert_int_lt(++hops, 64);
				continue;
			}
			if (!d[p]) {
				if (!jumped)
					i = p + 1;
				break;
			}
			ck_assert_uint_le(p + 1 + d[p], len);
			if (o)
				names[n][o++] = '.';
			memcpy(names[n] + o, d + p + 1, d[p]);
			o += d[p];
			p += 1 + d[p];
		}
		names[n][o] = 0;
		n++;
	}
	return n;
}

/**
 * long_search() - Fill the search list with 8 names of 62 + 12 bytes
 */
static void long_search(void)
{
	int i;

	for (i = 0; i < CONF_MAX_SEARCH; i++) {
		memset(c.search[i], 'a' + i, 62);
		strcpy(c.search[i] + 62, ".example.net");
	}
	c.search_count = CONF_MAX_SEARCH;
}

/**
 * search_from_reply() - Concatenate all option 119 instances (RFC 3396)
 * @n:		Reply length
 * @buf:	Output
 *
 * Return: bytes of concatenated data
 */
static size_t search_from_reply(size_t n, uint8_t *buf)
{
	const uint8_t *p;
	size_t len = 0, olen;
	int k;

	for (k = 0; (p = opt(out, n, 119, k, &olen)); k++) {
		memcpy(buf + len, p, olen);
		len += olen;
	}
	return len;
}

/* udhcpc says 576 (option 57): only the whole names that fit are sent */
START_TEST(test_dhcp_handle_search_cut_at_max_message)
{
	char names[CONF_MAX_SEARCH][256];
	uint8_t buf[2048];
	size_t n, len;
	int k, i;

	long_search();
	n = run(cap_dhcp_request_udhcpc, sizeof(cap_dhcp_request_udhcpc));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_le(n - 14, 576);
	len = search_from_reply(n, buf);
	ck_assert_uint_gt(len, 0);
	k = search_names(buf, len, names, CONF_MAX_SEARCH);
	ck_assert_int_ge(k, 1);
	ck_assert_int_lt(k, CONF_MAX_SEARCH);
	for (i = 0; i < k; i++)
		ck_assert_str_eq(names[i], c.search[i]);
}
END_TEST

/* Option 57 raised to 1500: all 8 names go, in options of at most 255
 * bytes that the client concatenates (RFC 3396, RFC 3397 section 2)
 */
START_TEST(test_dhcp_handle_search_split_when_long)
{
	char names[CONF_MAX_SEARCH][256];
	uint8_t b[342], buf[2048];
	size_t n, len, olen;
	uint8_t *p;
	int k, i;

	long_search();
	memcpy(b, cap_dhcp_request_udhcpc, sizeof(b));
	p = UNCONST(uint8_t *, opt(b, sizeof(b), 57, 0, &olen));
	ck_assert_ptr_nonnull(p);
	p[0] = 0x05;			/* 1500 */
	p[1] = 0xdc;
	n = run(b, sizeof(b));
	ck_assert_uint_gt(n, 14 + 576);
	ck_assert_uint_le(n - 14, 1500);
	ck_assert_ptr_nonnull(opt(out, n, 119, 1, &olen));
	len = search_from_reply(n, buf);
	k = search_names(buf, len, names, CONF_MAX_SEARCH);
	ck_assert_int_eq(k, CONF_MAX_SEARCH);
	for (i = 0; i < k; i++)
		ck_assert_str_eq(names[i], c.search[i]);
}
END_TEST

/* RFC 4702 option 81 for --fqdn guest.example.org: flags, RCODE1, RCODE2
 * (255 from a server, section 2.2), then the name.  Flag bits (section
 * 2.1): S 0x01, O 0x02, E 0x04, N 0x08.  We do no DNS updates: N set, S
 * clear (section 2.1: N set requires S clear), O set when the client's S
 * was set (our S differs).  E follows the client's E (section 4), E set
 * when the client sent no option 81 (wire format is the SHOULD of
 * section 2.3).  Wire format by hand from RFC 1035 section 3.1.
 */
static const uint8_t fqdn_wire[] = {
	5, 'g', 'u', 'e', 's', 't', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
	3, 'o', 'r', 'g', 0
};

/**
 * fqdn_eq() - Assert option 81 holds @flags, RCODEs 255 and @name
 * @flags:	Expected flags byte
 * @name:	Expected name bytes
 * @len:	Length of @name
 * @n:		Reply length
 */
static void fqdn_eq(uint8_t flags, const void *name, size_t len, size_t n)
{
	uint8_t exp[3 + 255] = { 0 };

	exp[0] = flags;
	exp[1] = 255;
	exp[2] = 255;
	memcpy(exp + 3, name, len);
	opt_eq(81, exp, 3 + len, n);
}

/**
 * fqdn_request() - A REQUEST for our address with the given option 81
 * @b:		Buffer, 342 bytes
 * @flags:	Client's flags byte
 * @wire:	Client's name in wire format (else ASCII)
 *
 * Return: frame length
 */
static size_t fqdn_request(uint8_t *b, uint8_t flags, bool wire)
{
	static const uint8_t wname[] = { 2, 'v', 'm', 0 };
	uint8_t x[6 + 3 + 4 + 8] = { 50, 4, 203, 0, 113, 15, 81 };
	size_t len = 6 + 2 + 3;

	x[8] = flags;		/* RCODE1, RCODE2: 0 from a client */
	if (wire) {
		memcpy(x + len, wname, sizeof(wname));
		len += sizeof(wname);
	} else {
		memcpy(x + len, "vm", 2);
		len += 2;
	}
	x[7] = (uint8_t)(len - 8);
	return dhcp_build(b, 3, "0.0.0.0", "255.255.255.255", x, len);
}

/* No option 81 from udhcpc: ours in wire format, flags N|E = 0x0c */
START_TEST(test_dhcp_handle_fqdn_unasked_wire_format)
{
	size_t n;

	strcpy(c.fqdn, "guest.example.org");
	n = run(cap_dhcp_discover_udhcpc, sizeof(cap_dhcp_discover_udhcpc));
	ck_assert_uint_gt(n, 0);
	fqdn_eq(0x0c, fqdn_wire, sizeof(fqdn_wire), n);
	n = run(cap_dhcp_request_udhcpc, sizeof(cap_dhcp_request_udhcpc));
	ck_assert_uint_gt(n, 0);
	fqdn_eq(0x0c, fqdn_wire, sizeof(fqdn_wire), n);
	opt_eq(12, "guest", 5, n);	/* option 12 unchanged */
	ck_assert_uint_eq(svc_stats.dhcp_fqdn_skipped, 0);
}
END_TEST

/* Client sent E=0 (ASCII, deprecated but allowed, section 2.3.1) and S=1:
 * reply in ASCII with E clear, N set, O set because our S (0) differs
 */
START_TEST(test_dhcp_handle_fqdn_client_ascii_echoed)
{
	uint8_t b[342];
	size_t n;

	strcpy(c.fqdn, "guest.example.org");
	n = run(b, fqdn_request(b, 0x01, false));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(out[OPTS + 2], 5);		/* DHCPACK */
	fqdn_eq(0x0a, "guest.example.org", 17, n);
}
END_TEST

/* Client sent E=1 and S=0: wire format, N|E, no O */
START_TEST(test_dhcp_handle_fqdn_client_wire_no_update)
{
	uint8_t b[342];
	size_t n;

	strcpy(c.fqdn, "guest.example.org");
	n = run(b, fqdn_request(b, 0x04, true));
	ck_assert_uint_gt(n, 0);
	fqdn_eq(0x0c, fqdn_wire, sizeof(fqdn_wire), n);
}
END_TEST

/* Client sent E=1 and S=1 (asks us to update A): N|E|O = 0x0e */
START_TEST(test_dhcp_handle_fqdn_client_wire_update_overridden)
{
	uint8_t b[342];
	size_t n;

	strcpy(c.fqdn, "guest.example.org");
	n = run(b, fqdn_request(b, 0x05, true));
	ck_assert_uint_gt(n, 0);
	fqdn_eq(0x0e, fqdn_wire, sizeof(fqdn_wire), n);
}
END_TEST

/* Without --fqdn, no option 81 even if the client sent one; never in NAK */
START_TEST(test_dhcp_handle_fqdn_absent_without_option_or_in_nak)
{
	uint8_t b[342];
	size_t n;

	n = run(b, fqdn_request(b, 0x05, true));
	ck_assert_uint_gt(n, 0);
	opt_absent(81, n);

	strcpy(c.fqdn, "guest.example.org");
	c.ip4.addr.s_addr = htonl(0xcb00710e);		/* 203.0.113.14 */
	n = run(b, fqdn_request(b, 0x05, true));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(out[OPTS + 2], 6);		/* DHCPNAK */
	opt_absent(81, n);
}
END_TEST

/**
 * long_fqdn() - Set --fqdn to labels of 50 'a' and a last label of 'b's
 * @len:	Total name length, characters (51 * k + last label)
 */
static void long_fqdn(size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		c.fqdn[i] = (i % 51 == 50) ? '.' : 'a';
	c.fqdn[len] = '\0';
	ck_assert(c.fqdn[len - 1] != '.');
}

/* One option carries 255 bytes (RFC 2132 section 2): flags and RCODEs
 * take 3, so a name of 250 characters (252 bytes in wire format: one
 * length byte per label plus the root label) is the longest that fits;
 * one of 251 characters is left out and counted, the rest of the reply
 * is there.  Option 57 raised so the message size is not what limits.
 */
START_TEST(test_dhcp_handle_fqdn_longest_fits_one_longer_skipped)
{
	uint8_t b[342], x[] = { 57, 2, 0x05, 0xdc };
	const uint8_t *p;
	size_t n, olen;

	c.no_dhcp_search = true;
	long_fqdn(250);
	n = run(b, dhcp_build(b, 1, "0.0.0.0", "255.255.255.255", x,
			      sizeof(x)));
	ck_assert_uint_gt(n, 0);
	p = opt(out, n, 81, 0, &olen);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(olen, 255);
	ck_assert_uint_eq(p[0], 0x0c);
	ck_assert_uint_eq(p[3], 50);			/* first label */
	ck_assert_uint_eq(p[254], 0);			/* root label */
	ck_assert_uint_eq(svc_stats.dhcp_fqdn_skipped, 0);

	long_fqdn(251);
	n = run(b, dhcp_build(b, 1, "0.0.0.0", "255.255.255.255", x,
			      sizeof(x)));
	ck_assert_uint_gt(n, 0);
	opt_absent(81, n);
	opt_eq(12, "guest", 5, n);
	ck_assert_uint_eq(svc_stats.dhcp_fqdn_skipped, 1);
	ck_assert_uint_eq(svc_stats.dhcp_reply, 2);
}
END_TEST

/* The 576-byte limit of udhcpc (option 57): with a long search list
 * taking the room, the reply still fits and option 81 comes before the
 * search list in priority, so it is there and 119 is cut
 */
START_TEST(test_dhcp_handle_fqdn_within_max_message)
{
	size_t n, olen;

	long_fqdn(200);
	long_search();
	n = run(cap_dhcp_request_udhcpc, sizeof(cap_dhcp_request_udhcpc));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_le(n - 14, 576);
	ck_assert_ptr_nonnull(opt(out, n, 81, 0, &olen));
	ck_assert_uint_eq(olen, 3 + 202);
}
END_TEST

/* Option 57 says 1500 but our MTU is 600: the reply stays within 600 */
START_TEST(test_dhcp_handle_reply_within_mtu)
{
	uint8_t b[342];
	size_t n, olen;
	uint8_t *p;

	long_search();
	c.mtu = 600;
	memcpy(b, cap_dhcp_request_udhcpc, sizeof(b));
	p = UNCONST(uint8_t *, opt(b, sizeof(b), 57, 0, &olen));
	ck_assert_ptr_nonnull(p);
	p[0] = 0x05;			/* 1500 */
	p[1] = 0xdc;
	n = run(b, sizeof(b));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_le(n - 14, 600);
	ck_assert_ptr_nonnull(opt(out, n, 119, 0, &olen));
}
END_TEST

/* /32 address: the gateway is off-link.  RFC 3442 option 121: 32,
 * 203.0.113.2 (4 significant octets), router 0.0.0.0; then 0 (default),
 * router 203.0.113.2
 */
START_TEST(test_dhcp_handle_prefix32_classless_routes)
{
	static const uint8_t r[] = {
		32, 203, 0, 113, 2, 0, 0, 0, 0, 0, 203, 0, 113, 2
	};
	static const uint8_t mask[4] = { 255, 255, 255, 255 };
	size_t n;

	c.ip4.prefix_len = 32;
	n = run(cap_dhcp_discover_dhclient,
		sizeof(cap_dhcp_discover_dhclient));
	opt_eq(1, mask, 4, n);
	opt_eq(121, r, sizeof(r), n);
}
END_TEST

START_TEST(test_dhcp_handle_small_buffer_no_reply)
{
	struct frame f;

	ck_assert_int_eq(frame_parse(cap_dhcp_discover_udhcpc,
				     sizeof(cap_dhcp_discover_udhcpc), &f), 0);
	ck_assert_uint_eq(dhcp_handle(&c, &f, out, 341), 0);
	ck_assert_uint_eq(out[0], 0xaa);
	ck_assert_uint_gt(dhcp_handle(&c, &f, out, 342), 0);
}
END_TEST

START_TEST(test_dhcp_handle_damaged_frames_safe)
{
	svc_robustness(dhcp_handle, &c, cap_dhcp_discover_udhcpc,
		       sizeof(cap_dhcp_discover_udhcpc), 3000);
	svc_robustness(dhcp_handle, &c, cap_dhcp_request_udhcpc,
		       sizeof(cap_dhcp_request_udhcpc), 3000);
	long_search();
	svc_robustness(dhcp_handle, &c, cap_dhcp_request_dhclient,
		       sizeof(cap_dhcp_request_dhclient), 3000);
}
END_TEST

/**
 * dhcp_suite() - All DHCP tests
 *
 * Return: the suite
 */
static Suite *dhcp_suite(void)
{
	Suite *s = suite_create("dhcp");
	TCase *tc;

	tc = tcase_create("exchange");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_dhcp_handle_udhcpc_discover_offer);
	tcase_add_test(tc, test_dhcp_handle_udhcpc_request_ack);
	tcase_add_test(tc, test_dhcp_handle_dhclient_exchange);
	tcase_add_test(tc, test_dhcp_handle_broadcast_flag_honoured);
	tcase_add_test(tc, test_dhcp_handle_request_wrong_address_nak);
	tcase_add_test(tc, test_dhcp_handle_request_other_server_silent);
	tcase_add_test(tc, test_dhcp_handle_renew_unicast_ack);
	tcase_add_test(tc, test_dhcp_handle_renew_wrong_address_nak);
	tcase_add_test(tc, test_dhcp_handle_inform_ack_without_lease);
	tcase_add_test(tc, test_dhcp_handle_request_ack_following);
	tcase_add_test(tc, test_dhcp_handle_release_decline_ignored);
	suite_add_tcase(s, tc);

	tc = tcase_create("invalid");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_dhcp_handle_malformed_counted);
	tcase_add_test(tc, test_dhcp_handle_bootp_request_bootreply);
	tcase_add_test(tc, test_dhcp_handle_bootp_rfc951_no_cookie);
	tcase_add_test(tc, test_dhcp_handle_msg_type_first_without_prl);
	tcase_add_test(tc, test_dhcp_handle_short_message_counted);
	tcase_add_test(tc, test_dhcp_handle_relayed_ignored);
	tcase_add_test(tc, test_dhcp_handle_not_for_us_ignored);
	tcase_add_test(tc, test_dhcp_handle_small_buffer_no_reply);
	suite_add_tcase(s, tc);

	tc = tcase_create("options");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_dhcp_handle_options_switched_off);
	tcase_add_test(tc, test_dhcp_handle_search_rfc3397_example);
	tcase_add_test(tc, test_dhcp_handle_search_cut_at_max_message);
	tcase_add_test(tc, test_dhcp_handle_search_split_when_long);
	tcase_add_test(tc, test_dhcp_handle_reply_within_mtu);
	tcase_add_test(tc, test_dhcp_handle_no_mtu_option);
	tcase_add_test(tc, test_dhcp_handle_prefix32_classless_routes);
	tcase_add_test(tc, test_dhcp_handle_fqdn_unasked_wire_format);
	tcase_add_test(tc, test_dhcp_handle_fqdn_client_ascii_echoed);
	tcase_add_test(tc, test_dhcp_handle_fqdn_client_wire_no_update);
	tcase_add_test(tc, test_dhcp_handle_fqdn_client_wire_update_overridden);
	tcase_add_test(tc, test_dhcp_handle_fqdn_absent_without_option_or_in_nak);
	tcase_add_test(tc, test_dhcp_handle_fqdn_longest_fits_one_longer_skipped);
	tcase_add_test(tc, test_dhcp_handle_fqdn_within_max_message);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_dhcp_handle_damaged_frames_safe);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dhcp_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
