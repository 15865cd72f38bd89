/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/csum.h - Internet checksum (RFC 1071) and pseudo-headers (RFC 768, 9293, 8200)
 */
#ifndef TAP_CSUM_H
#define TAP_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "../lib/inany.h"
#include "../lib/util.h"

uint32_t csum_unfolded(const void *buf, size_t len, uint32_t init);
uint16_t csum_fold(uint32_t sum);
uint16_t csum(const void *buf, size_t len, uint32_t init);
uint32_t csum_iov(const struct iovec *iov, size_t n, uint32_t init);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
uint32_t csum_pseudo4(struct in_addr src, struct in_addr dst, uint8_t proto,
		      size_t l4_len);
#endif
uint32_t csum_pseudo6(const struct in6_addr *src, const struct in6_addr *dst,
		      uint8_t proto, size_t l4_len);
uint32_t csum_pseudo(const union inany *src, const union inany *dst,
		     uint8_t proto, size_t l4_len);

#endif /* TAP_CSUM_H */
