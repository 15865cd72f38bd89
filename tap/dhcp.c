// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/dhcp.c - Minimal DHCPv4 server for the one guest (RFC 2131, RFC 2132)
 *
 * DOC: Theory of Operation
 *
 * There is one client and one address to give: c->ip4.addr.  No lease
 * table is kept.  Messages from the guest are answered as follows:
 *
 *   DHCPDISCOVER  ->  DHCPOFFER of c->ip4.addr
 *   DHCPREQUEST   ->  DHCPACK if the requested address (option 50, else
 *                     ciaddr) is c->ip4.addr, else DHCPNAK.  A REQUEST
 *                     whose server identifier (option 54) names another
 *                     server gets no answer: RFC 2131 section 4.3.2 says
 *                     the client declined our offer, so silence is due.
 *   DHCPINFORM    ->  DHCPACK with configuration but no address or lease
 *                     time (RFC 2131 sections 3.4 and 4.3.5)
 *   DHCPDECLINE, DHCPRELEASE, anything else  ->  no answer
 *   BOOTREQUEST without option 53 (a BOOTP client, RFC 951, with the
 *   RFC 1497 vendor area)  ->  BOOTREPLY with yiaddr c->ip4.addr and the
 *                     configuration options (mask, router...), no 51, 53
 *                     or 54 (RFC 1534: a BOOTP client gets a BOOTP reply)
 *   BOOTREQUEST whose vendor area doesn't start with the magic cookie (an
 *   RFC 951 client with no or its own vendor format)  ->  BOOTREPLY with
 *                     yiaddr c->ip4.addr, siaddr the server, and a vendor
 *                     area of 64 zero bytes: without the cookie we can't
 *                     know how the client reads that area (RFC 1497
 *                     "Vendor Information Magic Cookie", RFC 1542 3.1.1),
 *                     so the address is all it gets
 *
 * The server identifier is the gateway address, the address the guest can
 * reach us at; without a gateway there is nothing to name and no answer.
 * The lease time is DHCP_LEASE_FOLLOW_S, 600 s: the address may change
 * while we run (passt/follow.c follows the host's), and a client renews
 * after half of it (T1, RFC 2131 section 4.4.5), so within 300 s it asks
 * again and gets a DHCPNAK for the old address, then the new one.  With
 * --no-follow-host the address never changes while we run, and the lease
 * is infinite (0xffffffff, RFC 2131 section 3.3); a restart answers any
 * REQUEST from scratch.
 *
 * Replies carry options 53 (always first), 54, 51, 61 if the client sent
 * one (RFC 6842),
 * 1, 121 when the gateway is outside the guest's subnet (RFC 3442), 3, 6,
 * 26, 12, 81 (--fqdn, RFC 4702: in every OFFER and ACK, whether or not the
 * client sent option 81, as upstream passt does), 15 and 119, in this
 * order of priority: a reply
 * never exceeds 576 bytes of IP datagram unless the client announced a
 * larger maximum (option 57, RFC 2132 section 9.10), so options that don't
 * fit are left out, and the search list is cut after the last whole name
 * that fits.  The client's parameter request list (option 55) is not
 * consulted: RFC 2131 section 4.3.1 allows sending more than was asked.
 * The sname and file fields are not read, so option overload (52) is
 * ignored.  Relayed messages (giaddr != 0) are ignored: there is no relay
 * on a point-to-point link.
 *
 * UDP checksums of requests are not verified: the tap may deliver frames
 * with CHECKSUM_PARTIAL offload, where the field holds only the
 * pseudo-header sum, and a guest sending a bad checksum hurts only itself.
 * Replies always carry a full checksum.
 */
#include <linux/if_ether.h>
#include <string.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "csum.h"
#include "dns_name.h"
#include "hdr.h"
#include "services.h"

/**
 * struct bootp_msg - Fixed part of a BOOTP/DHCP message (RFC 2131 section 2,
 *		      figure 1; RFC 951), all fields network order
 * @op:		BOOTP_OP_REQUEST or BOOTP_OP_REPLY
 * @htype:	Hardware address type, ARPHRD_ETHER
 * @hlen:	Hardware address length, ETH_ALEN
 * @hops:	Relay hops
 * @xid:	Transaction ID, chosen by the client
 * @secs:	Seconds since the client began
 * @flags:	BOOTP_FLAG_BROADCAST
 * @ciaddr:	Client address (if it has one)
 * @yiaddr:	"Your" address: the one offered
 * @siaddr:	Next server (RFC 951: the server)
 * @giaddr:	Relay agent
 * @chaddr:	Client hardware address, padded to 16 bytes
 * @sname:	Server host name
 * @file:	Boot file name
 * @cookie:	Magic cookie (RFC 2132 section 2), then the options
 *
 * Only its offsets are used (the message sits unaligned in a frame):
 * offsetof() names them below, and fields are copied by hdr_copy_*().
 */
struct bootp_msg {
	uint8_t op;
	uint8_t htype;
	uint8_t hlen;
	uint8_t hops;
	uint32_t xid;
	uint16_t secs;
	uint16_t flags;
	struct in_addr ciaddr;
	struct in_addr yiaddr;
	struct in_addr siaddr;
	struct in_addr giaddr;
	uint8_t chaddr[16];
	uint8_t sname[64];
	uint8_t file[128];
	uint8_t cookie[4];
} PACKED;
_Static_assert(sizeof(struct bootp_msg) == 240, "RFC 2131 figure 1");

#define BOOTP_OP		offsetof(struct bootp_msg, op)
#define BOOTP_HTYPE		offsetof(struct bootp_msg, htype)
#define BOOTP_HLEN		offsetof(struct bootp_msg, hlen)
#define BOOTP_COOKIE		offsetof(struct bootp_msg, cookie)
#define BOOTP_OPTIONS		sizeof(struct bootp_msg)	/* 240 */

#define BOOTP_OP_REQUEST	1
#define BOOTP_OP_REPLY		2
#define BOOTP_FLAG_BROADCAST	0x8000	/* RFC 2131 section 2, figure 2 */

/* RFC 951 fixes the BOOTP message at 300 bytes (64-byte vendor area);
 * RFC 1542 section 2.1 keeps that as the minimum a relay or client expects
 */
#define BOOTP_MIN_LEN		300

/* Every DHCP client accepts 576-byte datagrams (RFC 2131 section 2) */
#define DHCP_MIN_MSG		576

/* Magic cookie 99.130.83.99, RFC 2131 section 3 / RFC 2132 section 2 */
static const uint8_t dhcp_cookie[4] = { 99, 130, 83, 99 };

/* Option codes, RFC 2132 unless noted */
#define OPT_PAD			0
#define OPT_SUBNET_MASK		1
#define OPT_ROUTER		3
#define OPT_DNS			6
#define OPT_HOSTNAME		12
#define OPT_DOMAIN_NAME		15
#define OPT_MTU			26
#define OPT_REQ_ADDR		50
#define OPT_LEASE_TIME		51
#define OPT_MSG_TYPE		53
#define OPT_SERVER_ID		54
#define OPT_MAX_MSG		57
#define OPT_CLIENT_ID		61
#define OPT_CLIENT_FQDN		81	/* RFC 4702 */
#define OPT_DOMAIN_SEARCH	119	/* RFC 3397 */
#define OPT_CLASSLESS_ROUTE	121	/* RFC 3442 */
#define OPT_END			255

/* DHCP message types, RFC 2132 section 9.6 */
#define DHCPDISCOVER		1
#define DHCPOFFER		2
#define DHCPREQUEST		3
#define DHCPDECLINE		4
#define DHCPACK			5
#define DHCPNAK			6
#define DHCPRELEASE		7
#define DHCPINFORM		8

#define DHCP_LEASE_INFINITE	0xffffffffU	/* RFC 2131 section 3.3 */
#define DHCP_LEASE_FOLLOW_S	600	/* following the host: see above */

/* Client FQDN flags, RFC 4702 section 2.1: bits 0-3 of the byte are MBZ */
#define FQDN_S			0x01	/* server does the A RR update */
#define FQDN_O			0x02	/* server overrode the client's S */
#define FQDN_E			0x04	/* name in canonical wire format */
#define FQDN_N			0x08	/* server does no DNS update */
#define FQDN_RCODE_SERVER	255	/* RFC 4702 section 2.2 */
#define FQDN_HDR_LEN		3	/* flags, RCODE1, RCODE2 */

/**
 * struct dhcp_req - What we use from a client message
 * @type:		Option 53 value, 0 if absent
 * @req_addr:		Option 50, network order, 0 if absent
 * @server_id:		Option 54, network order
 * @has_server_id:	Option 54 present
 * @max_msg:		Option 57 (maximum DHCP message size), bytes, or 0
 * @client_id:		Option 61 data, NULL if absent
 * @client_id_len:	Option 61 length (2..255)
 * @fqdn_flags:		Flags of option 81 (RFC 4702 section 2.1), if @has_fqdn
 * @has_fqdn:		Option 81 present with at least its 3 fixed bytes
 */
struct dhcp_req {
	uint8_t type;
	struct in_addr req_addr;
	struct in_addr server_id;
	bool has_server_id;
	size_t max_msg;
	const uint8_t *client_id;
	uint8_t client_id_len;
	uint8_t fqdn_flags;
	bool has_fqdn;
};

/**
 * struct dhcp_opts - Option area of a reply being written
 * @p:		Start of the option area (after the magic cookie)
 * @len:	Bytes written so far
 * @cap:	Bytes available, one less than the area to keep room for END
 */
struct dhcp_opts {
	uint8_t *p;
	size_t len;
	size_t cap;
};

/**
 * dhcp_opts_parse() - Walk the options of a client message
 * @p:		First option byte (after the magic cookie)
 * @len:	Bytes from @p to the end of the UDP payload
 * @r:		Result, zeroed by the caller
 *
 * Every option length is checked against @len.  A missing END option is
 * tolerated; bytes after END are ignored.  Only the first instance of an
 * option counts.
 *
 * Return: 0, or -1 if an option runs past the end or has an invalid length
 */
static int dhcp_opts_parse(const uint8_t *p, size_t len, struct dhcp_req *r)
{
	bool seen_req = false, seen_max = false;
	size_t i = 0;

	while (i < len) {
		uint8_t code = p[i], olen;
		const uint8_t *d;

		if (code == OPT_PAD) {
			i++;
			continue;
		}
		if (code == OPT_END)
			return 0;
		if (len - i < 2)
			return -1;
		olen = p[i + 1];
		if (olen > len - i - 2)
			return -1;
		d = p + i + 2;

		switch (code) {
		case OPT_MSG_TYPE:
			if (olen != 1)
				return -1;
			if (!r->type)
				r->type = d[0];
			break;
		case OPT_REQ_ADDR:
			if (olen != 4)
				return -1;
			if (!seen_req)
				memcpy(&r->req_addr, d, 4);
			seen_req = true;
			break;
		case OPT_SERVER_ID:
			if (olen != 4)
				return -1;
			if (!r->has_server_id)
				memcpy(&r->server_id, d, 4);
			r->has_server_id = true;
			break;
		case OPT_MAX_MSG:
			if (olen != 2)
				return -1;
			if (!seen_max)
				r->max_msg = get_be16(d);
			seen_max = true;
			break;
		case OPT_CLIENT_ID:
			/* RFC 2132 section 9.14: minimum length 2 */
			if (olen >= 2 && !r->client_id) {
				r->client_id = d;
				r->client_id_len = olen;
			}
			break;
		case OPT_CLIENT_FQDN:
			/* RFC 4702 section 2: flags, RCODE1, RCODE2, name;
			 * a shorter one is ignored, not fatal
			 */
			if (olen >= FQDN_HDR_LEN && !r->has_fqdn) {
				r->fqdn_flags = d[0];
				r->has_fqdn = true;
			}
			break;
		default:
			break;
		}
		i += 2 + (size_t)olen;
	}
	return 0;
}

/**
 * dhcp_opt_add() - Append one option to a reply, if it fits whole
 * @o:		Option area
 * @code:	Option code
 * @data:	Option data
 * @len:	Length of @data, bytes (at most 255)
 *
 * Return: true if written, false if it doesn't fit (nothing written)
 */
static bool dhcp_opt_add(struct dhcp_opts *o, uint8_t code, const void *data,
			 size_t len)
{
	if (len > 255 || o->cap - o->len < 2 + len)
		return false;
	o->p[o->len] = code;
	o->p[o->len + 1] = (uint8_t)len;
	memcpy(o->p + o->len + 2, data, len);
	o->len += 2 + len;
	return true;
}

/**
 * dhcp_opt_add_be32() - Append a 4-byte option from a host order value
 * @o:		Option area
 * @code:	Option code
 * @v:		Value, host order
 *
 * Return: true if written
 */
static bool dhcp_opt_add_be32(struct dhcp_opts *o, uint8_t code, uint32_t v)
{
	uint8_t b[4];

	put_be32(b, v);
	return dhcp_opt_add(o, code, b, sizeof(b));
}

/**
 * dhcp_opt_add_search() - Append the search list as option 119 (RFC 3397)
 * @c:		Configuration
 * @o:		Option area
 *
 * The list is compressed (RFC 3397 section 2) and split into options of at
 * most 255 bytes, which the client concatenates (RFC 3396).  Only whole
 * names that fit in what is left of @o are sent.
 */
static void dhcp_opt_add_search(const struct conf *c, struct dhcp_opts *o)
{
	uint8_t list[CONF_MAX_SEARCH * DNS_NAME_MAX];
	size_t room = o->cap - o->len, data_cap, len, off;

	/* Each option carries up to 255 bytes of data behind 2 header bytes */
	data_cap = room / 257 * 255;
	if (room % 257 > 2)
		data_cap += room % 257 - 2;
	data_cap = MIN(data_cap, sizeof(list));

	len = dns_name_list_encode((const char (*)[CONF_SEARCH_LEN])c->search,
				   MIN(c->search_count, CONF_MAX_SEARCH), true,
				   list, data_cap);
	for (off = 0; off < len; off += 255)
		dhcp_opt_add(o, OPT_DOMAIN_SEARCH, list + off,
			     MIN(255, len - off));
}

/**
 * dhcp_opt_add_fqdn() - Append --fqdn as Client FQDN option 81 (RFC 4702)
 * @c:		Configuration
 * @o:		Option area
 * @r:		Parsed client options: option 81 of the client, if any
 *
 * We never update DNS, so the flags say so (RFC 4702 sections 2.1 and 4):
 * N set and S clear; O set if the client asked for server updates (S set),
 * as our S differs from its S.  The name is in canonical wire format (RFC
 * 1035 section 3.1, fully qualified: ends with the root label) with E set,
 * unless the client sent option 81 with E clear: then E stays clear and the
 * name is ASCII, without final dot or NUL (RFC 4702 sections 2.3.1, 4).
 * RCODE1 and RCODE2 are 255 (section 2.2).  The data must fit one option
 * (255 bytes, so names of up to 250 characters in wire format, 252 in
 * ASCII) and what is left of @o: else nothing is written and
 * svc_stats.dhcp_fqdn_skipped counts it.
 */
static void dhcp_opt_add_fqdn(const struct conf *c, struct dhcp_opts *o,
			      const struct dhcp_req *r)
{
	bool wire = !r->has_fqdn || (r->fqdn_flags & FQDN_E);
	uint8_t d[255];
	size_t len;
	int n;

	if (!c->fqdn[0])
		return;

	d[0] = FQDN_N;
	if (wire)
		d[0] |= FQDN_E;
	if (r->has_fqdn && (r->fqdn_flags & FQDN_S))
		d[0] |= FQDN_O;
	d[1] = FQDN_RCODE_SERVER;
	d[2] = FQDN_RCODE_SERVER;

	if (wire) {
		n = dns_name_encode(c->fqdn, d + FQDN_HDR_LEN,
				    sizeof(d) - FQDN_HDR_LEN);
		if (n < 0)
			goto skip;
		len = FQDN_HDR_LEN + (size_t)n;
	} else {
		len = strnlen(c->fqdn, sizeof(c->fqdn));
		if (len > sizeof(d) - FQDN_HDR_LEN)
			goto skip;
		memcpy(d + FQDN_HDR_LEN, c->fqdn, len);
		len += FQDN_HDR_LEN;
	}

	if (dhcp_opt_add(o, OPT_CLIENT_FQDN, d, len))
		return;
skip:
	svc_count(SVC_COUNT_DHCP_FQDN_SKIPPED);
}

/**
 * dhcp_opt_add_config() - Append the configuration options
 * @c:		Configuration
 * @o:		Option area
 * @r:		Parsed client options
 * @server:	Server identifier (gateway), network order
 */
static void dhcp_opt_add_config(const struct conf *c, struct dhcp_opts *o,
				const struct dhcp_req *r, struct in_addr server)
{
	int plen = c->ip4.prefix_len;
	uint32_t mask, addr, gw;

	if (plen >= 1 && plen <= 32) {
		mask = plen == 32 ? 0xffffffffU : ~(0xffffffffU >> plen);
		addr = ntohl(c->ip4.addr.s_addr);
		gw = ntohl(server.s_addr);
		dhcp_opt_add_be32(o, OPT_SUBNET_MASK, mask);

		if ((addr & mask) == (gw & mask)) {
			dhcp_opt_add(o, OPT_ROUTER, &server, 4);
		} else {
			/* RFC 3442: gateway/32 on link (router 0.0.0.0),
			 * then the default route through it.  Clients that
			 * know option 121 ignore option 3 (section 2)
			 */
			uint8_t rt[14] = { 32 };

			memcpy(rt + 1, &server, 4);
			/* rt[5..8]: router 0.0.0.0, rt[9]: width 0 */
			memcpy(rt + 10, &server, 4);
			dhcp_opt_add(o, OPT_CLASSLESS_ROUTE, rt, sizeof(rt));
			dhcp_opt_add(o, OPT_ROUTER, &server, 4);
		}
	}

	if (!c->no_dhcp_dns) {
		uint8_t dns[CONF_MAX_DNS * 4];
		unsigned i, n = 0;

		for (i = 0; i < MIN(c->ip4.dns_count, CONF_MAX_DNS); i++) {
			if (c->ip4.dns[i].s_addr == INADDR_ANY)
				continue;
			memcpy(dns + n * 4, &c->ip4.dns[i], 4);
			n++;
		}
		if (n)
			dhcp_opt_add(o, OPT_DNS, dns, n * 4);
	}

	/* RFC 2132 5.1 allows 68, but 576 is what every host must take;
	 * none with -m 0
	 */
	if (!c->no_mtu && c->mtu >= DHCP_MIN_MSG && c->mtu <= 65535) {
		uint8_t m[2];

		put_be16(m, (uint16_t)c->mtu);
		dhcp_opt_add(o, OPT_MTU, m, sizeof(m));
	}

	/* RFC 2132 3.14: NVT ASCII, no trailing NUL (section 2) */
	if (c->hostname[0])
		dhcp_opt_add(o, OPT_HOSTNAME, c->hostname,
			     strnlen(c->hostname, sizeof(c->hostname)));

	dhcp_opt_add_fqdn(c, o, r);

	if (!c->no_dhcp_search && c->search_count) {
		size_t n = strnlen(c->search[0], CONF_SEARCH_LEN);

		if (n > 1 && c->search[0][n - 1] == '.')
			n--;		/* RFC 2132 3.17 wants no root dot */
		if (n && c->search[0][0] != '.')
			dhcp_opt_add(o, OPT_DOMAIN_NAME, c->search[0], n);
		dhcp_opt_add_search(c, o);
	}
}

/**
 * dhcp_reply() - Write a complete reply frame
 * @c:		Configuration
 * @f:		Client frame (validated)
 * @r:		Parsed client options
 * @type:	DHCPOFFER, DHCPACK or DHCPNAK; 0 for a BOOTREPLY to a BOOTP
 *		client (RFC 951, options of RFC 1497 without 51, 53, 54)
 * @plain:	BOOTREPLY (@type 0) to a request without the magic cookie:
 *		siaddr set, vendor area left zero (RFC 951)
 * @server:	Server identifier and source address, network order
 * @out:	Output frame buffer
 * @cap:	Size of @out, bytes
 *
 * Return: frame length, or 0 if @cap is too small
 */
static size_t dhcp_reply(const struct conf *c, const struct frame *f,
			 const struct dhcp_req *r, uint8_t type, bool plain,
			 struct in_addr server, uint8_t *out, size_t cap)
{
	static const uint8_t bcast_mac[ETH_ALEN] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	const uint8_t *req = f->payload, *dst_mac;
	struct in_addr ciaddr, yiaddr = { 0 }, dst;
	size_t lim, bootp_len, l4_len;
	union inany src6, dst6;
	struct dhcp_opts o;
	uint8_t *bootp;
	uint8_t *udp;

	/* Largest IP datagram the client takes, within our MTU */
	lim = r->max_msg > DHCP_MIN_MSG ? r->max_msg : DHCP_MIN_MSG;
	if (c->mtu >= DHCP_MIN_MSG && lim > (size_t)c->mtu)
		lim = (size_t)c->mtu;
	lim += ETH_HLEN;
	if (lim > cap)
		lim = cap;
	if (lim < ETH_HLEN + IP4_HLEN + UDP_HLEN + BOOTP_MIN_LEN)
		return 0;

	udp = out + ETH_HLEN + IP4_HLEN;
	bootp = udp + UDP_HLEN;
	memset(bootp, 0, BOOTP_OPTIONS);

	hdr_put8(bootp, struct bootp_msg, op, BOOTP_OP_REPLY);
	hdr_put8(bootp, struct bootp_msg, htype, ARPHRD_ETHER);
	hdr_put8(bootp, struct bootp_msg, hlen, ETH_ALEN);
	memcpy(HDR_AT_W(bootp, struct bootp_msg, xid),
	       HDR_AT(req, struct bootp_msg, xid), sizeof(uint32_t));
	memcpy(HDR_AT_W(bootp, struct bootp_msg, flags),
	       HDR_AT(req, struct bootp_msg, flags), sizeof(uint16_t));
	hdr_copy_in(bootp, struct bootp_msg, chaddr,
		    HDR_AT(req, struct bootp_msg, chaddr));
	hdr_copy_out(&ciaddr, req, struct bootp_msg, ciaddr);

	/* RFC 2131 table 3: ACK echoes ciaddr, OFFER and NAK carry 0; yiaddr
	 * is the address in OFFER and ACK, but 0 for INFORM (section 3.4)
	 */
	if (type == DHCPACK)
		hdr_copy_in(bootp, struct bootp_msg, ciaddr, &ciaddr);
	if (type != DHCPNAK && r->type != DHCPINFORM)
		yiaddr = c->ip4.addr;
	hdr_copy_in(bootp, struct bootp_msg, yiaddr, &yiaddr);

	if (plain) {
		/* RFC 951: siaddr is the server's address; the 64-byte
		 * vendor area stays zero, in the client's unknown format
		 */
		hdr_copy_in(bootp, struct bootp_msg, siaddr, &server);
		memset(bootp + BOOTP_COOKIE, 0, BOOTP_MIN_LEN - BOOTP_COOKIE);
		bootp_len = BOOTP_MIN_LEN;
		goto headers;
	}
	memcpy(bootp + BOOTP_COOKIE, dhcp_cookie, sizeof(dhcp_cookie));

	o.p = bootp + BOOTP_OPTIONS;
	o.len = 0;
	o.cap = lim - ETH_HLEN - IP4_HLEN - UDP_HLEN - BOOTP_OPTIONS - 1;

	/* Option 53 first, whatever the client asked for: some small clients
	 * look for it there only.  A BOOTREPLY (@type 0) has no DHCP options
	 */
	if (type)
		dhcp_opt_add(&o, OPT_MSG_TYPE, &type, 1);
	if (type)
		dhcp_opt_add(&o, OPT_SERVER_ID, &server, 4);
	if (type == DHCPOFFER || (type == DHCPACK && r->type != DHCPINFORM))
		dhcp_opt_add_be32(&o, OPT_LEASE_TIME, c->no_follow_host ?
				  DHCP_LEASE_INFINITE : DHCP_LEASE_FOLLOW_S);
	/* RFC 6842 section 3: echo the client identifier, NAK included */
	if (r->client_id)
		dhcp_opt_add(&o, OPT_CLIENT_ID, r->client_id, r->client_id_len);
	if (type != DHCPNAK)
		dhcp_opt_add_config(c, &o, r, server);
	o.p[o.len++] = OPT_END;

	bootp_len = BOOTP_OPTIONS + o.len;
	if (bootp_len < BOOTP_MIN_LEN) {
		memset(bootp + bootp_len, OPT_PAD, BOOTP_MIN_LEN - bootp_len);
		bootp_len = BOOTP_MIN_LEN;
	}
headers:
	l4_len = UDP_HLEN + bootp_len;

	/* RFC 2131 section 4.1, "giaddr is zero" cases: NAK is broadcast,
	 * a client with an address (ciaddr) gets unicast there, the
	 * broadcast flag asks for broadcast, else unicast to yiaddr/chaddr
	 */
	if (type == DHCPNAK || (ciaddr.s_addr == INADDR_ANY &&
	    ((hdr_get16(req, struct bootp_msg, flags) &
	      BOOTP_FLAG_BROADCAST) ||
	     yiaddr.s_addr == INADDR_ANY))) {
		dst.s_addr = INADDR_BROADCAST;
		dst_mac = bcast_mac;
	} else {
		dst = ciaddr.s_addr != INADDR_ANY ? ciaddr : yiaddr;
		dst_mac = HDR_AT(req, struct bootp_msg, chaddr);
	}

	inany_from_v4(&src6, server);
	inany_from_v4(&dst6, dst);
	frame_udp_fill(udp, &src6, DHCP_SERVER_PORT, &dst6, DHCP_CLIENT_PORT,
		       bootp_len, false);
	frame_ip4_fill(out + ETH_HLEN, server, dst, IPPROTO_UDP, l4_len,
		       IP_TTL_DEFAULT);
	frame_eth_fill(out, dst_mac, c->mac_our, ETH_P_IP);

	return ETH_HLEN + IP4_HLEN + l4_len;
}

/**
 * dhcp_handle() - Answer a DHCP message from the guest
 * @c:		Configuration (reads no_dhcp, ip4, mtu, mac_our, search,
 *		hostname, fqdn, no_dhcp_dns, no_dhcp_search)
 * @f:		Frame validated by frame_parse()
 * @out:	Buffer for the reply frame, starting with the Ethernet header
 * @cap:	Size of @out, bytes; replies need 342 bytes and at most
 *		14 + max(576, client's option 57, capped to c->mtu)
 *
 * Frames that are not IPv4/UDP to port 67 are ignored.  See the DOC block
 * above for which messages get which reply.  Counters: svc_stats.dhcp_req
 * for every well-formed client message, dhcp_reply for every OFFER or ACK,
 * dhcp_nak for every NAK, dhcp_fqdn_skipped for every reply that had no
 * room for option 81, dhcp_bad for malformed messages (short, not a
 * BOOTREQUEST for Ethernet, an option past the end, an unknown message
 * type); a BOOTP request (no option 53, or no magic cookie) counts as
 * dhcp_req and its reply as dhcp_reply.
 *
 * Context: main loop; no allocation
 * Return: length of the reply written to @out, or 0 for no reply
 */
size_t dhcp_handle(const struct conf *c, const struct frame *f,
		   uint8_t *out, size_t cap)
{
	struct dhcp_req r = { 0 };
	struct in_addr server, want;
	bool plain = false;
	const uint8_t *m;
	uint8_t type;
	size_t len;

	if (f->af != AF_INET || f->proto != IPPROTO_UDP ||
	    f->dport != DHCP_SERVER_PORT || !f->payload)
		return 0;
	if (c->no_dhcp || !c->ip4.enabled)
		return 0;

	m = f->payload;
	len = f->payload_len;
	if (len >= BOOTP_OPTIONS &&
	    memcmp(m + BOOTP_COOKIE, dhcp_cookie, sizeof(dhcp_cookie)))
		plain = true;	/* RFC 951 vendor area: no options to read */
	if (len < BOOTP_OPTIONS || m[BOOTP_OP] != BOOTP_OP_REQUEST ||
	    m[BOOTP_HTYPE] != ARPHRD_ETHER || m[BOOTP_HLEN] != ETH_ALEN ||
	    (!plain &&
	     dhcp_opts_parse(m + BOOTP_OPTIONS, len - BOOTP_OPTIONS, &r)) ||
	    (r.type && (r.type < DHCPDISCOVER || r.type > DHCPINFORM))) {
		svc_count(SVC_COUNT_DHCP_BAD);
		return 0;
	}
	svc_count(SVC_COUNT_DHCP_REQ);

	if (hdr_get32(m, struct bootp_msg, giaddr))
		return 0;		/* relayed: not on our link */

	server = c->ip4.gw;
	if (server.s_addr == INADDR_ANY) {
		debug("dhcp: no gateway address to use as server identifier");
		return 0;
	}

	switch (r.type) {
	case 0:			/* BOOTP (RFC 951): no option 53 */
		type = 0;
		break;
	case DHCPDISCOVER:
		type = DHCPOFFER;
		break;
	case DHCPREQUEST:
		/* RFC 2131 4.3.2: another server was selected */
		if (r.has_server_id && r.server_id.s_addr != server.s_addr)
			return 0;
		want = r.req_addr;
		if (want.s_addr == INADDR_ANY)
			hdr_copy_out(&want, m, struct bootp_msg, ciaddr);
		type = want.s_addr == c->ip4.addr.s_addr ? DHCPACK : DHCPNAK;
		break;
	case DHCPINFORM:
		type = DHCPACK;
		break;
	default:		/* DECLINE, RELEASE, server-only types */
		return 0;
	}

	len = dhcp_reply(c, f, &r, type, plain, server, out, cap);
	if (len && type == DHCPNAK)
		svc_count(SVC_COUNT_DHCP_NAK);
	else if (len)
		svc_count(SVC_COUNT_DHCP_REPLY);
	return len;
}
