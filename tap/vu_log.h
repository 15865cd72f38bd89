/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/vu_log.h - Dirty-page log of guest memory writes (vhost-user migration)
 *
 * While QEMU migrates a guest, it copies guest RAM while the guest (and
 * we) keep writing to it.  It learns which pages we wrote from a bitmap
 * it shares with us (VHOST_USER_SET_LOG_BASE): one bit per 4 KiB page of
 * guest physical address, bit (page % 8) of byte (page / 8), set with an
 * atomic OR (vhost-user.rst, "Migration").  None of these functions makes
 * a system call: tap/vhost_user.c maps the bitmap, test/unit/vu_log_test.c
 * drives these on a plain buffer.
 */
#ifndef TAP_VU_LOG_H
#define TAP_VU_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "virtio.h"

#define VU_LOG_PAGE		4096ULL		/* VHOST_LOG_PAGE */

/**
 * struct vu_log - The front-end's dirty-page bitmap, as mapped here
 * @bitmap:	First byte of the log (guest physical address 0), NULL if
 *		no log is set
 * @size:	Bytes of @bitmap: it covers guest physical addresses below
 *		@size * 8 * VU_LOG_PAGE
 * @missed:	Writes (or parts of writes) beyond the log, not logged
 */
struct vu_log {
	uint8_t *bitmap;
	uint64_t size;
	uint64_t missed;
};

int vu_log_gpa(struct vu_log *l, uint64_t gpa, uint64_t len);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
int vu_log_host(struct vu_log *l, const struct vu_mem *m, const void *p,
		size_t len);
#endif
int vu_log_iov(struct vu_log *l, const struct vu_mem *m,
	       const struct iovec *iov, unsigned n, size_t len);

#endif /* TAP_VU_LOG_H */
