// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/dhcpv6_test.c - Tests for tap/dhcpv6.c (dhcpv6_handle())
 *
 * Client messages are real ones from ISC dhclient -6 (captured_frames.h)
 * or built here from the RFC 8415 section 8 layout where no capture has
 * what a test needs (Confirm, Rebind, several IA_NAs).  Option codes and
 * layouts: RFC 8415 sections 21.2-21.14, RFC 3646 sections 3 and 4.  The
 * server DUID is compared with the one dnsmasq used for the same MAC in
 * the capture (DUID-LL 00030001 9a559a559a55).
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../tap/services.h"
#include "captured_frames.h"
#include "fake_conf.h"
#include "fake_parse.h"
#include "fake_svc.h"

#define IP6		14
#define UDP		54
#define MSG		62
#define OPTS		66

static struct conf c;
static uint8_t out[4096];

/* dhcpv6_dhclient.pcap frame 8: dnsmasq's Server Identifier for MAC
 * 9a:55:9a:55:9a:55 is "DUID: 000300019a559a559a55", DUID-LL (type 3),
 * Ethernet (1): RFC 8415 section 11.4
 */
static const uint8_t duid_ours[10] = {
	0x00, 0x03, 0x00, 0x01, 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55
};
static const uint8_t infinite[4] = { 0xff, 0xff, 0xff, 0xff };
static const uint8_t t1_follow[4] = { 0, 0, 0x01, 0x2c };	/* 300 */
static const uint8_t t2_follow[4] = { 0, 0, 0x01, 0xe0 };	/* 480 */
static const uint8_t life_follow[4] = { 0, 0, 0x02, 0x58 };	/* 600 */

/**
 * setup() - Fresh configuration, counters and output for each test
 */
static void setup(void)
{
	svc_setup(&c, out, sizeof(out));
	c.no_follow_host = true;	/* start-up lifetimes: infinite */
}

/**
 * run() - Parse a frame and pass it to dhcpv6_handle()
 * @frame:	Frame
 * @len:	Its length
 *
 * Return: reply length; replies get their checksums checked
 */
static size_t run(const uint8_t *frame, size_t len)
{
	return svc_run(dhcpv6_handle, &c, frame, len, out, sizeof(out));
}

/**
 * opt6() - Find a DHCPv6 option (RFC 8415 section 21.1) in a range
 * @p:		Start of the options
 * @len:	Bytes of options
 * @code:	Option code
 * @n:		Which instance (0 for the first)
 * @olen:	Set to the option length
 *
 * Return: pointer to the option data, or NULL
 */
static const uint8_t *opt6(const uint8_t *p, size_t len, uint16_t code,
			   int n, size_t *olen)
{
	size_t i = 0;

	while (i < len) {
		size_t l;

		ck_assert_uint_le(i + 4, len);
		l = (size_t)(p[i + 2] << 8 | p[i + 3]);
		ck_assert_uint_le(i + 4 + l, len);
		if ((p[i] << 8 | p[i + 1]) == code && n-- == 0) {
			*olen = l;
			return p + i + 4;
		}
		i += 4 + l;
	}
	return NULL;
}

/**
 * ropt() - Find a top-level option in the reply
 * @n:		Reply length
 * @code:	Option code
 * @olen:	Set to the option length
 *
 * Return: pointer to the option data, or NULL
 */
static const uint8_t *ropt(size_t n, uint16_t code, size_t *olen)
{
	return opt6(out + OPTS, n - OPTS, code, 0, olen);
}

/**
 * check_reply_common() - Fields of every reply to @req
 * @req:	Client frame
 * @n:		Reply length
 * @type:	Expected msg-type (2 Advertise or 7 Reply)
 *
 * RFC 8415 sections 7.2 (ports 547 -> 546), 8 (transaction-id echoed),
 * 21.2 and 21.3 (Client Identifier echoed, our Server Identifier)
 */
static void check_reply_common(const uint8_t *req, size_t n, uint8_t type)
{
	const uint8_t *p, *q;
	size_t l, ql;

	ck_assert_uint_gt(n, OPTS);
	ck_assert_mem_eq(out, req + 6, 6);
	ck_assert_mem_eq(out + 6, c.mac_our, 6);
	addr_is(out + IP6 + 8, "fe80::1");
	ck_assert_mem_eq(out + IP6 + 24, req + IP6 + 8, 16);
	ck_assert_uint_eq(out[IP6 + 6], 17);
	ck_assert_uint_eq((unsigned)(out[UDP] << 8 | out[UDP + 1]), 547);
	ck_assert_uint_eq((unsigned)(out[UDP + 2] << 8 | out[UDP + 3]), 546);
	ck_assert_uint_eq(out[MSG], type);
	ck_assert_mem_eq(out + MSG + 1, req + MSG + 1, 3);

	p = ropt(n, 2, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(l, sizeof(duid_ours));
	ck_assert_mem_eq(p, duid_ours, l);

	q = opt6(req + OPTS, (size_t)(req[UDP + 4] << 8 | req[UDP + 5]) - 12,
		 1, 0, &ql);
	p = ropt(n, 1, &l);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(l, ql);
	ck_assert_mem_eq(p, q, l);
}

/**
 * check_dns() - Options 23 and 24 for fake_conf.h (RFC 3646)
 * @n:		Reply length
 */
static void check_dns(size_t n)
{
	/* RFC 8415 section 10: uncompressed wire format, by hand */
	static const uint8_t names[] = {
		7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'o', 'r', 'g', 0,
		3, 'l', 'a', 'b', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
		3, 'o', 'r', 'g', 0
	};
	const uint8_t *p;
	size_t l;

	p = ropt(n, 23, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(l, 16);
	addr_is(p, "2001:db8::3");
	p = ropt(n, 24, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(l, sizeof(names));
	ck_assert_mem_eq(p, names, l);
}

/**
 * check_ia_na() - One IA_NA with IAID 00123456 and our address
 * @n:		Reply length
 * @extra:	Further IA Address options expected (lifetimes 0), or NULL
 */
static void check_ia_na(size_t n, const char *extra)
{
	static const uint8_t iaid[4] = { 0x00, 0x12, 0x34, 0x56 };
	const uint8_t *ia, *a;
	size_t l, al;

	ia = ropt(n, 3, &l);
	ck_assert_ptr_nonnull(ia);
	/* RFC 8415 21.4: IAID, T1, T2, options */
	ck_assert_uint_eq(l, 12 + 28 * (extra ? 2 : 1));
	ck_assert_mem_eq(ia, iaid, 4);
	/* following the host (passt.1): T1 300 s, T2 480 s, lifetimes 600 s,
	 * section 21.4's recommended 0.5 and 0.8 of the lifetime
	 */
	ck_assert_mem_eq(ia + 4, c.no_follow_host ? infinite : t1_follow, 4);
	ck_assert_mem_eq(ia + 8, c.no_follow_host ? infinite : t2_follow, 4);

	/* 21.6: address, preferred lifetime, valid lifetime (7.7: all ones
	 * is infinity)
	 */
	a = opt6(ia + 12, l - 12, 5, 0, &al);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(al, 24);
	addr_is(a, "2001:db8::15");
	ck_assert_mem_eq(a + 16, c.no_follow_host ? infinite : life_follow, 4);
	ck_assert_mem_eq(a + 20, c.no_follow_host ? infinite : life_follow, 4);

	if (!extra) {
		ck_assert_ptr_null(opt6(ia + 12, l - 12, 5, 1, &al));
		return;
	}
	a = opt6(ia + 12, l - 12, 5, 1, &al);
	ck_assert_ptr_nonnull(a);
	addr_is(a, extra);
	ck_assert_uint_eq(be32(a + 16), 0);
	ck_assert_uint_eq(be32(a + 20), 0);
}

/**
 * v6_build() - A client message from the RFC 8415 layout
 * @b:		Buffer, at least 62 + 4 + @opts_len bytes
 * @type:	msg-type
 * @dst:	IPv6 destination
 * @opts:	Options (code, length, data, all big-endian)
 * @opts_len:	Length of @opts
 *
 * From 52:54:00:12:34:56, fe80::5054:ff:fe12:3456 port 546 to port 547,
 * transaction-id 0x010203.
 *
 * Return: frame length
 */
static size_t v6_build(uint8_t *b, uint8_t type, const char *dst,
		       const uint8_t *opts, size_t opts_len)
{
	static const uint8_t eth[14] = {
		0x33, 0x33, 0x00, 0x01, 0x00, 0x02,
		0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x86, 0xdd
	};
	size_t plen = 8 + 4 + opts_len;

	memset(b, 0, OPTS);
	memcpy(b, eth, sizeof(eth));
	b[IP6] = 0x60;
	b[IP6 + 4] = (uint8_t)(plen >> 8);
	b[IP6 + 5] = (uint8_t)plen;
	b[IP6 + 6] = 17;
	b[IP6 + 7] = 1;
	inet_pton(AF_INET6, "fe80::5054:ff:fe12:3456", b + IP6 + 8);
	inet_pton(AF_INET6, dst, b + IP6 + 24);
	b[UDP] = 546 >> 8;
	b[UDP + 1] = 546 & 0xff;
	b[UDP + 2] = 547 >> 8;
	b[UDP + 3] = 547 & 0xff;
	b[UDP + 4] = (uint8_t)(plen >> 8);
	b[UDP + 5] = (uint8_t)plen;
	b[MSG] = type;
	b[MSG + 1] = 1;
	b[MSG + 2] = 2;
	b[MSG + 3] = 3;
	if (opts_len)
		memcpy(b + OPTS, opts, opts_len);
	return OPTS + opts_len;
}

/* Client Identifier (1): DUID-LL of 52:54:00:12:34:56, 10 bytes */
#define CLIENTID	0, 1, 0, 10, 0, 3, 0, 1, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56
/* Server Identifier (2): ours */
#define SERVERID	0, 2, 0, 10, 0, 3, 0, 1, 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55
/* IA_NA (3), IAID 1, T1 T2 0, one IA Address (5) for address @a... */
#define IA_NA_ADDR(...)	0, 3, 0, 40, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, \
			0, 5, 0, 24, __VA_ARGS__, 0, 0, 0, 0, 0, 0, 0, 0
#define ADDR_DB8_77	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, \
			0, 0, 0, 0, 0, 0, 0, 0x77
#define ADDR_DB9_1	0x20, 0x01, 0x0d, 0xb9, 0, 0, 0, 0, \
			0, 0, 0, 0, 0, 0, 0, 0x01

/* dhcpv6_dhclient.pcap frame 1: Solicit without Rapid Commit.  RFC 8415
 * 18.3.9: Advertise; we add Preference 255 (21.8, 18.2.1)
 */
START_TEST(test_dhcpv6_handle_solicit_advertise)
{
	const uint8_t *p;
	size_t n, l;

	n = run(cap_dhcpv6_solicit, sizeof(cap_dhcpv6_solicit));
	check_reply_common(cap_dhcpv6_solicit, n, 2);
	p = ropt(n, 7, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(l, 1);
	ck_assert_uint_eq(p[0], 255);
	ck_assert_ptr_null(ropt(n, 14, &l));
	check_ia_na(n, NULL);
	check_dns(n);
	ck_assert_uint_eq(svc_stats.dhcpv6_req, 1);
	ck_assert_uint_eq(svc_stats.dhcpv6_reply, 1);
}
END_TEST

/* dhcpv6_rapid.pcap frame 3: Solicit with Rapid Commit (14).  RFC 8415
 * 18.3.1: Reply carrying Rapid Commit
 */
START_TEST(test_dhcpv6_handle_solicit_rapid_commit_reply)
{
	const uint8_t *p;
	size_t n, l;

	n = run(cap_dhcpv6_solicit_rapid, sizeof(cap_dhcpv6_solicit_rapid));
	check_reply_common(cap_dhcpv6_solicit_rapid, n, 7);
	p = ropt(n, 14, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(l, 0);
	ck_assert_ptr_null(ropt(n, 7, &l));
	check_ia_na(n, NULL);
	check_dns(n);
}
END_TEST

/**
 * struct reply_case - A message that gets a Reply with our IA_NA address
 * @what:	The message, and where the RFC says so
 * @cap:	Captured frame it is made from
 * @len:	Its length
 * @msg:	Message type written over the captured one, 0: as captured
 * @follow:	Following the host (c.no_follow_host false): finite
 *		lifetimes
 * @dns:	The reply's DNS options are checked too
 */
struct reply_case {
	const char *what;
	const uint8_t *cap;
	size_t len;
	uint8_t msg;
	bool follow, dns;
};

static const struct reply_case reply_cases[] = {
	{ "tap.pcap frame 14: dhclient Request naming our DUID, IA_NA with "
	  "2001:db8::15.  RFC 8415 18.3.2: Reply with the address",
	  cap_dhcpv6_request, sizeof(cap_dhcpv6_request), 0, false, true },
	{ "Renew (5): same validation and answer as Request (16.6, 18.3.4)",
	  cap_dhcpv6_request, sizeof(cap_dhcpv6_request), 5, false, false },
	{ "Renew following the host (the default): finite lifetimes, so "
	  "that the client asks again and gets a changed address",
	  cap_dhcpv6_request, sizeof(cap_dhcpv6_request), 5, true, false },
	{ "Rebind (6) has no Server Identifier (16.7): made from the Solicit",
	  cap_dhcpv6_solicit, sizeof(cap_dhcpv6_solicit), 6, false, false },
};

/* One row of reply_cases[] (loop test: _i is the row) */
START_TEST(test_dhcpv6_handle_reply_with_address)
{
	const struct reply_case *r = &reply_cases[_i];
	uint8_t b[512];
	size_t n;

	ck_assert_uint_le(r->len, sizeof(b));
	if (r->follow)
		c.no_follow_host = false;
	memcpy(b, r->cap, r->len);
	if (r->msg)
		b[MSG] = r->msg;
	n = run(b, r->len);
	check_reply_common(b, n, 7);
	check_ia_na(n, NULL);
	if (r->dns)
		check_dns(n);
}
END_TEST

/**
 * request_with_addr() - cap_dhcpv6_request with another IA address
 * @b:		Buffer of sizeof(cap_dhcpv6_request)
 * @addr:	Address to put in the IA Address option
 */
static void request_with_addr(uint8_t *b, const char *addr)
{
	size_t l, il;
	const uint8_t *ia, *a;

	memcpy(b, cap_dhcpv6_request, sizeof(cap_dhcpv6_request));
	ia = opt6(b + OPTS, sizeof(cap_dhcpv6_request) - OPTS, 3, 0, &il);
	ck_assert_ptr_nonnull(ia);
	a = opt6(ia + 12, il - 12, 5, 0, &l);
	ck_assert_ptr_nonnull(a);
	inet_pton(AF_INET6, addr, UNCONST(uint8_t *, a));
}

/* An address that isn't ours in the IA_NA: RFC 8415 18.3.2 / 18.3.4, the
 * server returns it with lifetimes 0 next to the one it assigns
 */
START_TEST(test_dhcpv6_handle_request_stale_address_zeroed)
{
	uint8_t b[sizeof(cap_dhcpv6_request)];
	size_t n;

	request_with_addr(b, "2001:db8::99");
	n = run(b, sizeof(b));
	check_reply_common(b, n, 7);
	check_ia_na(n, "2001:db8::99");
}
END_TEST

/* The Request names another server (last DUID byte changed): 16.4, the
 * server discards it
 */
START_TEST(test_dhcpv6_handle_request_other_server_discarded)
{
	uint8_t b[sizeof(cap_dhcpv6_request)];
	const uint8_t *p;
	size_t l;

	memcpy(b, cap_dhcpv6_request, sizeof(b));
	p = opt6(b + OPTS, sizeof(b) - OPTS, 2, 0, &l);
	ck_assert_ptr_nonnull(p);
	b[(size_t)(p - b) + l - 1] ^= 1;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);
	ck_assert_uint_eq(svc_stats.dhcpv6_bad, 1);
}
END_TEST

/* tap.pcap frame 16: Release.  18.3.7: Reply with status Success */
START_TEST(test_dhcpv6_handle_release_success)
{
	const uint8_t *p;
	size_t n, l;

	n = run(cap_dhcpv6_release, sizeof(cap_dhcpv6_release));
	check_reply_common(cap_dhcpv6_release, n, 7);
	p = ropt(n, 13, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_ge(l, 2);
	ck_assert_uint_eq(p[0] << 8 | p[1], 0);
	ck_assert_ptr_null(ropt(n, 3, &l));
}
END_TEST

/* dhcpv6_inforeq.pcap frame 1: Information-request with a DUID-LL client
 * identifier.  18.3.6: Reply with configuration, no addresses
 */
START_TEST(test_dhcpv6_handle_inforeq_dns_only)
{
	size_t n, l;

	n = run(cap_dhcpv6_inforeq, sizeof(cap_dhcpv6_inforeq));
	check_reply_common(cap_dhcpv6_inforeq, n, 7);
	check_dns(n);
	ck_assert_ptr_null(ropt(n, 3, &l));
	ck_assert_ptr_null(ropt(n, 7, &l));
}
END_TEST

/* Confirm (4), 18.3.3: Success if the addresses are on our link
 * (2001:db8::/64), NotOnLink (4) if not
 */
START_TEST(test_dhcpv6_handle_confirm_on_link)
{
	static const uint8_t on[] = { CLIENTID, IA_NA_ADDR(ADDR_DB8_77) };
	static const uint8_t off[] = { CLIENTID, IA_NA_ADDR(ADDR_DB9_1) };
	uint8_t b[256];
	const uint8_t *p;
	size_t n, l;

	n = run(b, v6_build(b, 4, "ff02::1:2", on, sizeof(on)));
	check_reply_common(b, n, 7);
	p = ropt(n, 13, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p[0] << 8 | p[1], 0);

	n = run(b, v6_build(b, 4, "ff02::1:2", off, sizeof(off)));
	check_reply_common(b, n, 7);
	p = ropt(n, 13, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p[0] << 8 | p[1], 4);
}
END_TEST

/* 18.3.3: no Reply to a Confirm without addresses (the Solicit's IA_NA
 * has none)
 */
START_TEST(test_dhcpv6_handle_confirm_without_addresses_silent)
{
	uint8_t b[sizeof(cap_dhcpv6_solicit)];

	memcpy(b, cap_dhcpv6_solicit, sizeof(b));
	b[MSG] = 4;
	ck_assert_uint_eq(run(b, sizeof(b)), 0);
}
END_TEST

/* Two IA_NAs: the first gets the address, the second status
 * NoAddrsAvail (2) inside it (18.3.2, 21.13), T1 = T2 = 0
 */
START_TEST(test_dhcpv6_handle_second_ia_na_noaddrsavail)
{
	static const uint8_t o[] = {
		CLIENTID,
		0, 3, 0, 12, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 3, 0, 12, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	const uint8_t *ia, *st;
	uint8_t b[256];
	size_t n, l, sl;

	n = run(b, v6_build(b, 1, "ff02::1:2", o, sizeof(o)));
	check_reply_common(b, n, 2);
	ia = opt6(out + OPTS, n - OPTS, 3, 0, &l);
	ck_assert_ptr_nonnull(ia);
	ck_assert_uint_eq(be32(ia), 7);
	ck_assert_ptr_nonnull(opt6(ia + 12, l - 12, 5, 0, &sl));

	ia = opt6(out + OPTS, n - OPTS, 3, 1, &l);
	ck_assert_ptr_nonnull(ia);
	ck_assert_uint_eq(be32(ia), 8);
	ck_assert_uint_eq(be32(ia + 4), 0);
	ck_assert_uint_eq(be32(ia + 8), 0);
	ck_assert_ptr_null(opt6(ia + 12, l - 12, 5, 0, &sl));
	st = opt6(ia + 12, l - 12, 13, 0, &sl);
	ck_assert_ptr_nonnull(st);
	ck_assert_uint_eq(st[0] << 8 | st[1], 2);
}
END_TEST

/* RFC 8415 section 16 validation, each discarded and counted */
START_TEST(test_dhcpv6_handle_invalid_discarded)
{
	static const uint8_t no_cid[] = { 0, 3, 0, 12, 0, 0, 0, 1,
					  0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t cid_sid[] = { CLIENTID, SERVERID };
	static const uint8_t cid_only[] = { CLIENTID };
	static const uint8_t info_ia[] = {
		CLIENTID, 0, 3, 0, 12, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0
	};
	static const struct {
		uint8_t type;
		const char *dst;
		const uint8_t *o;
		size_t len;
	} bad[] = {
		/* 16.2: Solicit without Client Identifier, or with a Server
		 * one
		 */
		{ 1, "ff02::1:2", no_cid, sizeof(no_cid) },
		{ 1, "ff02::1:2", cid_sid, sizeof(cid_sid) },
		/* 16: Solicit to a unicast address */
		{ 1, "fe80::1", cid_only, sizeof(cid_only) },
		/* 16.4: Request without Server Identifier */
		{ 3, "ff02::1:2", cid_only, sizeof(cid_only) },
		/* 16.12: Information-request with an IA_NA */
		{ 11, "ff02::1:2", info_ia, sizeof(info_ia) },
		/* Server-only types: Advertise (2), Reply (7) */
		{ 2, "ff02::1:2", cid_sid, sizeof(cid_sid) },
		{ 7, "ff02::1:2", cid_sid, sizeof(cid_sid) },
	};
	uint8_t b[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_uint_eq(run(b, v6_build(b, bad[i].type, bad[i].dst,
						  bad[i].o, bad[i].len)), 0);
	ck_assert_uint_eq(svc_stats.dhcpv6_bad, 7);
	ck_assert_uint_eq(svc_stats.dhcpv6_req, 0);
}
END_TEST

/* Malformed options: counted, never answered */
START_TEST(test_dhcpv6_handle_malformed_counted)
{
	static const uint8_t two_cid[] = { CLIENTID, CLIENTID };
	static const uint8_t two_sid[] = { CLIENTID, SERVERID, SERVERID };
	static const uint8_t short_ia[] = {
		CLIENTID, 0, 3, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0
	};
	static const uint8_t short_iaaddr[] = {
		CLIENTID, 0, 3, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 5, 0, 4, 0, 0, 0, 0
	};
	uint8_t b[sizeof(cap_dhcpv6_solicit) + 64];

	/* Last option claims one byte more than there is */
	memcpy(b, cap_dhcpv6_solicit, sizeof(cap_dhcpv6_solicit));
	b[sizeof(cap_dhcpv6_solicit) - 12 - 4 + 3] += 1;
	ck_assert_uint_eq(b[sizeof(cap_dhcpv6_solicit) - 16 + 1], 3);
	ck_assert_uint_eq(run(b, sizeof(cap_dhcpv6_solicit)), 0);

	ck_assert_uint_eq(run(b, v6_build(b, 1, "ff02::1:2", two_cid,
					  sizeof(two_cid))), 0);
	/* Two Server Identifiers, even if both are ours */
	ck_assert_uint_eq(run(b, v6_build(b, 3, "ff02::1:2", two_sid,
					  sizeof(two_sid))), 0);
	/* 21.4: IA_NA shorter than IAID, T1, T2 */
	ck_assert_uint_eq(run(b, v6_build(b, 1, "ff02::1:2", short_ia,
					  sizeof(short_ia))), 0);
	/* 21.6: IA Address shorter than 24 bytes */
	ck_assert_uint_eq(run(b, v6_build(b, 1, "ff02::1:2", short_iaaddr,
					  sizeof(short_iaaddr))), 0);
	/* Fewer than 4 bytes: no msg-type and transaction-id */
	{
		size_t len = v6_build(b, 1, "ff02::1:2", NULL, 0) - 1;

		b[IP6 + 5] = 8 + 3;
		b[UDP + 5] = 8 + 3;
		ck_assert_uint_eq(run(b, len), 0);
	}
	ck_assert_uint_eq(svc_stats.dhcpv6_bad, 6);
}
END_TEST

START_TEST(test_dhcpv6_handle_not_for_us_ignored)
{
	ck_assert_uint_eq(run(cap_udp6, sizeof(cap_udp6)), 0);
	ck_assert_uint_eq(run(cap_dhcp_discover_udhcpc,
			      sizeof(cap_dhcp_discover_udhcpc)), 0);
	ck_assert_uint_eq(svc_stats.dhcpv6_bad + svc_stats.dhcpv6_req, 0);
	c.no_dhcpv6 = true;
	ck_assert_uint_eq(run(cap_dhcpv6_solicit, sizeof(cap_dhcpv6_solicit)),
			  0);
	c.no_dhcpv6 = false;
	c.ip6.enabled = false;
	ck_assert_uint_eq(run(cap_dhcpv6_solicit, sizeof(cap_dhcpv6_solicit)),
			  0);
}
END_TEST

START_TEST(test_dhcpv6_handle_dns_switched_off)
{
	size_t n, l;

	c.no_dhcp_dns = true;
	c.no_dhcp_search = true;
	n = run(cap_dhcpv6_inforeq, sizeof(cap_dhcpv6_inforeq));
	ck_assert_uint_gt(n, 0);
	ck_assert_ptr_null(ropt(n, 23, &l));
	ck_assert_ptr_null(ropt(n, 24, &l));
}
END_TEST

/* Eight 250-byte names don't fit in 1500 bytes: whole names only */
START_TEST(test_dhcpv6_handle_long_search_within_mtu)
{
	const uint8_t *p;
	size_t n, l, i;
	int k;

	for (k = 0; k < CONF_MAX_SEARCH; k++) {
		memset(c.search[k], 'a' + k, 250);
		c.search[k][62] = c.search[k][125] = c.search[k][188] = '.';
		c.search[k][250] = 0;
	}
	c.search_count = CONF_MAX_SEARCH;
	n = run(cap_dhcpv6_solicit, sizeof(cap_dhcpv6_solicit));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_le(n - 14, 1500);
	p = ropt(n, 24, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(l % 252, 0);
	for (i = 0; i < l; i += 252)
		ck_assert_uint_eq(p[i + 1], 'a' + i / 252);
	ck_assert_uint_lt(l / 252, CONF_MAX_SEARCH);
	check_ia_na(n, NULL);
}
END_TEST

/* RFC 4704 option 39 for --fqdn guest.example.org: flags byte (section
 * 4.1: S 0x01, O 0x02, N 0x04), then the name in DNS wire format (RFC 1035
 * section 3.1, by hand).  We do no DNS updates: N set, S clear, O set
 * when the client's S was set.
 */
static const uint8_t fqdn6_wire[] = {
	5, 'g', 'u', 'e', 's', 't', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
	3, 'o', 'r', 'g', 0
};

/**
 * fqdn6_eq() - Assert option 39 holds @flags and fqdn6_wire
 * @flags:	Expected flags byte
 * @n:		Reply length
 */
static void fqdn6_eq(uint8_t flags, size_t n)
{
	const uint8_t *p;
	size_t l;

	p = ropt(n, 39, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(l, 1 + sizeof(fqdn6_wire));
	ck_assert_uint_eq(p[0], flags);
	ck_assert_mem_eq(p + 1, fqdn6_wire, sizeof(fqdn6_wire));
}

/* dhclient's Solicit and Request carry no option 39: none in our replies
 * (RFC 4704 section 6: only to clients that sent it)
 */
START_TEST(test_dhcpv6_handle_fqdn_unasked)
{
	size_t n, l;

	strcpy(c.fqdn, "guest.example.org");
	n = run(cap_dhcpv6_solicit, sizeof(cap_dhcpv6_solicit));
	check_reply_common(cap_dhcpv6_solicit, n, 2);
	ck_assert_ptr_null(ropt(n, 39, &l));
	check_ia_na(n, NULL);
	check_dns(n);
	n = run(cap_dhcpv6_request, sizeof(cap_dhcpv6_request));
	check_reply_common(cap_dhcpv6_request, n, 7);
	ck_assert_ptr_null(ropt(n, 39, &l));
	check_dns(n);
	ck_assert_uint_eq(svc_stats.dhcpv6_fqdn_skipped, 0);
}
END_TEST

/* A Solicit whose option 39 asks us to update AAAA (S=1), name "vm":
 * we override, N|O = 0x06
 */
START_TEST(test_dhcpv6_handle_fqdn_client_update_overridden)
{
	static const uint8_t o[] = {
		CLIENTID, 0, 3, 0, 12, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 39, 0, 5, 0x01, 2, 'v', 'm', 0
	};
	uint8_t b[OPTS + sizeof(o)];
	size_t n;

	strcpy(c.fqdn, "guest.example.org");
	n = run(b, v6_build(b, 1, "ff02::1:2", o, sizeof(o)));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(out[MSG], 2);
	fqdn6_eq(0x06, n);
}
END_TEST

/* Same with S=0 and N=1 (client wants no update): N, no O */
START_TEST(test_dhcpv6_handle_fqdn_client_no_update)
{
	static const uint8_t o[] = {
		CLIENTID, 0, 3, 0, 12, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 39, 0, 5, 0x04, 2, 'v', 'm', 0
	};
	uint8_t b[OPTS + sizeof(o)];
	size_t n;

	strcpy(c.fqdn, "guest.example.org");
	n = run(b, v6_build(b, 1, "ff02::1:2", o, sizeof(o)));
	ck_assert_uint_gt(n, 0);
	fqdn6_eq(0x04, n);
}
END_TEST

/* Not in replies that assign nothing (Information-request, Release), and
 * not at all without --fqdn
 */
START_TEST(test_dhcpv6_handle_fqdn_only_with_addresses)
{
	static const uint8_t o[] = { CLIENTID, SERVERID, IA_NA_ADDR(ADDR_DB8_77) };
	uint8_t b[OPTS + sizeof(o)];
	size_t n, l;

	n = run(cap_dhcpv6_solicit, sizeof(cap_dhcpv6_solicit));
	ck_assert_ptr_null(ropt(n, 39, &l));

	strcpy(c.fqdn, "guest.example.org");
	n = run(cap_dhcpv6_inforeq, sizeof(cap_dhcpv6_inforeq));
	check_reply_common(cap_dhcpv6_inforeq, n, 7);
	ck_assert_ptr_null(ropt(n, 39, &l));
	n = run(b, v6_build(b, 8, "ff02::1:2", o, sizeof(o)));
	ck_assert_uint_gt(n, 0);
	ck_assert_ptr_null(ropt(n, 39, &l));
}
END_TEST

/* A 253-character name (255 bytes in wire format) fits with room to
 * spare; with a buffer cut to 100 bytes more than the reply without it,
 * the option (4 + 1 + 255 bytes) is left out and counted, and the
 * rest of the reply (DNS options included) is unchanged
 */
START_TEST(test_dhcpv6_handle_fqdn_skipped_when_no_room)
{
	static const uint8_t o[] = {
		CLIENTID, 0, 3, 0, 12, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 39, 0, 5, 0x04, 2, 'v', 'm', 0
	};
	uint8_t b[OPTS + sizeof(o)];
	const uint8_t *p;
	size_t n0, n, l, i, bl;

	bl = v6_build(b, 1, "ff02::1:2", o, sizeof(o));
	for (i = 0; i < 253; i++)
		c.fqdn[i] = (i % 64 == 63) ? '.' : 'a';
	c.fqdn[253] = '\0';
	n = run(b, bl);
	p = ropt(n, 39, &l);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(l, 1 + 255);
	ck_assert_uint_eq(p[1], 63);
	ck_assert_uint_eq(p[255], 0);

	c.fqdn[0] = '\0';
	n0 = run(b, bl);
	c.fqdn[0] = 'a';
	n = svc_run(dhcpv6_handle, &c, b, bl, out, n0 + 100);
	ck_assert_uint_eq(n, n0);
	ck_assert_ptr_null(ropt(n, 39, &l));
	ck_assert_uint_eq(svc_stats.dhcpv6_fqdn_skipped, 1);
}
END_TEST

START_TEST(test_dhcpv6_handle_small_buffer_no_reply)
{
	struct frame f;
	size_t cap;

	ck_assert_int_eq(frame_parse(cap_dhcpv6_solicit,
				     sizeof(cap_dhcpv6_solicit), &f), 0);
	for (cap = 0; cap < 300; cap++) {
		size_t n = dhcpv6_handle(&c, &f, out, cap);

		ck_assert_uint_le(n, cap);
		if (n)
			check_reply_csums(out, n);
	}
}
END_TEST

START_TEST(test_dhcpv6_handle_damaged_frames_safe)
{
	svc_robustness(dhcpv6_handle, &c, cap_dhcpv6_solicit,
		       sizeof(cap_dhcpv6_solicit), 3000);
	svc_robustness(dhcpv6_handle, &c, cap_dhcpv6_request,
		       sizeof(cap_dhcpv6_request), 3000);
	svc_robustness(dhcpv6_handle, &c, cap_dhcpv6_inforeq,
		       sizeof(cap_dhcpv6_inforeq), 2000);
	svc_robustness(dhcpv6_handle, &c, cap_dhcpv6_release,
		       sizeof(cap_dhcpv6_release), 2000);
}
END_TEST

/**
 * dhcpv6_suite() - All DHCPv6 tests
 *
 * Return: the suite
 */
static Suite *dhcpv6_suite(void)
{
	Suite *s = suite_create("dhcpv6");
	TCase *tc;

	tc = tcase_create("exchange");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_dhcpv6_handle_solicit_advertise);
	tcase_add_test(tc, test_dhcpv6_handle_solicit_rapid_commit_reply);
	tcase_add_loop_test(tc, test_dhcpv6_handle_reply_with_address, 0,
			    ARRAY_SIZE(reply_cases));
	tcase_add_test(tc, test_dhcpv6_handle_request_stale_address_zeroed);
	tcase_add_test(tc, test_dhcpv6_handle_request_other_server_discarded);
	tcase_add_test(tc, test_dhcpv6_handle_release_success);
	tcase_add_test(tc, test_dhcpv6_handle_inforeq_dns_only);
	tcase_add_test(tc, test_dhcpv6_handle_confirm_on_link);
	tcase_add_test(tc, test_dhcpv6_handle_confirm_without_addresses_silent);
	tcase_add_test(tc, test_dhcpv6_handle_second_ia_na_noaddrsavail);
	suite_add_tcase(s, tc);

	tc = tcase_create("invalid");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_dhcpv6_handle_invalid_discarded);
	tcase_add_test(tc, test_dhcpv6_handle_malformed_counted);
	tcase_add_test(tc, test_dhcpv6_handle_not_for_us_ignored);
	tcase_add_test(tc, test_dhcpv6_handle_small_buffer_no_reply);
	suite_add_tcase(s, tc);

	tc = tcase_create("options");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_dhcpv6_handle_dns_switched_off);
	tcase_add_test(tc, test_dhcpv6_handle_long_search_within_mtu);
	tcase_add_test(tc, test_dhcpv6_handle_fqdn_unasked);
	tcase_add_test(tc, test_dhcpv6_handle_fqdn_client_update_overridden);
	tcase_add_test(tc, test_dhcpv6_handle_fqdn_client_no_update);
	tcase_add_test(tc, test_dhcpv6_handle_fqdn_only_with_addresses);
	tcase_add_test(tc, test_dhcpv6_handle_fqdn_skipped_when_no_room);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_dhcpv6_handle_damaged_frames_safe);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dhcpv6_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
