// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/csum.c - Internet checksum (RFC 1071) and pseudo-headers
 *
 * The one's complement sum is accumulated in 64 bits, 32 bits at a time, and
 * folded at the end (RFC 1071 section 2, "deferred carries").  The sum is
 * byte-order independent (RFC 1071 section 2(B)): we add native 16-bit words
 * and the folded result is in network byte order when stored with memcpy().
 */
#include <string.h>

#include "../lib/inany.h"
#include "../lib/visible.h"
#include "csum.h"
#include "csum_impl.h"

/**
 * csum_tail() - Add the last bytes of a buffer to a sum, fold it to 32 bits
 * @p:		Bytes left
 * @len:	How many, bytes (any)
 * @s0:		Sum so far, 64 bits, deferred carries
 *
 * Shared by every variant of csum_unfolded(), so that they all add the same
 * 32-bit words to the same 64-bit total and return the same value.
 *
 * Return: 32-bit partial sum
 */
uint32_t csum_tail(const uint8_t *p, size_t len, uint64_t s0)
{
	uint32_t w;

	while (len >= 4) {
		memcpy(&w, p, 4);
		s0 += w;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t h;

		memcpy(&h, p, 2);
		s0 += h;
		p += 2;
		len -= 2;
	}
	if (len) {
		uint16_t h = 0;

		memcpy(&h, p, 1);	/* low address byte, zero padded */
		s0 += h;
	}

	/* Fold 64 -> 32 bits with end-around carry */
	s0 = (s0 & 0xffffffff) + (s0 >> 32);
	s0 = (s0 & 0xffffffff) + (s0 >> 32);
	return (uint32_t)s0;
}

/**
 * csum_unfolded_scalar() - csum_unfolded(), portable C, 16 bytes a step
 * @buf:	Data
 * @len:	Length of @buf, bytes
 * @init:	Sum to start from
 *
 * Return: 32-bit partial sum
 */
__attribute__((optimize("O3")))
VISIBLE_IF_UNIT
uint32_t csum_unfolded_scalar(const void *buf, size_t len, uint32_t init)
{
	const uint8_t *p = buf;
	uint64_t s0 = init, s1 = 0, s2 = 0, s3 = 0;
	uint32_t w[4];

	while (len >= 16) {
		memcpy(w, p, 16);
		s0 += w[0];
		s1 += w[1];
		s2 += w[2];
		s3 += w[3];
		p += 16;
		len -= 16;
	}
	return csum_tail(p, len, s0 + s1 + s2 + s3);
}

/* Chosen at the first call: csum_unfolded_avx2() where the CPU has AVX2 */
static uint32_t (*csum_impl)(const void *, size_t, uint32_t);

/**
 * csum_select() - The csum_unfolded() variant for this CPU
 *
 * Return: csum_unfolded_avx2 if built in and the CPU reports AVX2
 *	   (CPUID, through __builtin_cpu_supports()), else the scalar one
 */
static uint32_t (*csum_select(void))(const void *, size_t, uint32_t)
{
#ifdef CSUM_HAVE_AVX2
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		return csum_unfolded_avx2;
#endif
	return csum_unfolded_scalar;
}

/**
 * csum_unfolded() - One's complement sum of a buffer, not folded
 * @buf:	Data
 * @len:	Length of @buf, bytes (odd lengths are padded with a zero byte,
 *		RFC 1071 section 4.1)
 * @init:	Sum to start from (e.g. a pseudo-header sum)
 *
 * Buffers of CSUM_VEC_MIN bytes or more go to the variant chosen for this
 * CPU at the first call (run-time dispatch: one binary); all variants
 * return the same value.
 *
 * Return: 32-bit partial sum, to be passed to csum_fold() or to another call
 */
uint32_t csum_unfolded(const void *buf, size_t len, uint32_t init)
{
	if (len < CSUM_VEC_MIN)
		return csum_unfolded_scalar(buf, len, init);
	if (!csum_impl)
		csum_impl = csum_select();
	return csum_impl(buf, len, init);
}

/**
 * csum_fold() - Fold a partial sum to 16 bits and complement it
 * @sum:	Partial sum from csum_unfolded() or the csum_pseudo*() helpers
 *
 * Return: checksum as stored in a header (memcpy it, it is in the byte order
 *	   of the summed data, i.e. network order)
 */
uint16_t csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * csum() - Checksum of a buffer
 * @buf:	Data
 * @len:	Length, bytes
 * @init:	Partial sum to start from
 *
 * Return: folded, complemented checksum (store with memcpy())
 */
uint16_t csum(const void *buf, size_t len, uint32_t init)
{
	return csum_fold(csum_unfolded(buf, len, init));
}

/**
 * csum_iov() - One's complement sum of data scattered over iovecs
 * @iov:	Pieces, in order; any lengths, odd ones included
 * @n:		Entries in @iov
 * @init:	Partial sum to start from; the first piece starts at an even
 *		offset of the summed data
 *
 * A piece that starts at an odd offset of the concatenated data has its
 * partial sum byte-swapped before it is added (RFC 1071 section 2(B): the
 * sum of byte-swapped words is the byte-swapped sum).
 *
 * Return: 32-bit partial sum, as csum_unfolded() would give for the data
 *	   copied into one buffer
 */
uint32_t csum_iov(const struct iovec *iov, size_t n, uint32_t init)
{
	uint64_t acc = init;
	size_t i, pos = 0;

	for (i = 0; i < n; i++) {
		uint32_t s = csum_unfolded(iov[i].iov_base, iov[i].iov_len, 0);

		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		if (pos & 1)
			s = ((s & 0xff) << 8) | (s >> 8);
		acc += s;
		pos += iov[i].iov_len;
	}
	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffffffff) + (acc >> 32);
	return (uint32_t)acc;
}

/**
 * csum_pseudo4() - Partial sum of the IPv4 pseudo-header (RFC 9293 3.1)
 * @src:	Source address, network order
 * @dst:	Destination address, network order
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @l4_len:	L4 header plus payload, bytes
 *
 * Return: partial sum, to be passed as @init to csum_unfolded()
 */
VISIBLE_IF_UNIT
uint32_t csum_pseudo4(struct in_addr src, struct in_addr dst, uint8_t proto,
		      size_t l4_len)
{
	uint8_t ph[12];

	memcpy(ph, &src, 4);
	memcpy(ph + 4, &dst, 4);
	ph[8] = 0;
	ph[9] = proto;
	put_be16(ph + 10, (uint16_t)l4_len);
	return csum_unfolded(ph, sizeof(ph), 0);
}

/**
 * csum_pseudo6() - Partial sum of the IPv6 pseudo-header (RFC 8200 8.1)
 * @src:	Source address
 * @dst:	Destination address
 * @proto:	Upper-layer protocol (IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMPV6)
 * @l4_len:	Upper-layer packet length, bytes
 *
 * Return: partial sum
 */
uint32_t csum_pseudo6(const struct in6_addr *src, const struct in6_addr *dst,
		      uint8_t proto, size_t l4_len)
{
	uint8_t ph[40] = { 0 };

	memcpy(ph, src, 16);
	memcpy(ph + 16, dst, 16);
	put_be32(ph + 32, (uint32_t)l4_len);
	ph[39] = proto;
	return csum_unfolded(ph, sizeof(ph), 0);
}

/**
 * csum_pseudo() - Pseudo-header partial sum for either family
 * @src:	Source address (IPv4-mapped for IPv4)
 * @dst:	Destination address, same family as @src
 * @proto:	Upper-layer protocol
 * @l4_len:	Upper-layer length, bytes
 *
 * Return: partial sum
 */
uint32_t csum_pseudo(const union inany *src, const union inany *dst,
		     uint8_t proto, size_t l4_len)
{
	const struct in_addr *s4 = inany_v4(src);

	if (s4)
		return csum_pseudo4(*s4, *inany_v4(dst), proto, l4_len);
	return csum_pseudo6(&src->a6, &dst->a6, proto, l4_len);
}
