// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/siphash.c - SipHash-2-4
 *
 * Keyed hash from "SipHash: a fast short-input PRF" (Aumasson, Bernstein,
 * 2012): two compression rounds per 8-byte word, four finalisation rounds.
 * Used for the flow hash table (so a guest can't choose colliding tuples)
 * and for initial sequence numbers (RFC 6528 function F).
 */
#include <string.h>

#include "siphash.h"

#define ROTL(x, b)	(uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND							\
	do {								\
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0;			\
		v0 = ROTL(v0, 32);					\
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;			\
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;			\
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2;			\
		v2 = ROTL(v2, 32);					\
	} while (0)

/**
 * le64() - Load 8 bytes as a little-endian 64-bit word
 * @p:		Bytes
 *
 * Return: value
 */
static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/**
 * siphash24() - SipHash-2-4 of a buffer
 * @key:	128-bit key
 * @data:	Input
 * @len:	Input length, bytes
 *
 * Return: 64-bit hash
 */
uint64_t siphash24(const uint8_t key[16], const void *data, size_t len)
{
	uint64_t k0 = le64(key), k1 = le64(key + 8);
	uint64_t v0 = 0x736f6d6570736575ULL ^ k0;
	uint64_t v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ k0;
	uint64_t v3 = 0x7465646279746573ULL ^ k1;
	const uint8_t *p = data;
	uint64_t m, b = (uint64_t)len << 56;
	uint8_t tail[8] = { 0 };

	for (; len >= 8; len -= 8, p += 8) {
		m = le64(p);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	memcpy(tail, p, len);
	b |= le64(tail);

	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}
