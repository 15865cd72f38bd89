/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/csum_impl.h - Variants behind csum_unfolded(), for tap/csum*.c and
 * their unit test only
 */
#ifndef TAP_CSUM_IMPL_H
#define TAP_CSUM_IMPL_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define CSUM_HAVE_AVX2	1
#endif

#define CSUM_VEC_MIN	256	/* bytes: below, the scalar loop is as fast */

uint32_t csum_tail(const uint8_t *p, size_t len, uint64_t s0);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
uint32_t csum_unfolded_scalar(const void *buf, size_t len, uint32_t init);
#endif
#ifdef CSUM_HAVE_AVX2
uint32_t csum_unfolded_avx2(const void *buf, size_t len, uint32_t init);
#endif

#endif /* TAP_CSUM_IMPL_H */
