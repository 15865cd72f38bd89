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

#include "csum.h"
#include "dns_name.h"
#include "guest.h"
#include "services.h"

/* ICMPv6 types, RFC 4861 section 4 */
#define ND_RS			133
#define ND_RA			134
#define ND_NS			135
#define ND_NA			136

/* Option types, RFC 4861 section 4.6 and RFC 8106 */
#define ND_OPT_SLLA		1
#define ND_OPT_TLLA		2
#define ND_OPT_PREFIX		3
#define ND_OPT_MTU		5
#define ND_OPT_RDNSS		25
#define ND_OPT_DNSSL		31

/* RA flags (byte 5), RFC 4861 section 4.2 */
#define ND_RA_MANAGED		0x80
#define ND_RA_OTHER		0x40

/* NA flags (byte 4), RFC 4861 section 4.4 */
#define ND_NA_ROUTER		0x80
#define ND_NA_SOLICITED		0x40
#define ND_NA_OVERRIDE		0x20

/* Prefix Information flags, RFC 4861 section 4.6.2 */
#define ND_PIO_ONLINK		0x80
#define ND_PIO_AUTO		0x40

#define ND_HOP_LIMIT		255	/* RFC 4861 6.1.1, 7.1.1 */
#define ND_ROUTER_LIFETIME_S	9000	/* RFC 4861 6.2.1 maximum */
#define ND_DNS_LIFETIME_S	(2 * NDP_RA_INTERVAL_MAX_S) /* RFC 8106 5.1 */
#define ND_CUR_HOP_LIMIT	64	/* RFC 4861 6.2.1: IANA default TTL */
#define ND_LIFETIME_INFINITE	0xffffffffU
#define IP6_MIN_MTU		1280	/* RFC 8200 section 5 */

static const struct in6_addr ndp_all_nodes = {
	.s6_addr = { 0xff, 0x02, [15] = 0x01 }
};

/**
 * ndp_mcast_mac() - Ethernet address for an IPv6 multicast address
 * @mac:	Result, 33:33 and the last 4 bytes of @a (RFC 2464 section 7)
 * @a:		Multicast address
 */
static void ndp_mcast_mac(uint8_t *mac, const struct in6_addr *a)
{
	mac[0] = mac[1] = 0x33;
	memcpy(mac + 2, &a->s6_addr[12], 4);
}

/**
 * ndp_icmp_finish() - Fill IPv6 and Ethernet headers, ICMPv6 checksum
 * @c:		Configuration (reads mac_our)
 * @out:	Frame start; the ICMPv6 message is at @out + 54
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
	uint8_t *icmp = out + ETH_HLEN_ + 40;
	uint16_t sum;

	put_be16(icmp + 2, 0);
	sum = csum(icmp, icmp_len,
		   csum_pseudo6(src, dst, IPPROTO_ICMPV6, icmp_len));
	memcpy(icmp + 2, &sum, 2);

	ip6_hdr_fill(out + ETH_HLEN_, src, dst, IPPROTO_ICMPV6, icmp_len,
		     ND_HOP_LIMIT);
	eth_hdr_fill(out, dst_mac, c->mac_our, ETH_P_IPV6);
	return ETH_HLEN_ + 40 + icmp_len;
}

/* A prefix the guest should stop using (ndp_ra_prefix_gone()) */
static struct in6_addr ndp_old_prefix;
static int ndp_old_plen;
static unsigned ndp_old_left;		/* RAs still to carry it */

/**
 * ndp_pio_put() - Write a Prefix Information option
 * @o:		Where, 32 bytes
 * @addr:	An address of the prefix (host bits are cleared here)
 * @plen:	Prefix length, 1-128
 * @life:	Valid and preferred lifetime, seconds
 */
static void ndp_pio_put(uint8_t *o, const struct in6_addr *addr, int plen,
			uint32_t life)
{
	int i;

	o[0] = ND_OPT_PREFIX;
	o[1] = 4;
	o[2] = (uint8_t)plen;
	o[3] = ND_PIO_ONLINK | (plen == 64 ? ND_PIO_AUTO : 0);
	put_be32(o + 4, life);		/* valid */
	put_be32(o + 8, life);		/* preferred */
	put_be32(o + 12, 0);		/* reserved2 */
	memcpy(o + 16, addr, 16);
	/* Bits after the prefix length are reserved: zero them */
	for (i = 0; i < 16; i++) {
		int keep = plen - i * 8;

		if (keep <= 0)
			o[16 + i] = 0;
		else if (keep < 8)
			o[16 + i] &= (uint8_t)(0xff << (8 - keep));
	}
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
	uint8_t *ra = out + ETH_HLEN_ + 40, *o;
	size_t lim, len;
	int plen;

	if (c->no_ra || c->no_ndp || !c->ip6.enabled ||
	    !IN6_IS_ADDR_LINKLOCAL(&c->ip6.our_ll))
		return 0;

	lim = (c->mtu >= IP6_MIN_MTU ? (size_t)c->mtu : IP6_MIN_MTU) + ETH_HLEN_;
	if (lim > cap)
		lim = cap;
	/* Header, SLLA, MTU, prefix: always; DNS options only if they fit */
	if (lim < ETH_HLEN_ + 40 + 16 + 8 + 8 + 32)
		return 0;
	lim -= ETH_HLEN_ + 40;		/* room for the ICMPv6 message */

	/* RFC 4861 section 4.2 */
	ra[0] = ND_RA;
	ra[1] = 0;
	ra[4] = ND_CUR_HOP_LIMIT;
	ra[5] = c->no_dhcpv6 ? 0 : ND_RA_MANAGED | ND_RA_OTHER;
	put_be16(ra + 6, ND_ROUTER_LIFETIME_S);
	put_be32(ra + 8, 0);		/* reachable time: unspecified */
	put_be32(ra + 12, 0);		/* retrans timer: unspecified */
	len = 16;

	/* Source link-layer address, section 4.6.1 */
	o = ra + len;
	o[0] = ND_OPT_SLLA;
	o[1] = 1;
	memcpy(o + 2, c->mac_our, ETH_ALEN_);
	len += 8;

	/* MTU, section 4.6.4; none with -m 0 */
	if (!c->no_mtu && c->mtu >= IP6_MIN_MTU) {
		o = ra + len;
		o[0] = ND_OPT_MTU;
		o[1] = 1;
		put_be16(o + 2, 0);
		put_be32(o + 4, (uint32_t)c->mtu);
		len += 8;
	}

	/* Prefix information, section 4.6.2 */
	plen = c->ip6.prefix_len;
	if (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.addr) && plen >= 1 &&
	    plen <= 128) {
		ndp_pio_put(ra + len, &c->ip6.addr, plen, ND_LIFETIME_INFINITE);
		len += 32;
	}

	/* An old prefix, deprecated: lifetimes 0 (ndp_ra_prefix_gone()) */
	if (ndp_old_left && lim - len >= 32 &&
	    (ndp_old_plen != plen ||
	     !ndp_same_prefix(&ndp_old_prefix, &c->ip6.addr, plen))) {
		ndp_pio_put(ra + len, &ndp_old_prefix, ndp_old_plen, 0);
		len += 32;
		ndp_old_left--;
	}

	/* RDNSS, RFC 8106 section 5.1: length 1 + 2 per address */
	if (!c->no_dhcp_dns) {
		unsigned i, n = 0;

		o = ra + len;
		for (i = 0; i < MIN(c->ip6.dns_count, CONF_MAX_DNS); i++) {
			if (IN6_IS_ADDR_UNSPECIFIED(&c->ip6.dns[i]))
				continue;
			if (lim - len < 8 + (n + 1) * 16)
				break;
			memcpy(o + 8 + n * 16, &c->ip6.dns[i], 16);
			n++;
		}
		if (n) {
			o[0] = ND_OPT_RDNSS;
			o[1] = (uint8_t)(1 + 2 * n);
			put_be16(o + 2, 0);
			put_be32(o + 4, ND_DNS_LIFETIME_S);
			len += 8 + n * 16;
		}
	}

	/* DNSSL, RFC 8106 section 5.2: uncompressed names, zero padded to
	 * 8 bytes, at most 255 units of 8 bytes
	 */
	if (!c->no_dhcp_search && c->search_count && lim - len >= 16) {
		size_t room = MIN(lim - len, 255 * 8) - 8, n;

		room -= room % 8;
		o = ra + len;
		n = dns_name_list_encode((const char (*)[CONF_SEARCH_LEN])
					 c->search,
					 MIN(c->search_count, CONF_MAX_SEARCH),
					 false, o + 8, room);
		if (n) {
			size_t olen = ROUND_UP(8 + n, 8);

			memset(o + 8 + n, 0, olen - 8 - n);
			o[0] = ND_OPT_DNSSL;
			o[1] = (uint8_t)(olen / 8);
			put_be16(o + 2, 0);
			put_be32(o + 4, ND_DNS_LIFETIME_S);
			len += olen;
		}
	}

	svc_stats.ndp_ra++;
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
size_t ndp_ra(const struct conf *c, uint8_t *out, size_t cap)
{
	uint8_t mac[ETH_ALEN_];

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
int64_t ndp_ra_interval(unsigned sent, uint64_t rnd)
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
		size_t olen;

		if (len < 2 || !o[1])
			return false;
		olen = (size_t)o[1] * 8;
		if (olen > len)
			return false;
		if (o[0] == ND_OPT_SLLA && !*slla)
			*slla = o + 2;
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
	uint8_t *na = out + ETH_HLEN_ + 40, mac[ETH_ALEN_];
	const struct in6_addr *dst;
	struct in6_addr target;
	bool dad;

	memcpy(&target, f->l4 + 8, 16);
	dad = IN6_IS_ADDR_UNSPECIFIED(&f->src.a6);

	if (IN6_IS_ADDR_UNSPECIFIED(&target) || IN6_IS_ADDR_LOOPBACK(&target) ||
	    ndp_target_guest(c, &target))
		return 0;
	if (dad && !IN6_ARE_ADDR_EQUAL(&target, &c->ip6.our_ll) &&
	    !IN6_ARE_ADDR_EQUAL(&target, &c->ip6.gw))
		return 0;
	if (cap < ETH_HLEN_ + 40 + 32)
		return 0;

	/* RFC 4861 section 4.4, with a target link-layer address option */
	na[0] = ND_NA;
	na[1] = 0;
	na[4] = ND_NA_ROUTER | ND_NA_OVERRIDE | (dad ? 0 : ND_NA_SOLICITED);
	na[5] = na[6] = na[7] = 0;
	memcpy(na + 8, &target, 16);
	na[24] = ND_OPT_TLLA;
	na[25] = 1;
	memcpy(na + 26, c->mac_our, ETH_ALEN_);

	/* Section 7.2.4: unicast to the solicitor, or ff02::1 for DAD */
	if (dad) {
		dst = &ndp_all_nodes;
		ndp_mcast_mac(mac, dst);
	} else {
		dst = &f->src.a6;
		memcpy(mac, slla ? slla : f->l2 + ETH_ALEN_, ETH_ALEN_);
	}

	svc_stats.ndp_na++;
	return ndp_icmp_finish(c, out, 32, &target, dst, mac);
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
	uint8_t *ns = out + ETH_HLEN_ + 40, mac[ETH_ALEN_];
	struct in6_addr dst = { .s6_addr = { 0xff, 0x02, [11] = 0x01,
					     [12] = 0xff } };

	if (!c->ip6.enabled || c->no_ndp ||
	    !IN6_IS_ADDR_LINKLOCAL(&c->ip6.our_ll) ||
	    IN6_IS_ADDR_UNSPECIFIED(target) || IN6_IS_ADDR_MULTICAST(target) ||
	    cap < ETH_HLEN_ + 40 + 32)
		return 0;
	memcpy(&dst.s6_addr[13], &target->s6_addr[13], 3);
	ndp_mcast_mac(mac, &dst);

	ns[0] = ND_NS;
	ns[1] = 0;
	memset(ns + 4, 0, 4);			/* reserved */
	memcpy(ns + 8, target, 16);
	ns[24] = ND_OPT_SLLA;
	ns[25] = 1;
	memcpy(ns + 26, c->mac_our, ETH_ALEN_);
	return ndp_icmp_finish(c, out, 32, &c->ip6.our_ll, &dst, mac);
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
	const uint8_t *icmp = f->l4;
	struct in6_addr t;

	if (f->af != AF_INET6 || f->proto != IPPROTO_ICMPV6 || !icmp ||
	    f->l4_len < 24 || f->ttl != ND_HOP_LIMIT || icmp[1])
		return false;
	if (icmp[0] == ND_NS) {
		if (!IN6_IS_ADDR_UNSPECIFIED(&f->src.a6))
			return false;
	} else if (icmp[0] != ND_NA || (icmp[4] & ND_NA_SOLICITED)) {
		return false;
	}
	memcpy(&t, icmp + 8, sizeof(t));
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
	bool unspec;
	uint8_t type;

	if (f->af != AF_INET6 || f->proto != IPPROTO_ICMPV6 || !icmp ||
	    f->l4_len < 8)
		return 0;
	type = icmp[0];
	if (type != ND_RS && type != ND_NS)
		return 0;
	if (c->no_ndp || !c->ip6.enabled)
		return 0;

	unspec = IN6_IS_ADDR_UNSPECIFIED(&f->src.a6);

	if (type == ND_RS) {
		uint8_t mac[ETH_ALEN_];

		/* RFC 4861 6.1.1: 8 bytes or more, options from byte 8 */
		if (f->ttl != ND_HOP_LIMIT || icmp[1] ||
		    !ndp_opts_valid(icmp + 8, f->l4_len - 8, &slla) ||
		    (unspec && slla)) {
			svc_stats.ndp_bad++;
			return 0;
		}
		svc_stats.ndp_rs++;

		/* Section 6.2.6: unicast if the solicitor has an address */
		if (unspec) {
			ndp_mcast_mac(mac, &ndp_all_nodes);
			return ndp_ra_build(c, &ndp_all_nodes, mac, out, cap);
		}
		memcpy(mac, slla ? slla : f->l2 + ETH_ALEN_, ETH_ALEN_);
		return ndp_ra_build(c, &f->src.a6, mac, out, cap);
	}

	/* RFC 4861 7.1.1: 24 bytes or more, target not multicast, from ::
	 * only to a solicited-node address (ff02::1:ff00:0/104), no SLLA
	 */
	if (f->ttl != ND_HOP_LIMIT || icmp[1] || f->l4_len < 24 ||
	    icmp[8] == 0xff ||
	    !ndp_opts_valid(icmp + 24, f->l4_len - 24, &slla) ||
	    (unspec && slla)) {
		svc_stats.ndp_bad++;
		return 0;
	}
	if (unspec) {
		static const uint8_t sn[13] = {
			0xff, 0x02, [11] = 0x01, [12] = 0xff
		};

		if (memcmp(&f->dst.a6, sn, sizeof(sn))) {
			svc_stats.ndp_bad++;
			return 0;
		}
	}
	svc_stats.ndp_ns++;

	return ndp_na(c, f, slla, out, cap);
}
