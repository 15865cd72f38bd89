/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test/unit/fake_parse.h - Addresses from text and fields from bytes
 *
 * Expected values in the tests are written as text ("203.0.113.15") and
 * compared with what our code stores; the conversions here use libc's
 * inet_pton() and plain byte arithmetic, never the code under test.
 */
#ifndef TEST_UNIT_FAKE_PARSE_H
#define TEST_UNIT_FAKE_PARSE_H

#include <arpa/inet.h>
#include <stdint.h>

#include "../../lib/inany.h"
#include "../../lib/util.h"

struct in_addr a4(const char *s);
struct in6_addr a6(const char *s);
union inany addr(const char *s);
void addr_is(const uint8_t *p, const char *s);
uint32_t be32(const uint8_t *p);

/* An IPv4 address equals the one in text form */
#define ck_assert_a4(got, want)	ck_assert_uint_eq((got).s_addr, a4(want).s_addr)

/* An IPv6 address equals the one in text form; a failure prints both */
#define ck_assert_a6(got, want)						\
	do {								\
		struct in6_addr w_ = a6(want);				\
		char g_[INET6_ADDRSTRLEN];				\
		inet_ntop(AF_INET6, &(got), g_, sizeof(g_));		\
		ck_assert_msg(IN6_ARE_ADDR_EQUAL(&(got), &w_),		\
			      "got %s, want %s", g_, want);		\
	} while (0)

#endif /* TEST_UNIT_FAKE_PARSE_H */
