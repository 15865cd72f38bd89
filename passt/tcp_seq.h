/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_seq.h - Sequence number arithmetic modulo 2^32 (RFC 9293 3.4)
 *
 * Sequence numbers compare by the sign of their 32-bit difference, so the
 * comparisons stay right across wrap-around as long as the two numbers are
 * less than 2^31 apart (RFC 1982 serial number arithmetic).
 */
#ifndef PASST_TCP_SEQ_H
#define PASST_TCP_SEQ_H

#include <stdbool.h>
#include <stdint.h>

/**
 * seq_diff() - Signed distance from @b to @a
 * @a:		Sequence number
 * @b:		Sequence number
 *
 * Return: a - b as a signed 32-bit value
 */
static inline int32_t seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

static inline bool seq_lt(uint32_t a, uint32_t b)
{
	return seq_diff(a, b) < 0;
}

static inline bool seq_le(uint32_t a, uint32_t b)
{
	return seq_diff(a, b) <= 0;
}

static inline bool seq_gt(uint32_t a, uint32_t b)
{
	return seq_diff(a, b) > 0;
}

static inline bool seq_ge(uint32_t a, uint32_t b)
{
	return seq_diff(a, b) >= 0;
}

/**
 * seq_in() - Is @s in the half-open interval [@lo, @hi)?
 * @s:		Sequence number to test
 * @lo:		Start, included
 * @hi:		End, excluded
 *
 * Return: true if @lo <= @s < @hi modulo 2^32
 */
static inline bool seq_in(uint32_t s, uint32_t lo, uint32_t hi)
{
	return (uint32_t)(s - lo) < (uint32_t)(hi - lo);
}

#endif /* PASST_TCP_SEQ_H */
