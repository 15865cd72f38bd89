/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test/unit/rfc1071.h - The Internet checksum computed independently of
 * tap/csum.c, for tests that check what the code under test wrote
 */
#ifndef TEST_UNIT_RFC1071_H
#define TEST_UNIT_RFC1071_H

#include <stddef.h>
#include <stdint.h>

/**
 * sum16() - RFC 1071 one's complement sum of 16-bit big-endian words
 * @p:		Data
 * @len:	Length, bytes (an odd byte is padded with zero)
 * @s:		Initial sum
 *
 * Return: folded 16-bit sum (not complemented): 0xffff over a message
 *	   whose checksum is correct
 */
static inline uint32_t sum16(const uint8_t *p, size_t len, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)(p[len - 1] << 8);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

#endif /* TEST_UNIT_RFC1071_H */
