/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/util.h - Small helpers shared by every folder
 *
 * lib/ is the bottom layer of the tree: it includes nothing of ours, and
 * every other folder may include it.  This header holds the macros and
 * inline helpers that all of them use (array sizes, bits, byte order,
 * time).  Addresses are in inany.h, Ethernet in eth.h.
 */
#ifndef LIB_UTIL_H
#define LIB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

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
