/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_mig_flows.h - Hand the guest's TCP connections to another passt
 */
#ifndef PASST_TCP_MIG_FLOWS_H
#define PASST_TCP_MIG_FLOWS_H

#include <stddef.h>
#include <stdint.h>

struct ctx;

int tcp_mig_save(struct ctx *ctx, uint8_t *buf, size_t room,
		 uint32_t *nflows, size_t *len);
int tcp_mig_load(struct ctx *ctx, const uint8_t *buf, size_t len, uint32_t n);
unsigned tcp_mig_handshakes_drop(void);
unsigned tcp_mig_prepare(void);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
int tcp_mig_check(const uint8_t *buf, size_t len, uint32_t n);
#endif

#endif /* PASST_TCP_MIG_FLOWS_H */
