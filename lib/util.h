/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/util.h - Small helpers shared by every folder
 *
 * lib/ is the bottom layer of the tree: it includes nothing of ours, and
 * every other folder may include it.  This header holds the macros and
 * inline helpers that all of them use (array sizes, bits, byte order,
 * time, the largest Ethernet frame, the IPv4-in-IPv6 address union).
 */
#ifndef LIB_UTIL_H
#define LIB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>	/* ETH_ALEN, ETH_HLEN, ETH_ZLEN, ETH_P_* */

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BIT(n)			(1UL << (n))
#define MIN(a, b)		((a) < (b) ? (a) : (b))
#define MAX(a, b)		((a) > (b) ? (a) : (b))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define ROUND_UP(n, a)		(DIV_ROUND_UP((n), (a)) * (a))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define UNUSED			__attribute__((unused))
#define PACKED			__attribute__((packed))
/* A const pointer passed where an interface takes a non-const one it only
 * reads through (iov_base, msg_iov, an argv): through uintptr_t, so that
 * -Wcast-qual sees the one place where const is dropped on purpose
 */
#define UNCONST(type, p)	((type)(uintptr_t)(p))

#define STRINGIFY_(x)		#x
#define STRINGIFY(x)		STRINGIFY_(x)


/* Largest L2 frame we ever handle: 65535 bytes of IP plus the Ethernet
 * header.  The tap MTU is at most CONF_MTU_MAX, 65520 (conf/conf.h, checked
 * by conf_uint() for -m in conf/options.c).
 */
#define FRAME_MAX		(65535 + ETH_HLEN)

/**
 * union inany - IPv6 address, or IPv4 address stored IPv4-mapped (::ffff:a.b.c.d)
 * @a6:		IPv6 view
 * @v4:		IPv4-mapped view: 10 zero bytes, 0xffff, then the IPv4 address
 *
 * One type for both families keeps flow keys, hashing and comparisons free of
 * per-family branches.  All addresses are in network byte order.
 */
union inany {
	struct in6_addr a6;
	struct {
		uint8_t zero[10];
		uint8_t one[2];
		struct in_addr a4;
	} v4;
};

/**
 * inany_from_v4() - Store an IPv4 address as IPv4-mapped
 * @dst:	Result
 * @a4:		IPv4 address, network order
 */
static inline void inany_from_v4(union inany *dst, struct in_addr a4)
{
	memset(dst, 0, 10);
	dst->v4.one[0] = dst->v4.one[1] = 0xff;
	dst->v4.a4 = a4;
}

/**
 * inany_v4() - IPv4 address if @a is IPv4-mapped
 * @a:		Address
 *
 * Return: pointer to the IPv4 part, or NULL if @a is a real IPv6 address
 */
static inline const struct in_addr *inany_v4(const union inany *a)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(a, pfx, sizeof(pfx)) ? NULL : &a->v4.a4;
}

/**
 * inany_equals() - Compare two addresses
 * @a:		First address
 * @b:		Second address
 *
 * Return: true if equal
 */
static inline bool inany_equals(const union inany *a, const union inany *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/**
 * inany_af() - Address family of an address
 * @a:		Address
 *
 * Return: AF_INET for IPv4-mapped addresses, AF_INET6 otherwise
 */
static inline int inany_af(const union inany *a)
{
	return inany_v4(a) ? AF_INET : AF_INET6;
}

/**
 * inany_is_loopback() - Is the address 127.0.0.0/8 or ::1?
 * @a:		Address
 *
 * Return: true for loopback addresses of either family
 */
static inline bool inany_is_loopback(const union inany *a)
{
	const struct in_addr *a4 = inany_v4(a);

	if (a4)
		return (ntohl(a4->s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&a->a6);
}

/**
 * inany_is_unspecified() - Is the address 0.0.0.0 (mapped) or ::?
 * @a:		Address
 *
 * Return: true if unspecified
 */
static inline bool inany_is_unspecified(const union inany *a)
{
	const struct in_addr *a4 = inany_v4(a);

	if (a4)
		return a4->s_addr == INADDR_ANY;
	return IN6_IS_ADDR_UNSPECIFIED(&a->a6);
}

/**
 * inany_ntop() - Format an address (IPv4-mapped as dotted quad)
 * @a:		Address
 * @buf:	Output, at least INET6_ADDRSTRLEN bytes
 *
 * Return: @buf
 */
static inline const char *inany_ntop(const union inany *a, char *buf)
{
	const struct in_addr *a4 = inany_v4(a);

	if (a4)
		return inet_ntop(AF_INET, a4, buf, INET6_ADDRSTRLEN);
	return inet_ntop(AF_INET6, &a->a6, buf, INET6_ADDRSTRLEN);
}

/**
 * inany_from_sockaddr() - Address and port from a sockaddr
 * @a:		Result address (IPv4-mapped for AF_INET, and for IPv4-mapped
 *		peers of dual-stack sockets, which are the same bytes)
 * @port:	Result port, host order
 * @sa:		sockaddr_in or sockaddr_in6
 */
static inline void inany_from_sockaddr(union inany *a, uint16_t *port,
				       const struct sockaddr_storage *sa)
{
	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		inany_from_v4(a, s4->sin_addr);
		*port = ntohs(s4->sin_port);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		a->a6 = s6->sin6_addr;
		*port = ntohs(s6->sin6_port);
	}
}

/**
 * now_ms() - CLOCK_MONOTONIC time
 *
 * #syscalls clock_gettime
 * Return: milliseconds since an arbitrary start
 */
static inline int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * now_us() - CLOCK_MONOTONIC in microseconds
 *
 * Return: microseconds since an arbitrary point (vDSO: no system call)
 */
static inline int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Unaligned big-endian loads and stores for wire formats */
static inline uint16_t get_be16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t get_be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static inline void put_be16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)(v & 0xff);
}

static inline void put_be32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)((v >> 16) & 0xff);
	b[2] = (uint8_t)((v >> 8) & 0xff);
	b[3] = (uint8_t)(v & 0xff);
}

#endif /* LIB_UTIL_H */
