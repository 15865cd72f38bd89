// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/dhcpv6.c - Minimal DHCPv6 server for the one guest (RFC 8415)
 *
 * DOC: Theory of Operation
 *
 * One client, one address (c->ip6.addr), no binding table.  Client
 * messages are validated as in RFC 8415 section 16 (client and server
 * identifiers present or absent as each type requires, our server
 * identifier where one is given, multicast destination for Solicit,
 * Confirm, Rebind and Information-request) and answered:
 *
 *   Solicit             -> Advertise, with Preference 255 so the client
 *                          doesn't wait for other servers (section
 *                          18.2.1); with Rapid Commit (option 14) a Reply
 *                          that carries Rapid Commit (section 18.3.1)
 *   Request, Renew,
 *   Rebind              -> Reply with the address
 *   Confirm             -> Reply with status Success if every address is
 *                          in our prefix, else NotOnLink; no Reply without
 *                          addresses (section 18.3.3)
 *   Release, Decline    -> Reply with status Success (18.3.7, 18.3.8)
 *   Information-request -> Reply with DNS servers (RFC 3646 option 23)
 *                          and the domain list (option 24) only
 *
 * The first IA_NA of a message gets c->ip6.addr with lifetimes of 600 s,
 * T1 300 s and T2 480 s (section 21.4's 0.5 and 0.8): the address may
 * change while we run (passt/follow.c), and the client asks again within
 * 300 s; with --no-follow-host, infinite ones (0xffffffff, section 7.7),
 * as the address never changes then.  Other addresses the client lists in
 * it are returned with lifetimes 0 (sections 18.3.2, 18.3.4, 18.3.5), so
 * an address from an earlier run is dropped at once.  Further IA_NAs get
 * status NoAddrsAvail.  IA_TA and IA_PD are not served (left out of the
 * reply).  The server identifier is a DUID-LL (section 11.4) made from
 * c->mac_our.  Replies go from c->ip6.our_ll port 547 to the client's
 * address port 546 and never exceed max(c->mtu, 1280) bytes of IPv6
 * packet: domains that don't fit are left out.
 *
 * With --fqdn, the Advertise or Reply to a Solicit, Request, Renew or
 * Rebind carries the Client FQDN option (RFC 4704) after the IA_NAs,
 * whether or not the client sent one (as upstream passt does), with flags
 * saying that we do no DNS updates.
 *
 * UDP checksums of requests are not verified (the tap may deliver
 * CHECKSUM_PARTIAL frames; a guest can only hurt itself).
 */
#include <linux/if_ether.h>
#include <string.h>

#include "../lib/inany.h"
#include "csum.h"
#include "dns_name.h"
#include "hdr.h"
#include "services.h"

/* Message types, RFC 8415 section 7.3 */
#define SOLICIT			1
#define ADVERTISE		2
#define REQUEST			3
#define CONFIRM			4
#define RENEW			5
#define REBIND			6
#define REPLY			7
#define RELEASE			8
#define DECLINE			9
#define INFORMATION_REQUEST	11

/* Option codes, RFC 8415 section 21 and RFC 3646 */
#define OPT_CLIENTID		1
#define OPT_SERVERID		2
#define OPT_IA_NA		3
#define OPT_IA_TA		4
#define OPT_IAADDR		5
#define OPT_PREFERENCE		7
#define OPT_STATUS_CODE		13
#define OPT_RAPID_COMMIT	14
#define OPT_DNS_SERVERS		23
#define OPT_DOMAIN_LIST		24
#define OPT_IA_PD		25
#define OPT_CLIENT_FQDN		39	/* RFC 4704 */

/* Client FQDN flags, RFC 4704 section 4.1: bits 0-4 of the byte are MBZ */
#define FQDN_S			0x01	/* server does the AAAA RR update */
#define FQDN_O			0x02	/* server overrode the client's S */
#define FQDN_N			0x04	/* server does no DNS update */

/* Status codes, RFC 8415 section 21.13 */
#define STATUS_SUCCESS		0
#define STATUS_NOADDRSAVAIL	2
#define STATUS_NOTONLINK	4

#define DHCPV6_INFINITE		0xffffffffU	/* section 7.7 */
#define DHCPV6_FOLLOW_LIFE_S	600	/* following the host: lifetimes */
#define DHCPV6_FOLLOW_T1_S	300	/* ... renew after 0.5 of them, */
#define DHCPV6_FOLLOW_T2_S	480	/* rebind after 0.8 (section 21.4) */
#define DHCPV6_IA_MAX		4	/* IA_NAs we look at in one message */
#define DHCPV6_ADDR_MAX		4	/* addresses we look at in one IA_NA */
#define DUID_TYPE_LL		3	/* section 11.4 */
#define DHCPV6_PREF_MAX		255	/* section 21.8: go ahead at once */

/* Wire formats (RFC 8415), network order.  They sit unaligned in frames:
 * only offsetof() and sizeof() are used, fields are copied with
 * hdr_get*() / hdr_put*() (hdr.h)
 */

/**
 * struct dhcpv6_msg - Client/server message header, section 8
 * @type:	msg-type
 * @xid:	transaction-id
 */
struct dhcpv6_msg {
	uint8_t type;
	uint8_t xid[3];
} PACKED;

/**
 * struct dhcpv6_opt - Option header, section 21.1
 * @code:	option-code
 * @len:	option-len: bytes of data after this header
 */
struct dhcpv6_opt {
	uint16_t code;
	uint16_t len;
} PACKED;

/**
 * struct dhcpv6_ia_na - IA_NA option data before its options, section 21.4
 * @iaid:	Identity association identifier, chosen by the client
 * @t1:		Time to renew, seconds
 * @t2:		Time to rebind, seconds
 */
struct dhcpv6_ia_na {
	uint32_t iaid;
	uint32_t t1;
	uint32_t t2;
} PACKED;

/**
 * struct dhcpv6_iaaddr - IA Address option, header included, section 21.6
 * @hdr:	OPT_IAADDR, length 24
 * @addr:	Address
 * @preferred:	Preferred lifetime, seconds
 * @valid:	Valid lifetime, seconds
 */
struct dhcpv6_iaaddr {
	struct dhcpv6_opt hdr;
	struct in6_addr addr;
	uint32_t preferred;
	uint32_t valid;
} PACKED;

/**
 * struct dhcpv6_duid_ll - DUID based on link-layer address, section 11.4
 * @type:	DUID_TYPE_LL
 * @hw_type:	ARPHRD_ETHER
 * @mac:	Link-layer address
 */
struct dhcpv6_duid_ll {
	uint16_t type;
	uint16_t hw_type;
	uint8_t mac[ETH_ALEN];
} PACKED;

/**
 * struct dhcpv6_status - Status Code option header, section 21.13
 * @hdr:	OPT_STATUS_CODE, length 2 + message
 * @code:	status-code, then the UTF-8 message
 */
struct dhcpv6_status {
	struct dhcpv6_opt hdr;
	uint16_t code;
} PACKED;

#define IAADDR_DATA_LEN		(sizeof(struct dhcpv6_iaaddr) -		\
				 sizeof(struct dhcpv6_opt))		/* 24 */

/**
 * struct dhcpv6_req - What we use from a client message
 * @type:		msg-type
 * @xid:		transaction-id (3 bytes)
 * @client_id:		Client Identifier option data, or NULL
 * @client_id_len:	Its length, bytes
 * @server_id:		Server Identifier option data, or NULL
 * @server_id_len:	Its length, bytes
 * @rapid_commit:	Rapid Commit option present
 * @fqdn_flags:		Flags of the client's Client FQDN option, if @has_fqdn
 * @has_fqdn:		Client FQDN option (RFC 4704) present, with its flags
 * @other_ia:		IA_TA or IA_PD present
 * @ia_na:		IA_NA option data (first DHCPV6_IA_MAX)
 * @ia_na_len:		Their lengths, bytes (>= 12)
 * @n_ia_na:		Entries in @ia_na
 */
struct dhcpv6_req {
	uint8_t type;
	const uint8_t *xid;
	const uint8_t *client_id;
	size_t client_id_len;
	const uint8_t *server_id;
	size_t server_id_len;
	bool rapid_commit;
	uint8_t fqdn_flags;
	bool has_fqdn;
	bool other_ia;
	const uint8_t *ia_na[DHCPV6_IA_MAX];
	size_t ia_na_len[DHCPV6_IA_MAX];
	unsigned n_ia_na;
};

/**
 * struct dhcpv6_out - Reply being written
 * @p:		Start of the DHCPv6 message
 * @len:	Bytes written
 * @cap:	Bytes available from @p
 */
struct dhcpv6_out {
	uint8_t *p;
	size_t len;
	size_t cap;
};

/**
 * dhcpv6_opt_next() - Step to the next option, checking its bounds
 * @buf:	Option area
 * @len:	Bytes in @buf
 * @off:	Offset of the option, advanced past it on success
 * @code:	Option code, host order
 * @data:	Option data
 * @olen:	Option data length, bytes
 *
 * Return: 1 for an option, 0 at the end, -1 if it runs past @len
 */
static int dhcpv6_opt_next(const uint8_t *buf, size_t len, size_t *off,
			   uint16_t *code, const uint8_t **data, size_t *olen)
{
	const size_t hlen = sizeof(struct dhcpv6_opt);

	if (*off == len)
		return 0;
	if (len - *off < hlen)
		return -1;
	*code = hdr_get16(buf + *off, struct dhcpv6_opt, code);
	*olen = hdr_get16(buf + *off, struct dhcpv6_opt, len);
	if (*olen > len - *off - hlen)
		return -1;
	*data = buf + *off + hlen;
	*off += hlen + *olen;
	return 1;
}

/**
 * dhcpv6_parse() - Parse a client message
 * @m:		Message (UDP payload)
 * @len:	Its length, bytes
 * @r:		Result, zeroed by the caller
 *
 * Return: 0, or -1 if malformed
 */
static int dhcpv6_parse(const uint8_t *m, size_t len, struct dhcpv6_req *r)
{
	size_t off = sizeof(struct dhcpv6_msg), olen;
	const uint8_t *d;
	uint16_t code;
	int ret;

	if (len < sizeof(struct dhcpv6_msg))
		return -1;
	r->type = hdr_get8(m, struct dhcpv6_msg, type);
	r->xid = HDR_AT(m, struct dhcpv6_msg, xid);

	while ((ret = dhcpv6_opt_next(m, len, &off, &code, &d, &olen)) > 0) {
		switch (code) {
		case OPT_CLIENTID:
			/* A second one makes the message ambiguous */
			if (r->client_id || !olen)
				return -1;
			r->client_id = d;
			r->client_id_len = olen;
			break;
		case OPT_SERVERID:
			if (r->server_id || !olen)
				return -1;
			r->server_id = d;
			r->server_id_len = olen;
			break;
		case OPT_RAPID_COMMIT:
			r->rapid_commit = true;
			break;
		case OPT_CLIENT_FQDN:
			/* RFC 4704 section 4.1: flags, then the name; one
			 * without even the flags byte is ignored
			 */
			if (olen >= 1 && !r->has_fqdn) {
				r->fqdn_flags = d[0];
				r->has_fqdn = true;
			}
			break;
		case OPT_IA_NA:
			/* Section 21.4: IAID, T1, T2, then options */
			if (olen < sizeof(struct dhcpv6_ia_na))
				return -1;
			if (r->n_ia_na < DHCPV6_IA_MAX) {
				r->ia_na[r->n_ia_na] = d;
				r->ia_na_len[r->n_ia_na++] = olen;
			}
			break;
		case OPT_IA_TA:
		case OPT_IA_PD:
			r->other_ia = true;
			break;
		default:
			break;
		}
	}
	return ret;
}

/**
 * dhcpv6_ia_addrs() - Collect the addresses listed in an IA_NA
 * @ia:		IA_NA option data
 * @len:	Its length (>= 12)
 * @addrs:	Result, up to DHCPV6_ADDR_MAX addresses
 *
 * Return: number of IA Address options found (at most DHCPV6_ADDR_MAX), or
 *	   -1 if the options inside are malformed
 */
static int dhcpv6_ia_addrs(const uint8_t *ia, size_t len,
			   struct in6_addr *addrs)
{
	size_t off = sizeof(struct dhcpv6_ia_na), olen;
	const uint8_t *d;
	uint16_t code;
	int ret, n = 0;

	while ((ret = dhcpv6_opt_next(ia, len, &off, &code, &d, &olen)) > 0) {
		if (code != OPT_IAADDR)
			continue;
		/* Section 21.6: address, preferred and valid lifetime */
		if (olen < IAADDR_DATA_LEN)
			return -1;
		if (n < DHCPV6_ADDR_MAX)
			memcpy(&addrs[n++], d, sizeof(*addrs));
	}
	return ret < 0 ? -1 : n;
}

/**
 * dhcpv6_put() - Start an option in the reply
 * @o:		Reply
 * @code:	Option code
 * @len:	Option data length, bytes
 *
 * Return: pointer to the option data, NULL if it doesn't fit
 */
static uint8_t *dhcpv6_put(struct dhcpv6_out *o, uint16_t code, size_t len)
{
	const size_t hlen = sizeof(struct dhcpv6_opt);
	uint8_t *p;

	if (len > UINT16_MAX || o->cap - o->len < hlen + len)
		return NULL;
	p = o->p + o->len;
	hdr_put16(p, struct dhcpv6_opt, code, code);
	hdr_put16(p, struct dhcpv6_opt, len, len);
	o->len += hlen + len;
	return p + hlen;
}

/**
 * dhcpv6_put_status() - Write a Status Code option (section 21.13)
 * @p:		Where (6 + strlen(@msg) bytes)
 * @status:	Status code
 * @msg:	Status message, UTF-8, no terminator on the wire
 *
 * Return: bytes written
 */
static size_t dhcpv6_put_status(uint8_t *p, uint16_t status, const char *msg)
{
	const size_t hlen = sizeof(struct dhcpv6_status);
	size_t n = strlen(msg);

	hdr_put16(p, struct dhcpv6_status, hdr.code, OPT_STATUS_CODE);
	hdr_put16(p, struct dhcpv6_status, hdr.len,
		  hlen - sizeof(struct dhcpv6_opt) + n);
	hdr_put16(p, struct dhcpv6_status, code, status);
	memcpy(p + hlen, msg, n);
	return hlen + n;
}

/**
 * dhcpv6_put_iaaddr() - Write an IA Address option (section 21.6)
 * @p:		Where, sizeof(struct dhcpv6_iaaddr) bytes, any alignment
 * @addr:	Address
 * @lifetime:	Preferred and valid lifetime, seconds, host order
 *
 * Return: bytes written
 */
static size_t dhcpv6_put_iaaddr(uint8_t *p, const struct in6_addr *addr,
				uint32_t lifetime)
{
	struct dhcpv6_iaaddr a = {
		.hdr = {
			.code = htons(OPT_IAADDR),
			.len = htons(IAADDR_DATA_LEN),
		},
		.addr = *addr,
		.preferred = htonl(lifetime),
		.valid = htonl(lifetime),
	};

	hdr_store(p, &a);
	return sizeof(a);
}

/**
 * dhcpv6_put_ia_na() - Answer one IA_NA of the client
 * @c:		Configuration
 * @o:		Reply
 * @ia:		Client's IA_NA option data
 * @len:	Its length
 * @first:	The first IA_NA: gets the address, others NoAddrsAvail
 *
 * Return: 0, or -1 if the IA_NA is malformed or doesn't fit
 */
static int dhcpv6_put_ia_na(const struct conf *c, struct dhcpv6_out *o,
			    const uint8_t *ia, size_t len, bool first)
{
	static const char noaddrs[] = "one address per client";
	struct in6_addr addrs[DHCPV6_ADDR_MAX];
	size_t olen = sizeof(struct dhcpv6_ia_na), at;
	int n, i, stale = 0;
	uint8_t *p;

	n = dhcpv6_ia_addrs(ia, len, addrs);
	if (n < 0)
		return -1;

	if (first) {
		for (i = 0; i < n; i++) {
			if (!IN6_ARE_ADDR_EQUAL(&addrs[i], &c->ip6.addr))
				stale++;
		}
		olen += (size_t)(1 + stale) * sizeof(struct dhcpv6_iaaddr);
	} else {
		olen += sizeof(struct dhcpv6_status) + sizeof(noaddrs) - 1;
	}

	p = dhcpv6_put(o, OPT_IA_NA, olen);
	if (!p)
		return -1;

	/* Section 21.4: IAID echoed, T1, T2 */
	hdr_copy_in(p, struct dhcpv6_ia_na, iaid,
		    HDR_AT(ia, struct dhcpv6_ia_na, iaid));
	hdr_put32(p, struct dhcpv6_ia_na, t1, !first ? 0 :
		  c->no_follow_host ? DHCPV6_INFINITE : DHCPV6_FOLLOW_T1_S);
	hdr_put32(p, struct dhcpv6_ia_na, t2, !first ? 0 :
		  c->no_follow_host ? DHCPV6_INFINITE : DHCPV6_FOLLOW_T2_S);
	at = sizeof(struct dhcpv6_ia_na);

	if (!first) {
		dhcpv6_put_status(p + at, STATUS_NOADDRSAVAIL, noaddrs);
		return 0;
	}

	/* Section 21.6: IA Address, preferred then valid lifetime; the
	 * client's other addresses with zero lifetimes (section 18.3.4)
	 */
	at += dhcpv6_put_iaaddr(p + at, &c->ip6.addr, c->no_follow_host ?
				DHCPV6_INFINITE : DHCPV6_FOLLOW_LIFE_S);
	for (i = 0; i < n; i++) {
		if (IN6_ARE_ADDR_EQUAL(&addrs[i], &c->ip6.addr))
			continue;
		at += dhcpv6_put_iaaddr(p + at, &addrs[i], 0);
	}
	return 0;
}

/**
 * dhcpv6_confirm_status() - Status for a Confirm (section 18.3.3)
 * @c:		Configuration
 * @r:		Parsed Confirm
 *
 * Return: STATUS_SUCCESS or STATUS_NOTONLINK, or -1 if there are no
 *	   addresses (then no Reply is sent) or an IA_NA is malformed
 */
static int dhcpv6_confirm_status(const struct conf *c,
				 const struct dhcpv6_req *r)
{
	int plen = c->ip6.prefix_len, status = STATUS_SUCCESS, total = 0;
	unsigned i;

	for (i = 0; i < r->n_ia_na; i++) {
		struct in6_addr addrs[DHCPV6_ADDR_MAX];
		int n, j, b;

		n = dhcpv6_ia_addrs(r->ia_na[i], r->ia_na_len[i], addrs);
		if (n < 0)
			return -1;
		total += n;
		for (j = 0; j < n; j++) {
			for (b = 0; b < plen && b < 128; b++) {
				uint8_t m = (uint8_t)(0x80 >> (b % 8));

				if ((addrs[j].s6_addr[b / 8] & m) !=
				    (c->ip6.addr.s6_addr[b / 8] & m)) {
					status = STATUS_NOTONLINK;
					break;
				}
			}
		}
	}
	return total ? status : -1;
}

/**
 * dhcpv6_put_fqdn() - Append --fqdn as Client FQDN option 39 (RFC 4704)
 * @c:		Configuration
 * @o:		Reply
 * @r:		Parsed client message: its Client FQDN option, if any
 *
 * Only if the client sent option 39 (RFC 4704 section 6: a server MUST
 * NOT send it otherwise).  We never update DNS, so the flags say so (RFC
 * 4704 sections 4.1 and 6):
 * N set and S clear; O set if the client asked for server updates (S set).
 * The name follows in DNS wire format (RFC 1035 section 3.1, fully
 * qualified: it ends with the root label).  If it doesn't fit what is left
 * of @o, nothing is written and svc_stats.dhcpv6_fqdn_skipped counts it.
 */
static void dhcpv6_put_fqdn(const struct conf *c, struct dhcpv6_out *o,
			    const struct dhcpv6_req *r)
{
	uint8_t name[DNS_NAME_MAX], *p;
	int n;

	/* RFC 4704 section 6: only to a client that sent the option */
	if (!c->fqdn[0] || !r->has_fqdn)
		return;

	n = dns_name_encode(c->fqdn, name, sizeof(name));
	if (n < 0 || !(p = dhcpv6_put(o, OPT_CLIENT_FQDN, 1 + (size_t)n))) {
		svc_count(SVC_COUNT_DHCPV6_FQDN_SKIPPED);
		return;
	}
	p[0] = FQDN_N;
	if (r->has_fqdn && (r->fqdn_flags & FQDN_S))
		p[0] |= FQDN_O;
	memcpy(p + 1, name, (size_t)n);
}

/**
 * dhcpv6_put_dns() - Append DNS servers and domain list options
 * @c:		Configuration
 * @o:		Reply
 */
static void dhcpv6_put_dns(const struct conf *c, struct dhcpv6_out *o)
{
	if (!c->no_dhcp_dns) {
		unsigned i, n = 0;
		uint8_t *p;

		for (i = 0; i < MIN(c->ip6.dns_count, CONF_MAX_DNS); i++)
			n += !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.dns[i]);
		/* RFC 3646 section 3: list of 16-byte addresses */
		if (n && (p = dhcpv6_put(o, OPT_DNS_SERVERS,
					 n * sizeof(struct in6_addr)))) {
			for (i = 0; i < MIN(c->ip6.dns_count, CONF_MAX_DNS);
			     i++) {
				if (IN6_IS_ADDR_UNSPECIFIED(&c->ip6.dns[i]))
					continue;
				memcpy(p, &c->ip6.dns[i],
				       sizeof(struct in6_addr));
				p += 16;
			}
		}
	}

	/* RFC 3646 section 4, names uncompressed (RFC 8415 section 10) */
	if (!c->no_dhcp_search && c->search_count && o->cap - o->len > 4) {
		size_t n;

		n = dns_name_list_encode((const char (*)[CONF_SEARCH_LEN])
					 c->search,
					 MIN(c->search_count, CONF_MAX_SEARCH),
					 false, o->p + o->len + 4,
					 o->cap - o->len - 4);
		if (n)
			dhcpv6_put(o, OPT_DOMAIN_LIST, n);
	}
}

/**
 * dhcpv6_duid() - Our server DUID: DUID-LL of our MAC (section 11.4)
 * @c:		Configuration (reads mac_our)
 * @duid:	Result, network order
 */
static void dhcpv6_duid(const struct conf *c, struct dhcpv6_duid_ll *duid)
{
	duid->type = htons(DUID_TYPE_LL);
	duid->hw_type = htons(ARPHRD_ETHER);
	memcpy(duid->mac, c->mac_our, sizeof(duid->mac));
}

/**
 * dhcpv6_valid() - Validate a client message as in RFC 8415 section 16
 * @c:		Configuration
 * @f:		Frame
 * @r:		Parsed message
 *
 * Return: true if the message is for us
 */
static bool dhcpv6_valid(const struct conf *c, const struct frame *f,
			 const struct dhcpv6_req *r)
{
	bool mcast = IN6_IS_ADDR_MULTICAST(&f->dst.a6), sid_ok;
	struct dhcpv6_duid_ll duid;

	dhcpv6_duid(c, &duid);
	sid_ok = r->server_id && r->server_id_len == sizeof(duid) &&
		 !memcmp(r->server_id, &duid, sizeof(duid));

	switch (r->type) {
	case SOLICIT:		/* 16.2 */
	case CONFIRM:		/* 16.5 */
	case REBIND:		/* 16.7 */
		return mcast && r->client_id && !r->server_id;
	case REQUEST:		/* 16.4 */
	case RENEW:		/* 16.6 */
	case RELEASE:		/* 16.9 */
	case DECLINE:		/* 16.8 */
		return r->client_id && sid_ok;
	case INFORMATION_REQUEST:	/* 16.12 */
		return mcast && (!r->server_id || sid_ok) &&
		       !r->n_ia_na && !r->other_ia;
	default:
		return false;
	}
}

/**
 * dhcpv6_handle() - Answer a DHCPv6 message from the guest
 * @c:		Configuration (reads no_dhcpv6, ip6, mtu, mac_our, search,
 *		fqdn, no_dhcp_dns, no_dhcp_search)
 * @f:		Frame validated by frame_parse()
 * @out:	Buffer for the reply frame, starting with the Ethernet header
 * @cap:	Size of @out, bytes; 14 + max(c->mtu, 1280) is always enough
 *
 * Frames that are not IPv6/UDP to port 547 are ignored.  See the DOC block
 * above for the replies.  Counters: svc_stats.dhcpv6_req for each message
 * that passes the checks of RFC 8415 section 16, dhcpv6_reply for each
 * reply, dhcpv6_bad for malformed or invalid messages (and those naming
 * another server), dhcpv6_fqdn_skipped for replies with no room for the
 * Client FQDN option.
 *
 * Context: main loop; no allocation
 * Return: length of the reply written to @out, or 0 for no reply
 */
size_t dhcpv6_handle(const struct conf *c, const struct frame *f,
		     uint8_t *out, size_t cap)
{
	static const char ok[] = "success", notonlink[] = "not on link";
	struct dhcpv6_req r = { 0 };
	struct dhcpv6_duid_ll duid;
	const size_t mhlen = sizeof(struct dhcpv6_msg);
	union inany src, dst;
	struct dhcpv6_out o;
	size_t lim, l4_len;
	int status = -1;
	uint8_t *p, *udp;
	unsigned i;

	if (f->af != AF_INET6 || f->proto != IPPROTO_UDP ||
	    f->dport != DHCPV6_SERVER_PORT || !f->payload)
		return 0;
	if (c->no_dhcpv6 || !c->ip6.enabled ||
	    IN6_IS_ADDR_UNSPECIFIED(&c->ip6.our_ll))
		return 0;

	if (dhcpv6_parse(f->payload, f->payload_len, &r) ||
	    !dhcpv6_valid(c, f, &r)) {
		svc_count(SVC_COUNT_DHCPV6_BAD);
		return 0;
	}
	if (r.type == CONFIRM) {
		status = dhcpv6_confirm_status(c, &r);
		if (status < 0) {
			svc_count(SVC_COUNT_DHCPV6_BAD);
			return 0;
		}
	}
	svc_count(SVC_COUNT_DHCPV6_REQ);

	lim = (c->mtu >= IP6_MIN_MTU ? (size_t)c->mtu : IP6_MIN_MTU) + ETH_HLEN;
	if (lim > cap)
		lim = cap;
	if (lim < ETH_HLEN + IP6_HLEN + UDP_HLEN + mhlen)
		return 0;

	udp = out + ETH_HLEN + IP6_HLEN;
	o.p = udp + UDP_HLEN;
	o.cap = lim - ETH_HLEN - IP6_HLEN - UDP_HLEN;
	o.len = mhlen;

	hdr_put8(o.p, struct dhcpv6_msg, type,
		 (r.type == SOLICIT && !r.rapid_commit) ? ADVERTISE : REPLY);
	hdr_copy_in(o.p, struct dhcpv6_msg, xid, r.xid);

	/* Section 21.3: Server Identifier, DUID-LL (section 11.4) */
	if (!(p = dhcpv6_put(&o, OPT_SERVERID, sizeof(duid))))
		return 0;
	dhcpv6_duid(c, &duid);
	hdr_store(p, &duid);

	if (r.client_id) {
		if (!(p = dhcpv6_put(&o, OPT_CLIENTID, r.client_id_len)))
			return 0;
		memcpy(p, r.client_id, r.client_id_len);
	}

	switch (r.type) {
	case SOLICIT:
		if (r.rapid_commit) {
			if (!dhcpv6_put(&o, OPT_RAPID_COMMIT, 0))
				return 0;
		} else {
			/* Section 21.8: 255 makes the client go ahead */
			if (!(p = dhcpv6_put(&o, OPT_PREFERENCE, 1)))
				return 0;
			*p = DHCPV6_PREF_MAX;
		}
		/* fall through */
	case REQUEST:
	case RENEW:
	case REBIND:
		for (i = 0; i < r.n_ia_na; i++) {
			if (dhcpv6_put_ia_na(c, &o, r.ia_na[i], r.ia_na_len[i],
					     i == 0)) {
				svc_count(SVC_COUNT_DHCPV6_BAD);
				return 0;
			}
		}
		dhcpv6_put_fqdn(c, &o, &r);
		dhcpv6_put_dns(c, &o);
		break;
	case CONFIRM:
	case RELEASE:
	case DECLINE:
		if (r.type != CONFIRM)
			status = STATUS_SUCCESS;
		if (o.cap - o.len < sizeof(struct dhcpv6_status) +
				    sizeof(notonlink))
			return 0;
		o.len += dhcpv6_put_status(o.p + o.len, (uint16_t)status,
					   status ? notonlink : ok);
		break;
	case INFORMATION_REQUEST:
		dhcpv6_put_dns(c, &o);
		break;
	}

	l4_len = UDP_HLEN + o.len;
	src.a6 = c->ip6.our_ll;
	dst.a6 = f->src.a6;
	frame_udp_fill(udp, &src, DHCPV6_SERVER_PORT, &dst, DHCPV6_CLIENT_PORT,
		       o.len, false);
	frame_ip6_fill(out + ETH_HLEN, &c->ip6.our_ll, &f->src.a6, IPPROTO_UDP,
		       l4_len, IP_TTL_DEFAULT);
	frame_eth_fill(out, HDR_AT(f->l2, struct ethhdr, h_source), c->mac_our,
		       ETH_P_IPV6);

	svc_count(SVC_COUNT_DHCPV6_REPLY);
	return ETH_HLEN + IP6_HLEN + l4_len;
}
