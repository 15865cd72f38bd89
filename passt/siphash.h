/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/siphash.h - SipHash-2-4 (Aumasson, Bernstein 2012) for hash tables and ISNs
 */
#ifndef PASST_SIPHASH_H
#define PASST_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t siphash24(const uint8_t key[16], const void *data, size_t len);

#endif /* PASST_SIPHASH_H */
