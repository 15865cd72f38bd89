// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/csum_avx2.c - csum_unfolded() with AVX2, 64 bytes a step
 *
 * Built into every x86-64 binary with the target("avx2") attribute, so the
 * rest of the program needs no -mavx2; csum_unfolded() calls it only if
 * CPUID reports AVX2 (tap/csum.c).  Each 32-byte load holds eight 32-bit
 * words; they are widened to 64-bit lanes (unpack with zero) and added
 * there, so no carry is ever lost (RFC 1071 section 2(C), deferred
 * carries), and the lanes are added up at the end.  The 64-bit total is
 * the same integer the scalar loop reaches (the same words, added in
 * another order), and csum_tail() finishes both the same way.
 */
#include "csum_impl.h"

#ifdef CSUM_HAVE_AVX2
#include <immintrin.h>

/**
 * csum_unfolded_avx2() - csum_unfolded() with 256-bit vectors
 * @buf:	Data, any alignment
 * @len:	Length of @buf, bytes
 * @init:	Sum to start from
 *
 * Context: only on a CPU with AVX2 (csum_select())
 * Return: 32-bit partial sum, equal to csum_unfolded_scalar()'s
 */
__attribute__((target("avx2")))
uint32_t csum_unfolded_avx2(const void *buf, size_t len, uint32_t init)
{
	const uint8_t *p = buf;
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
	const __m256i zero = _mm256_setzero_si256();
	uint64_t lanes[4], s0 = init;
	int i;

	while (len >= 64) {
		__m256i v = _mm256_loadu_si256((const __m256i *)p);
		__m256i w = _mm256_loadu_si256((const __m256i *)(p + 32));

		a0 = _mm256_add_epi64(a0, _mm256_unpacklo_epi32(v, zero));
		a1 = _mm256_add_epi64(a1, _mm256_unpackhi_epi32(v, zero));
		a2 = _mm256_add_epi64(a2, _mm256_unpacklo_epi32(w, zero));
		a3 = _mm256_add_epi64(a3, _mm256_unpackhi_epi32(w, zero));
		p += 64;
		len -= 64;
	}
	a0 = _mm256_add_epi64(_mm256_add_epi64(a0, a1),
			      _mm256_add_epi64(a2, a3));
	_mm256_storeu_si256((__m256i *)lanes, a0);
	for (i = 0; i < 4; i++)
		s0 += lanes[i];
	return csum_tail(p, len, s0);
}
#endif /* CSUM_HAVE_AVX2 */
