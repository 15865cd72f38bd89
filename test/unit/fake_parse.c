// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/fake_parse.c - Addresses from text and fields from bytes */
#include <check.h>
#include <string.h>

#include "../../lib/inany.h"
#include "fake_parse.h"

/**
 * a4() - Parse an IPv4 address, failing the test if @s isn't one
 * @s:		Dotted quad
 *
 * Return: address, network order
 */
struct in_addr a4(const char *s)
{
	struct in_addr a;

	ck_assert_int_eq(inet_pton(AF_INET, s, &a), 1);
	return a;
}

/**
 * a6() - Parse an IPv6 address, failing the test if @s isn't one
 * @s:		Address text
 *
 * Return: address
 */
struct in6_addr a6(const char *s)
{
	struct in6_addr a;

	ck_assert_int_eq(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

/**
 * addr() - Parse an address into a union inany
 * @s:		IPv4 (stored IPv4-mapped, RFC 4291 2.5.5.2) or IPv6 text
 *
 * Return: address; the test fails if @s is neither
 */
union inany addr(const char *s)
{
	struct in_addr v4;
	union inany r;

	memset(&r, 0, sizeof(r));
	if (inet_pton(AF_INET, s, &v4) == 1) {
		r.v4.one[0] = r.v4.one[1] = 0xff;
		r.v4.a4 = v4;
	} else {
		r.a6 = a6(s);
	}
	return r;
}

/**
 * addr_is() - Assert that 16 bytes are an IPv6 address given in text form
 * @p:		Bytes
 * @s:		Address
 */
void addr_is(const uint8_t *p, const char *s)
{
	struct in6_addr a = a6(s);

	ck_assert_mem_eq(p, &a, 16);
}

/**
 * be32() - Read a 32-bit big-endian value
 * @p:		Bytes
 *
 * Return: value
 */
uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}
