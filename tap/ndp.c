// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/ndp.c - Router and neighbour discovery for the guest (RFC 4861)
 *
 * DOC: Theory of Operation
 *
 * We are the only router and every other neighbour of the guest, so:
 *
 * - a Router Solicitation gets a Router Advertisement (unless c->no_ra),
 *   unicast to the solicitor if it has an address, else to ff02::1
 *   (RFC 4861 section 6.2.6); ndp_ra() builds the unsolicited RAs;
 * - a Neighbor Solicitation for any target except the guest's own
 *   addresses gets a Neighbor Advertisement with our MAC address, Router,
 *   Solicited and Override flags set, sent from the target address.
 *   Duplicate Address Detection probes (source ::) are answered only for
 *   addresses we really use (c->ip6.our_ll and c->ip6.gw), then with S=0
 *   to ff02::1 (RFC 4861 section 7.2.4): the guest probes addresses it is
 *   about to take (SLAAC, privacy addresses) before we ever saw them, and
 *   an answer would make it give them up.
 *
 * The RA carries: M and O flags when DHCPv6 is on; a router lifetime of
 * 9000 s, the largest AdvDefaultLifetime of RFC 4861 section 6.2.1; a
 * Source Link-Layer Address option; an MTU option if c->mtu >= 1280
 * (RFC 8200 section 5); a Prefix Information option for c->ip6.addr (L=1,
 * A=1 only for /64, the length SLAAC needs, RFC 4862 section 5.5.3, with
 * infinite lifetimes, RFC 4861 section 4.6.2), and for a few RAs after the
 * host's network changed, the previous prefix with lifetimes 0
 * (ndp_ra_prefix_gone()); RDNSS and DNSSL options
 * (RFC 8106) with a lifetime of 2 * NDP_RA_INTERVAL_MAX_S, the upper bound
 * of RFC 8106 section 5.1.  An RA never exceeds max(c->mtu, 1280) bytes of
 * IPv6 packet: search domains that don't fit are left out.
 *
 * Incoming messages are validated as in RFC 4861 sections 6.1.1 and 7.1.1
 * (hop limit 255, code 0, length, no zero-length option, no source
 * link-layer option from ::, NS target not multicast, DAD to a
 * solicited-node address) except for the ICMPv6 checksum: the tap may
 * deliver CHECKSUM_PARTIAL frames, and a guest can only hurt itself.
 */
#include <linux/if_ether.h>
#include <string.h>

#include "../lib/visible.h"
#include "csum.h"
#include "dns_name.h"
#include "guest.h"
#include "hdr.h"
#include "services.h"

/* Messages (struct nd_router_advert, nd_neighbor_solicit, ...), their
 * types (ND_ROUTER_SOLICIT, ...), options (struct nd_opt_hdr,
 * nd_opt_prefix_info, nd_opt_mtu, ND_OPT_*) and flags (ND_RA_FLAG_*,
 * ND_NA_FLAG_*, ND_OPT_PI_FLAG_*) come from netinet/icmp6.h (RFC 4861
 * section 4).  The options of RFC 8106 are not there:
 */
#define ND_OPT_RDNSS		25	/* RFC 8106 section 5.1 */
#define ND_OPT_DNSSL		31	/* RFC 8106 section 5.2 */

/**
 * struct ndp_opt_dns - Header of RDNSS and DNSSL options (RFC 8106 5.1, 5.2)
 * @type:	ND_OPT_RDNSS or ND_OPT_DNSSL
 * @len:	Length in units of 8 bytes, this header included
 * @reserved:	Zero
 * @lifetime:	Lifetime, seconds, network order
 */
struct ndp_opt_dns {
	uint8_t type;
	uint8_t len;
	uint16_t reserved;
	uint32_t lifetime;
} PACKED;

/* Option lengths count units of 8 bytes (RFC 4861 section 4.6) */
#define ND_OPT_UNIT		8
/* Link-layer address option for Ethernet: type, length, MAC: one unit */
#define ND_OPT_LLA_LEN		ND_OPT_UNIT
/* Longest option: 255 units */
#define ND_OPT_MAX		(UINT8_MAX * ND_OPT_UNIT)
/* The prefix length SLAAC needs (RFC 4862 section 5.5.3, RFC 4291 2.5.1) */
#define ND_SLAAC_PLEN		64

/* Where the ICMPv6 message starts in the frames we build */
#define ND_ICMP_OFF		(ETH_HLEN + IP6_HLEN)

#define ND_HOP_LIMIT		255	/* RFC 4861 6.1.1, 7.1.1 */
#define ND_ROUTER_LIFETIME_S	9000	/* RFC 4861 6.2.1 maximum */
#define ND_DNS_LIFETIME_S	(2 * NDP_RA_INTERVAL_MAX_S) /* RFC 8106 5.1 */
#define ND_CUR_HOP_LIMIT	IP_TTL_DEFAULT	/* RFC 4861 6.2.1: IANA TTL */
#define ND_LIFETIME_INFINITE	0xffffffffU

static const struct in6_addr ndp_all_nodes = {
	.s6_addr = { 0xff, 0x02, [15] = 0x01 }
};

/* Solicited-node multicast prefix, ff02::1:ff00:0/104 (RFC 4291 2.7.1) */
static const uint8_t ndp_sn_prefix[13] = {
	0xff, 0x02, [11] = 0x01, [12] = 0xff
};

/**
 * ndp_mcast_mac() - Ethernet address for an IPv6 multicast address
 * @mac:	Result, 33:33 and the last 4 bytes of @a (RFC 2464 section 7)
 * @a:		Multicast address
 */
static void ndp_mcast_mac(uint8_t *mac, const struct in6_addr *a)
{
	static const uint8_t prefix[2] = { 0x33, 0x33 };
	const size_t tail = ETH_ALEN - sizeof(prefix);	/* low 32 bits */

	memcpy(mac, prefix, sizeof(prefix));
	memcpy(mac + sizeof(prefix), &a->s6_addr[sizeof(*a) - tail], tail);
}

/**
 * ndp_opt_lla() - Write a link-layer address option (RFC 4861 4.6.1)
 * @o:		Where, ND_OPT_LLA_LEN bytes, any alignment
 * @type:	ND_OPT_SOURCE_LINKADDR or ND_OPT_TARGET_LINKADDR
 * @mac:	Our MAC address
 *
 * Return: ND_OPT_LLA_LEN
 */
static size_t ndp_opt_lla(uint8_t *o, uint8_t type, const uint8_t *mac)
{
	struct nd_opt_hdr h = {
		.nd_opt_type = type,
		.nd_opt_len = ND_OPT_LLA_LEN / ND_OPT_UNIT,
	};

	hdr_store(o, &h);
	memcpy(o + sizeof(h), mac, ETH_ALEN);
	return ND_OPT_LLA_LEN;
}

/**
 * ndp_opt_dns() - Write the header of an RDNSS or DNSSL option (RFC 8106)
 * @o:		Where, any alignment
 * @type:	ND_OPT_RDNSS or ND_OPT_DNSSL
 * @len:	Whole option length, bytes, a multiple of ND_OPT_UNIT
 */
static void ndp_opt_dns(uint8_t *o, uint8_t type, size_t len)
{
	struct ndp_opt_dns h = {
		.type = type,
		.len = (uint8_t)(len / ND_OPT_UNIT),
		.lifetime = htonl(ND_DNS_LIFETIME_S),
	};

	hdr_store(o, &h);
}

/**
 * ndp_icmp_finish() - Fill IPv6 and Ethernet headers, ICMPv6 checksum
 * @c:		Configuration (reads mac_our)
 * @out:	Frame start; the ICMPv6 message is at @out + ND_ICMP_OFF
 * @icmp_len:	ICMPv6 message length, bytes
 * @src:	IPv6 source
 * @dst:	IPv6 destination
 * @dst_mac:	Ethernet destination
 *
 * Return: frame length
 */
static size_t ndp_icmp_finish(const struct conf *c, uint8_t *out,
			      size_t icmp_len, const struct in6_addr *src,
			      const struct in6_addr *dst,
			      const uint8_t *dst_mac)
{
	uint8_t *icmp = out + ND_ICMP_OFF;
	uint16_t sum;

	hdr_put16(icmp, struct icmp6_hdr, icmp6_cksum, 0);
	sum = csum(icmp, icmp_len,
		   csum_pseudo6(src, dst, IPPROTO_ICMPV6, icmp_len));
	memcpy(icmp + ICMP6_CSUM_OFF, &sum, sizeof(sum));

	frame_ip6_fill(out + ETH_HLEN, src, dst, IPPROTO_ICMPV6, icmp_len,
		       ND_HOP_LIMIT);
	frame_eth_fill(out, dst_mac, c->mac_our, ETH_P_IPV6);
	return ND_ICMP_OFF + icmp_len;
}

/* A prefix the guest should stop using (ndp_ra_prefix_gone()) */
static struct in6_addr ndp_old_prefix;
static int ndp_old_plen;
static unsigned ndp_old_left;		/* RAs still to carry it */

/**
 * ndp_pio_put() - Write a Prefix Information option (RFC 4861 4.6.2)
 * @o:		Where, sizeof(struct nd_opt_prefix_info) bytes
 * @addr:	An address of the prefix (host bits are cleared here)
 * @plen:	Prefix length, 1-128
 * @life:	Valid and preferred lifetime, seconds
 */
static void ndp_pio_put(uint8_t *o, const struct in6_addr *addr, int plen,
			uint32_t life)
{
	struct nd_opt_prefix_info pi = {
		.nd_opt_pi_type		= ND_OPT_PREFIX_INFORMATION,
		.nd_opt_pi_len		= sizeof(pi) / ND_OPT_UNIT,
		.nd_opt_pi_prefix_len	= (uint8_t)plen,
		.nd_opt_pi_flags_reserved = ND_OPT_PI_FLAG_ONLINK |
			(plen == ND_SLAAC_PLEN ? ND_OPT_PI_FLAG_AUTO : 0),
		.nd_opt_pi_valid_time	= htonl(life),
		.nd_opt_pi_preferred_time = htonl(life),
		.nd_opt_pi_reserved2	= 0,
		.nd_opt_pi_prefix	= *addr,
	};
	unsigned i;

	/* Bits after the prefix length are reserved: zero them */
	for (i = 0; i < sizeof(pi.nd_opt_pi_prefix); i++) {
		int keep = plen - (int)i * 8;

		if (keep <= 0)
			pi.nd_opt_pi_prefix.s6_addr[i] = 0;
		else if (keep < 8)
			pi.nd_opt_pi_prefix.s6_addr[i] &=
				(uint8_t)(0xff << (8 - keep));
	}
	hdr_store(o, &pi);
}

/**
 * ndp_same_prefix() - Do two addresses share their first @plen bits?
 * @a:		Address
 * @b:		Address
 * @plen:	Prefix length, 0-128
 *
 * Return: true if they do
 */
static bool ndp_same_prefix(const struct in6_addr *a, const struct in6_addr *b,
			    int plen)
{
	int bytes = plen / 8, bits = plen % 8;

	if (memcmp(a, b, (size_t)bytes))
		return false;
	return !bits || !((a->s6_addr[bytes] ^ b->s6_addr[bytes]) &
			  (uint8_t)(0xff << (8 - bits)));
}

/**
 * ndp_ra_prefix_gone() - The guest's prefix changed: deprecate the old one
 * @old:	An address of the old prefix
 * @plen:	Its length, 1-128
 *
 * The next NDP_RA_INITIAL RAs carry the old prefix too, with preferred and
 * valid lifetimes 0: the guest stops using its addresses of it for new
 * connections at once (RFC 4862 section 5.5.4), and, an RA not being
 * authenticated, drops them two hours later at most (section 5.5.3 e).
 * The RA schedule restarts, so the first of them goes out at once.
 *
 * Context: passt/follow.c, after the configuration changed
 */
void ndp_ra_prefix_gone(const struct in6_addr *old, int plen)
{
	if (plen < 1 || plen > 128)
		return;
	ndp_old_prefix = *old;
	ndp_old_plen = plen;
	ndp_old_left = NDP_RA_INITIAL;
	ndp_ra_restart();
}

/**
 * ndp_ra_build() - Write a Router Advertisement frame
 * @c:		Configuration
 * @dst:	IPv6 destination (solicitor or ff02::1)
 * @dst_mac:	Ethernet destination
 * @out:	Output buffer
 * @cap:	Size of @out, bytes
 *
 * Return: frame length, 0 if RAs are off or @cap is too small
 */
static size_t ndp_ra_build(const struct conf *c, const struct in6_addr *dst,
			   const uint8_t *dst_mac, uint8_t *out, size_t cap)
{
	struct nd_router_advert ra = { .nd_ra_type = ND_ROUTER_ADVERT };
	uint8_t *icmp = out + ND_ICMP_OFF, *o;
	size_t lim, len;
	int plen;

	if (c->no_ra || c->no_ndp || !c->ip6.enabled ||
	    !IN6_IS_ADDR_LINKLOCAL(&c->ip6.our_ll))
		return 0;

	lim = (c->mtu >= IP6_MIN_MTU ? (size_t)c->mtu : IP6_MIN_MTU) + ETH_HLEN;
	if (lim > cap)
		lim = cap;
	/* Header, SLLA, MTU, prefix: always; DNS options only if they fit */
	if (lim < ND_ICMP_OFF + sizeof(ra) + ND_OPT_LLA_LEN +
		  sizeof(struct nd_opt_mtu) + sizeof(struct nd_opt_prefix_info))
		return 0;
	lim -= ND_ICMP_OFF;		/* room for the ICMPv6 message */

	/* RFC 4861 section 4.2; reachable time and retransmission timer
	 * zero: unspecified.  Assigned one by one: curhoplimit, flags and
	 * router lifetime share a union in struct icmp6_hdr, where a
	 * designated initializer keeps only the last member named
	 */
	ra.nd_ra_curhoplimit = ND_CUR_HOP_LIMIT;
	ra.nd_ra_flags_reserved = c->no_dhcpv6 ? 0 :
				  ND_RA_FLAG_MANAGED | ND_RA_FLAG_OTHER;
	ra.nd_ra_router_lifetime = htons(ND_ROUTER_LIFETIME_S);
	hdr_store(icmp, &ra);
	len = sizeof(ra);

	/* Source link-layer address, section 4.6.1 */
	len += ndp_opt_lla(icmp + len, ND_OPT_SOURCE_LINKADDR, c->mac_our);

	/* MTU, section 4.6.4; none with -m 0 */
	if (!c->no_mtu && c->mtu >= IP6_MIN_MTU) {
		struct nd_opt_mtu m = {
			.nd_opt_mtu_type	= ND_OPT_MTU,
			.nd_opt_mtu_len		= sizeof(m) / ND_OPT_UNIT,
			.nd_opt_mtu_reserved	= 0,
			.nd_opt_mtu_mtu		= htonl((uint32_t)c->mtu),
		};

		hdr_store(icmp + len, &m);
		len += sizeof(m);
	}

	/* Prefix information, section 4.6.2 */
	plen = c->ip6.prefix_len;
	if (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.addr) && plen >= 1 &&
	    plen <= (int)sizeof(struct in6_addr) * 8) {
		ndp_pio_put(icmp + len, &c->ip6.addr, plen,
			    ND_LIFETIME_INFINITE);
		len += sizeof(struct nd_opt_prefix_info);
	}

	/* An old prefix, deprecated: lifetimes 0 (ndp_ra_prefix_gone()) */
	if (ndp_old_left && lim - len >= sizeof(struct nd_opt_prefix_info) &&
	    (ndp_old_plen != plen ||
	     !ndp_same_prefix(&ndp_old_prefix, &c->ip6.addr, plen))) {
		ndp_pio_put(icmp + len, &ndp_old_prefix, ndp_old_plen, 0);
		len += sizeof(struct nd_opt_prefix_info);
		ndp_old_left--;
	}

	/* RDNSS, RFC 8106 section 5.1: header, then the addresses */
	if (!c->no_dhcp_dns) {
		const size_t hlen = sizeof(struct ndp_opt_dns);
		const size_t alen = sizeof(struct in6_addr);
		unsigned i, n = 0;

		o = icmp + len;
		for (i = 0; i < MIN(c->ip6.dns_count, CONF_MAX_DNS); i++) {
			if (IN6_IS_ADDR_UNSPECIFIED(&c->ip6.dns[i]))
				continue;
			if (lim - len < hlen + (n + 1) * alen)
				break;
			memcpy(o + hlen + n * alen, &c->ip6.dns[i], alen);
			n++;
		}
		if (n) {
			ndp_opt_dns(o, ND_OPT_RDNSS, hlen + n * alen);
			len += hlen + n * alen;
		}
	}

	/* DNSSL, RFC 8106 section 5.2: uncompressed names, zero padded to
	 * 8 bytes, at most 255 units of 8 bytes
	 */
	if (!c->no_dhcp_search && c->search_count &&
	    lim - len >= sizeof(struct ndp_opt_dns) + ND_OPT_UNIT) {
		const size_t hlen = sizeof(struct ndp_opt_dns);
		size_t room = MIN(lim - len, ND_OPT_MAX) - hlen, n;

		room -= room % ND_OPT_UNIT;
		o = icmp + len;
		n = dns_name_list_encode((const char (*)[CONF_SEARCH_LEN])
					 c->search,
					 MIN(c->search_count, CONF_MAX_SEARCH),
					 false, o + hlen, room);
		if (n) {
			size_t olen = ROUND_UP(hlen + n, ND_OPT_UNIT);

			memset(o + hlen + n, 0, olen - hlen - n);
			ndp_opt_dns(o, ND_OPT_DNSSL, olen);
			len += olen;
		}
	}

	svc_count(SVC_COUNT_NDP_RA);
	return ndp_icmp_finish(c, out, len, &c->ip6.our_ll, dst, dst_mac);
}

/**
 * ndp_ra() - Build an unsolicited Router Advertisement to ff02::1
 * @c:		Configuration (reads no_ra, no_ndp, no_dhcpv6, ip6, mtu,
 *		mac_our, search, no_dhcp_dns, no_dhcp_search)
 * @out:	Buffer for the frame, starting with the Ethernet header
 * @cap:	Size of @out, bytes; 14 + max(c->mtu, 1280) is always enough
 *
 * The daemon sends one at start and then on ndp_ra_timer()'s schedule,
 * at least every
 * NDP_RA_INTERVAL_MAX_S seconds, so that the DNS lifetimes (twice that)
 * never run out.  Counts svc_stats.ndp_ra.
 *
 * Context: any; no allocation
 * Return: frame length, or 0 if RAs are disabled (no_ra, no_ndp, no IPv6,
 *	   c->ip6.our_ll not link-local) or @cap is below 118 bytes
 */
VISIBLE_IF_UNIT
size_t ndp_ra(const struct conf *c, uint8_t *out, size_t cap)
{
	uint8_t mac[ETH_ALEN];

	ndp_mcast_mac(mac, &ndp_all_nodes);
	return ndp_ra_build(c, &ndp_all_nodes, mac, out, cap);
}

static int64_t ndp_ra_next_ms = -1;	/* next unsolicited RA, -1: at once */
static int64_t ndp_ra_last_ms = INT64_MIN; /* last unsolicited RA */
static unsigned ndp_ra_sent;		/* unsolicited RAs since restart */
static uint64_t ndp_ra_rnd;		/* xorshift64 state, 0: unseeded */

/**
 * ndp_ra_interval() - Delay before the next unsolicited RA
 * @sent:	Unsolicited RAs sent since the guest attached, this one
 *		included
 * @rnd:	A random number
 *
 * RFC 4861 section 6.2.4: uniformly random between MinRtrAdvInterval and
 * MaxRtrAdvInterval, but for the first MAX_INITIAL_RTR_ADVERTISEMENTS at
 * most MAX_INITIAL_RTR_ADVERT_INTERVAL; never less than
 * MIN_DELAY_BETWEEN_RAS (section 10).
 *
 * Return: delay, milliseconds
 */
static int64_t ndp_ra_interval(unsigned sent, uint64_t rnd)
{
	int64_t span = NDP_RA_MAX_MS - NDP_RA_MIN_MS + 1;
	int64_t d = NDP_RA_MIN_MS + (int64_t)(rnd % (uint64_t)span);

	if (sent < NDP_RA_INITIAL && d > NDP_RA_INITIAL_MAX_MS)
		d = NDP_RA_MIN_DELAY_MS + (int64_t)(rnd %
			(uint64_t)(NDP_RA_INITIAL_MAX_MS - NDP_RA_MIN_DELAY_MS + 1));
	return MAX(d, (int64_t)NDP_RA_MIN_DELAY_MS);
}

/**
 * ndp_ra_restart() - A guest attached: advertise soon, then fast a few times
 *
 * The next ndp_ra_timer() call sends, but not within NDP_RA_MIN_DELAY_MS
 * of the previous unsolicited RA.
 */
void ndp_ra_restart(void)
{
	ndp_ra_next_ms = -1;
	ndp_ra_sent = 0;
}

/**
 * ndp_ra_timer() - Build the unsolicited RA if one is due
 * @c:		Configuration, as for ndp_ra()
 * @now:	CLOCK_MONOTONIC time, milliseconds
 * @out:	Buffer for the frame, as for ndp_ra()
 * @cap:	Size of @out, bytes
 *
 * Context: main loop, at least once a second while a guest is attached
 * Return: frame length, 0 if none is due (or RAs are off)
 */
size_t ndp_ra_timer(const struct conf *c, int64_t now, uint8_t *out,
		    size_t cap)
{
	size_t len;

	if (ndp_ra_next_ms >= 0 && now < ndp_ra_next_ms)
		return 0;
	if (ndp_ra_last_ms != INT64_MIN &&
	    now - ndp_ra_last_ms < NDP_RA_MIN_DELAY_MS)
		return 0;
	len = ndp_ra(c, out, cap);
	if (!len)
		return 0;

	if (!ndp_ra_rnd) {	/* any seed will do: desynchronise peers */
		ndp_ra_rnd = (uint64_t)now * 0x9e3779b97f4a7c15ULL;
		ndp_ra_rnd ^= (uint64_t)c->mac_our[5] << 8 | c->mac_our[4];
		ndp_ra_rnd |= 1;
	}
	ndp_ra_rnd ^= ndp_ra_rnd << 13;
	ndp_ra_rnd ^= ndp_ra_rnd >> 7;
	ndp_ra_rnd ^= ndp_ra_rnd << 17;

	ndp_ra_sent++;
	ndp_ra_last_ms = now;
	ndp_ra_next_ms = now + ndp_ra_interval(ndp_ra_sent, ndp_ra_rnd);
	return len;
}

/**
 * ndp_opts_valid() - Check ND options, find the source link-layer address
 * @o:		First option
 * @len:	Bytes from @o to the end of the message
 * @slla:	Set to the source link-layer address if present, else NULL
 *
 * Return: true if every option has a nonzero length that fits in @len
 *	   (RFC 4861 sections 4.6, 6.1.1 and 7.1.1)
 */
static bool ndp_opts_valid(const uint8_t *o, size_t len, const uint8_t **slla)
{
	*slla = NULL;
	while (len) {
		struct nd_opt_hdr h;
		size_t olen;

		if (len < sizeof(h))
			return false;
		hdr_load(&h, o);
		if (!h.nd_opt_len)
			return false;
		olen = (size_t)h.nd_opt_len * ND_OPT_UNIT;
		if (olen > len)
			return false;
		if (h.nd_opt_type == ND_OPT_SOURCE_LINKADDR && !*slla)
			*slla = o + sizeof(h);
		o += olen;
		len -= olen;
	}
	return true;
}

/**
 * ndp_target_guest() - Is @t one of the guest's own addresses?
 * @c:		Configuration
 * @t:		NS target
 *
 * Return: true for c->ip6.addr and the addresses we saw the guest use
 *	   (tap_guest)
 */
static bool ndp_target_guest(const struct conf *c, const struct in6_addr *t)
{
	return IN6_ARE_ADDR_EQUAL(t, &c->ip6.addr) ||
	       IN6_ARE_ADDR_EQUAL(t, &tap_guest.addr6_seen) ||
	       IN6_ARE_ADDR_EQUAL(t, &tap_guest.addr6_ll_seen);
}

/**
 * ndp_na() - Answer a Neighbor Solicitation
 * @c:		Configuration
 * @f:		Frame with a valid NS
 * @slla:	Source link-layer address option data, or NULL
 * @out:	Output buffer
 * @cap:	Size of @out, bytes
 *
 * Return: frame length, or 0 for no answer
 */
static size_t ndp_na(const struct conf *c, const struct frame *f,
		     const uint8_t *slla, uint8_t *out, size_t cap)
{
	struct nd_neighbor_advert na = { .nd_na_type = ND_NEIGHBOR_ADVERT };
	const struct in6_addr *dst;
	struct in6_addr target;
	uint8_t mac[ETH_ALEN];
	bool dad;

	hdr_copy_out(&target, f->l4, struct nd_neighbor_solicit,
		     nd_ns_target);
	dad = IN6_IS_ADDR_UNSPECIFIED(&f->src.a6);

	if (IN6_IS_ADDR_UNSPECIFIED(&target) || IN6_IS_ADDR_LOOPBACK(&target) ||
	    ndp_target_guest(c, &target))
		return 0;
	if (dad && !IN6_ARE_ADDR_EQUAL(&target, &c->ip6.our_ll) &&
	    !IN6_ARE_ADDR_EQUAL(&target, &c->ip6.gw))
		return 0;
	if (cap < ND_ICMP_OFF + sizeof(na) + ND_OPT_LLA_LEN)
		return 0;

	/* RFC 4861 section 4.4, with a target link-layer address option;
	 * ND_NA_FLAG_* are in network order already
	 */
	na.nd_na_flags_reserved = ND_NA_FLAG_ROUTER | ND_NA_FLAG_OVERRIDE |
				  (dad ? 0 : ND_NA_FLAG_SOLICITED);
	na.nd_na_target = target;
	hdr_store(out + ND_ICMP_OFF, &na);
	ndp_opt_lla(out + ND_ICMP_OFF + sizeof(na), ND_OPT_TARGET_LINKADDR,
		    c->mac_our);

	/* Section 7.2.4: unicast to the solicitor, or ff02::1 for DAD */
	if (dad) {
		dst = &ndp_all_nodes;
		ndp_mcast_mac(mac, dst);
	} else {
		dst = &f->src.a6;
		memcpy(mac, slla ? slla :
		       HDR_AT(f->l2, struct ethhdr, h_source), ETH_ALEN);
	}

	svc_count(SVC_COUNT_NDP_NA);
	return ndp_icmp_finish(c, out, sizeof(na) + ND_OPT_LLA_LEN, &target,
			       dst, mac);
}

/**
 * ndp_ns_probe() - Write a Neighbor Solicitation for an address of the guest
 * @c:		Configuration: our MAC and link-local address
 * @target:	Address asked for (the guest's)
 * @out:	Output buffer
 * @cap:	Size of @out, bytes
 *
 * RFC 4861 section 4.3, multicast to the target's solicited-node address
 * (RFC 4291 section 2.7.1) from our link-local address, with our MAC in a
 * source link-layer address option: the guest answers with a solicited
 * Neighbor Advertisement from its MAC (section 7.2.4).  For a guest that
 * kept its address across our restart and sends nothing (passt/passt.c).
 *
 * Return: frame length, or 0 without a usable target, source or room
 */
size_t ndp_ns_probe(const struct conf *c, const struct in6_addr *target,
		    uint8_t *out, size_t cap)
{
	struct nd_neighbor_solicit ns = {
		.nd_ns_type = ND_NEIGHBOR_SOLICIT,
		.nd_ns_target = *target,
	};
	const size_t pfx = sizeof(ndp_sn_prefix);
	struct in6_addr dst = { 0 };
	uint8_t mac[ETH_ALEN];

	if (!c->ip6.enabled || c->no_ndp ||
	    !IN6_IS_ADDR_LINKLOCAL(&c->ip6.our_ll) ||
	    IN6_IS_ADDR_UNSPECIFIED(target) || IN6_IS_ADDR_MULTICAST(target) ||
	    cap < ND_ICMP_OFF + sizeof(ns) + ND_OPT_LLA_LEN)
		return 0;
	/* Solicited-node address: the prefix, then the low 24 bits */
	memcpy(&dst, ndp_sn_prefix, pfx);
	memcpy(&dst.s6_addr[pfx], &target->s6_addr[pfx], sizeof(dst) - pfx);
	ndp_mcast_mac(mac, &dst);

	hdr_store(out + ND_ICMP_OFF, &ns);
	ndp_opt_lla(out + ND_ICMP_OFF + sizeof(ns), ND_OPT_SOURCE_LINKADDR,
		    c->mac_our);
	return ndp_icmp_finish(c, out, sizeof(ns) + ND_OPT_LLA_LEN,
			       &c->ip6.our_ll, &dst, mac);
}

/**
 * ndp_guest_addr() - Does the guest announce an address of its own?
 * @f:		Frame validated by frame_parse()
 * @addr:	Result: the address, if so
 *
 * A guest that configures itself by SLAAC (RFC 4862) alone may send
 * nothing from its global address until it has a reason to, but it probes
 * the address first: Duplicate Address Detection sends a Neighbor
 * Solicitation from :: whose target is the address (RFC 4862 section
 * 5.4.2), and some guests also announce it with an unsolicited Neighbor
 * Advertisement (S flag clear, RFC 4861 section 7.2.6).  Both carry hop
 * limit 255 and at least 24 bytes (sections 7.1.1, 7.1.2).  Link-local,
 * multicast, loopback and unspecified targets are not taken.
 *
 * Context: any
 * Return: true with @addr set if @f is such a message
 */
bool ndp_guest_addr(const struct frame *f, struct in6_addr *addr)
{
	struct nd_neighbor_advert m;	/* NS: the same layout, no flags */
	struct in6_addr t;

	if (f->af != AF_INET6 || f->proto != IPPROTO_ICMPV6 || !f->l4 ||
	    f->l4_len < sizeof(m) || f->ttl != ND_HOP_LIMIT)
		return false;
	hdr_load(&m, f->l4);
	if (m.nd_na_code)
		return false;
	if (m.nd_na_type == ND_NEIGHBOR_SOLICIT) {
		if (!IN6_IS_ADDR_UNSPECIFIED(&f->src.a6))
			return false;
	} else if (m.nd_na_type != ND_NEIGHBOR_ADVERT ||
		   (m.nd_na_flags_reserved & ND_NA_FLAG_SOLICITED)) {
		return false;
	}
	t = m.nd_na_target;
	if (IN6_IS_ADDR_UNSPECIFIED(&t) || IN6_IS_ADDR_LOOPBACK(&t) ||
	    IN6_IS_ADDR_LINKLOCAL(&t) || IN6_IS_ADDR_MULTICAST(&t) ||
	    IN6_IS_ADDR_V4MAPPED(&t))
		return false;
	*addr = t;
	return true;
}

/**
 * ndp_handle() - Answer a Router or Neighbor Solicitation from the guest
 * @c:		Configuration (reads no_ndp, no_ra, ip6, mac_our, and for RAs
 *		what ndp_ra() reads)
 * @f:		Frame validated by frame_parse()
 * @out:	Buffer for the reply frame, starting with the Ethernet header
 * @cap:	Size of @out, bytes; 14 + max(c->mtu, 1280) is always enough
 *
 * Frames other than ICMPv6 types 133 and 135 are ignored.  Counters:
 * svc_stats.ndp_rs and ndp_ns for valid solicitations, ndp_bad for invalid
 * ones, ndp_ra and ndp_na for replies written.
 *
 * Context: main loop; no allocation
 * Return: length of the reply written to @out, or 0 for no reply
 */
size_t ndp_handle(const struct conf *c, const struct frame *f,
		  uint8_t *out, size_t cap)
{
	const uint8_t *icmp = f->l4, *slla;
	struct nd_neighbor_solicit ns;
	struct icmp6_hdr h;
	bool unspec;

	if (f->af != AF_INET6 || f->proto != IPPROTO_ICMPV6 || !icmp ||
	    f->l4_len < sizeof(h))
		return 0;
	hdr_load(&h, icmp);
	if (h.icmp6_type != ND_ROUTER_SOLICIT &&
	    h.icmp6_type != ND_NEIGHBOR_SOLICIT)
		return 0;
	if (c->no_ndp || !c->ip6.enabled)
		return 0;

	unspec = IN6_IS_ADDR_UNSPECIFIED(&f->src.a6);

	if (h.icmp6_type == ND_ROUTER_SOLICIT) {
		const size_t rs = sizeof(struct nd_router_solicit);
		uint8_t mac[ETH_ALEN];

		/* RFC 4861 6.1.1: 8 bytes or more, then options */
		if (f->ttl != ND_HOP_LIMIT || h.icmp6_code ||
		    !ndp_opts_valid(icmp + rs, f->l4_len - rs, &slla) ||
		    (unspec && slla)) {
			svc_count(SVC_COUNT_NDP_BAD);
			return 0;
		}
		svc_count(SVC_COUNT_NDP_RS);

		/* Section 6.2.6: unicast if the solicitor has an address */
		if (unspec) {
			ndp_mcast_mac(mac, &ndp_all_nodes);
			return ndp_ra_build(c, &ndp_all_nodes, mac, out, cap);
		}
		memcpy(mac, slla ? slla :
		       HDR_AT(f->l2, struct ethhdr, h_source), ETH_ALEN);
		return ndp_ra_build(c, &f->src.a6, mac, out, cap);
	}

	/* RFC 4861 7.1.1: 24 bytes or more, target not multicast, from ::
	 * only to a solicited-node address (ff02::1:ff00:0/104), no SLLA
	 */
	if (f->ttl != ND_HOP_LIMIT || h.icmp6_code ||
	    f->l4_len < sizeof(ns)) {
		svc_count(SVC_COUNT_NDP_BAD);
		return 0;
	}
	hdr_load(&ns, icmp);
	if (IN6_IS_ADDR_MULTICAST(&ns.nd_ns_target) ||
	    !ndp_opts_valid(icmp + sizeof(ns), f->l4_len - sizeof(ns),
			    &slla) ||
	    (unspec && slla)) {
		svc_count(SVC_COUNT_NDP_BAD);
		return 0;
	}
	if (unspec) {
		if (memcmp(&f->dst.a6, ndp_sn_prefix, sizeof(ndp_sn_prefix))) {
			svc_count(SVC_COUNT_NDP_BAD);
			return 0;
		}
	}
	svc_count(SVC_COUNT_NDP_NS);

	return ndp_na(c, f, slla, out, cap);
}
