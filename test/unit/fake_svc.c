// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/fake_svc.c - Helpers shared by the tap/ service tests */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../tap/services.h"
#include "fake_conf.h"
#include "fake_svc.h"

/**
 * svc_setup() - Fresh configuration, service counters and output buffer
 * @c:		Configuration, set to the values of fake_conf.h
 * @out:	Output buffer, filled with 0xaa (bytes a handler didn't
 *		write stand out), or NULL
 * @len:	Size of @out, 0 if NULL
 */
void svc_setup(struct conf *c, uint8_t *out, size_t len)
{
	fake_conf_init(c);
	memset(&svc_stats, 0, sizeof(svc_stats));
	if (len)
		memset(out, 0xaa, len);
}

/**
 * svc_run() - Parse a frame and pass it to a service handler
 * @fn:		Service handler (arp_handle(), dhcp_handle(), ...)
 * @c:		Configuration
 * @frame:	Frame, which frame_parse() must accept
 * @len:	Its length
 * @out:	Reply buffer
 * @cap:	Its size
 *
 * Return: reply length; a reply also gets its checksums checked
 */
size_t svc_run(svc_handler_t fn, const struct conf *c, const uint8_t *frame,
	       size_t len, uint8_t *out, size_t cap)
{
	struct frame f;
	size_t n;

	ck_assert_int_eq(frame_parse(frame, len, &f), 0);
	n = fn(c, &f, out, cap);
	if (n)
		check_reply_csums(out, n);
	return n;
}

/**
 * ref_csum() - RFC 1071 section 1 checksum, the textbook way
 * @p:		Data
 * @len:	Length, bytes (an odd byte is the high byte of a last word)
 * @sum:	Sum to start from (e.g. a pseudo-header sum)
 *
 * Return: complemented folded sum, host order (0 for a buffer that
 *	   already carries a correct checksum)
 */
uint16_t ref_csum(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * ref_ip4_csum_fix() - Recompute an IPv4 header checksum after an edit
 * @ip:		IPv4 header (IHL taken from it)
 */
void ref_ip4_csum_fix(uint8_t *ip)
{
	uint16_t c;

	ip[10] = ip[11] = 0;
	c = ref_csum(ip, (size_t)(ip[0] & 0x0f) * 4, 0);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
}

/**
 * ref_pseudo() - Pseudo-header sum (RFC 768 / RFC 8200 section 8.1)
 * @src:	Source address
 * @dst:	Destination address
 * @alen:	Address length, 4 or 16
 * @proto:	Upper-layer protocol
 * @l4_len:	Upper-layer length
 *
 * Return: 32-bit sum of the pseudo-header words
 */
static uint32_t ref_pseudo(const uint8_t *src, const uint8_t *dst,
			   size_t alen, uint8_t proto, size_t l4_len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i < alen; i += 2) {
		sum += (uint32_t)(src[i] << 8 | src[i + 1]);
		sum += (uint32_t)(dst[i] << 8 | dst[i + 1]);
	}
	return sum + proto + (uint32_t)(l4_len >> 16) +
	       (uint32_t)(l4_len & 0xffff);
}

/**
 * check_reply_csums() - Assert that every checksum in a reply is right
 * @frame:	Reply frame from a service handler
 * @len:	Its length
 *
 * IPv4: header checksum and UDP checksum; IPv6: UDP or ICMPv6 checksum.
 * Lengths in the headers must match @len.  ARP frames have no checksum.
 */
void check_reply_csums(const uint8_t *frame, size_t len)
{
	const uint8_t *ip = frame + 14, *l4;
	uint16_t type;
	size_t l4_len;

	ck_assert_uint_ge(len, 14);
	type = (uint16_t)(frame[12] << 8 | frame[13]);
	if (type == 0x0806)
		return;

	if (type == 0x0800) {
		size_t hlen = (size_t)(ip[0] & 0x0f) * 4;

		ck_assert_uint_eq(ip[0] >> 4, 4);
		ck_assert_uint_eq((size_t)(ip[2] << 8 | ip[3]), len - 14);
		ck_assert_uint_eq(ref_csum(ip, hlen, 0), 0);
		l4 = ip + hlen;
		l4_len = len - 14 - hlen;
		ck_assert_uint_eq(ip[9], 17);
		ck_assert_uint_eq(ref_csum(l4, l4_len,
					   ref_pseudo(ip + 12, ip + 16, 4, 17,
						      l4_len)), 0);
		return;
	}

	ck_assert_uint_eq(type, 0x86dd);
	ck_assert_uint_eq(ip[0] >> 4, 6);
	l4 = ip + 40;
	l4_len = len - 54;
	ck_assert_uint_eq((size_t)(ip[4] << 8 | ip[5]), l4_len);
	ck_assert(ip[6] == 17 || ip[6] == 58);
	ck_assert_uint_eq(ref_csum(l4, l4_len,
				   ref_pseudo(ip + 8, ip + 24, 16, ip[6],
					      l4_len)), 0);
}

/**
 * svc_call_checked() - Parse @len bytes of @b and run @fn on them
 * @fn:		Service handler
 * @c:		Configuration
 * @b:		Frame, in a heap buffer of exactly @len bytes
 * @len:	Frame length
 */
static void svc_call_checked(svc_handler_t fn, const struct conf *c,
			     const uint8_t *b, size_t len)
{
	static const size_t caps[] = { 0, 1, 13, 41, 42, 60, 85, 86, 117,
				       118, 200, 341, 342, 400, 600, 1514 };
	struct frame f;
	size_t i;

	if (frame_parse(b, len, &f))
		return;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		uint8_t *out = malloc(caps[i] ? caps[i] : 1);
		size_t r;

		ck_assert_ptr_nonnull(out);
		r = fn(c, &f, out, caps[i]);
		ck_assert_uint_le(r, caps[i]);
		if (r)
			check_reply_csums(out, r);
		free(out);
	}
}

/**
 * svc_robustness() - Feed damaged copies of a frame to a service handler
 * @fn:		Service handler (arp_handle(), dhcp_handle(), ...)
 * @c:		Configuration
 * @frame:	A valid frame for @fn
 * @len:	Its length
 * @mutations:	Number of randomly changed copies to try
 *
 * Every prefix of @frame, and @mutations copies with 1 to 4 bytes changed
 * (IPv4 header checksum fixed up so the change gets past frame_parse()),
 * each in a heap buffer of exactly its size, go through frame_parse() and
 * then @fn with output buffers of many sizes, also exact heap buffers.
 * Under ASan any read or write out of bounds fails the test; otherwise
 * replies must fit the buffer and carry correct checksums.
 */
void svc_robustness(svc_handler_t fn, const struct conf *c,
		    const uint8_t *frame, size_t len, unsigned mutations)
{
	unsigned seed = 12345, n;
	size_t l;

	for (l = 0; l <= len; l++) {
		uint8_t *b = malloc(l ? l : 1);

		ck_assert_ptr_nonnull(b);
		memcpy(b, frame, l);
		svc_call_checked(fn, c, b, l);
		free(b);
	}

	for (n = 0; n < mutations; n++) {
		uint8_t *b = malloc(len);
		unsigned k;

		ck_assert_ptr_nonnull(b);
		memcpy(b, frame, len);
		for (k = 0; k <= n % 4; k++) {
			size_t at;

			seed = seed * 1103515245 + 12345;
			/* Half of the changes hit the first 64 bytes */
			at = (seed >> 9) % (seed & 1 ? MIN(len, 64) : len);
			b[at] = (uint8_t)(seed >> 17);
		}
		if (len >= 34 && b[12] == 0x08 && b[13] == 0x00 &&
		    (b[14] & 0x0f) >= 5 && 14 + (size_t)(b[14] & 0x0f) * 4 <= len)
			ref_ip4_csum_fix(b + 14);
		svc_call_checked(fn, c, b, len);
		free(b);
	}
}
