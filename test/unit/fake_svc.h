/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test/unit/fake_svc.h - Helpers shared by the tap/ service tests
 *
 * The per-test set-up (fake_conf.h's configuration, zeroed counters), a
 * call of a service handler on one parsed frame, an RFC 1071 checksum
 * written independently of tap/csum.c, a check of the checksums in reply
 * frames, and the truncation/mutation harness that feeds damaged frames
 * through frame_parse() into a service handler.
 */
#ifndef TEST_UNIT_FAKE_SVC_H
#define TEST_UNIT_FAKE_SVC_H

#include <stddef.h>
#include <stdint.h>

#include "../../conf/conf.h"
#include "../../tap/frame.h"

typedef size_t (*svc_handler_t)(const struct conf *c, const struct frame *f,
				uint8_t *out, size_t cap);

void svc_setup(struct conf *c, uint8_t *out, size_t len);
size_t svc_run(svc_handler_t fn, const struct conf *c, const uint8_t *frame,
	       size_t len, uint8_t *out, size_t cap);
uint16_t ref_csum(const uint8_t *p, size_t len, uint32_t sum);
void ref_ip4_csum_fix(uint8_t *ip);
void check_reply_csums(const uint8_t *frame, size_t len);
void svc_robustness(svc_handler_t fn, const struct conf *c,
		    const uint8_t *frame, size_t len, unsigned mutations);

#endif /* TEST_UNIT_FAKE_SVC_H */
