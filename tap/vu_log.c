// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/vu_log.c - Dirty-page log of guest memory writes (vhost-user migration)
 *
 * Every byte we write into guest memory while the front-end migrates the
 * guest must set the bit of its page in the log, or the destination gets
 * a stale copy of that page.  We write guest memory in two places only:
 * the receive buffers a frame is copied into (device-writable descriptors)
 * and the used rings (entries and idx).  The first are logged by guest
 * physical address, found back from where the buffer is mapped here
 * (vu_log_iov()); the used rings by the ring's log address from
 * SET_VRING_ADDR (tap/vhost_user.c).  The bit is set after the data is
 * written: the front-end reads (and clears) the log, then copies the page,
 * so a write it doesn't see yet is seen in its next pass.
 */
#include <errno.h>
#include <stdint.h>

#include "../lib/util.h"
#include "../lib/visible.h"
#include "vu_log.h"

/**
 * vu_log_gpa() - Mark the pages of a guest-physical range as dirty
 * @l:		Log; nothing is done if it has no bitmap
 * @gpa:	Guest physical address of the first byte written
 * @len:	Bytes written; 0 marks nothing
 *
 * Sets bit (page % 8) of byte (page / 8) for page = address / 4096 of
 * every byte in [@gpa, @gpa + @len), with an atomic OR: the front-end
 * clears bits concurrently (vhost-user.rst, "Migration").
 *
 * Return: 0, or -ERANGE if part of the range is beyond the log or wraps
 *	   around 2^64 (those pages are not marked; counted in @l->missed)
 */
int vu_log_gpa(struct vu_log *l, uint64_t gpa, uint64_t len)
{
	uint64_t first, last, page, npages;
	int rc = 0;

	if (!l->bitmap || !len)
		return 0;
	if (gpa + len - 1 < gpa) {		/* wraps */
		l->missed++;
		return -ERANGE;
	}
	first = gpa / VU_LOG_PAGE;
	last = (gpa + len - 1) / VU_LOG_PAGE;
	npages = l->size * 8;
	if (last >= npages) {
		l->missed++;
		rc = -ERANGE;
		if (first >= npages)
			return rc;
		last = npages - 1;
	}
	for (page = first; page <= last; page++)
		__atomic_fetch_or(&l->bitmap[page / 8],
				  (uint8_t)(1U << (page % 8)),
				  __ATOMIC_SEQ_CST);
	return rc;
}

/**
 * vu_log_host() - Mark the pages behind a range of our guest mappings
 * @l:		Log
 * @m:		Memory table the range was translated with
 * @p:		First byte written, in our address space
 * @len:	Bytes written
 *
 * Each piece is found in the region that maps it here and logged at that
 * region's guest physical address; a range that crosses from one region's
 * mapping into another's is logged piece by piece.
 *
 * Return: 0, -EFAULT if part of the range is in no region (not logged),
 *	   -ERANGE if part of it is beyond the log
 */
VISIBLE_IF_UNIT
int vu_log_host(struct vu_log *l, const struct vu_mem *m, const void *p,
		size_t len)
{
	uintptr_t a = (uintptr_t)p;
	int rc = 0;

	if (!l->bitmap)
		return 0;
	while (len) {
		uint64_t got = 0;
		unsigned i;
		int r;

		for (i = 0; i < m->n; i++) {
			uintptr_t h = (uintptr_t)m->r[i].host;

			if (!h || a < h || a - h >= m->r[i].size)
				continue;
			got = MIN((uint64_t)len, m->r[i].size - (a - h));
			r = vu_log_gpa(l, m->r[i].gpa + (a - h), got);
			if (r)
				rc = r;
			break;
		}
		if (!got) {
			l->missed++;
			return -EFAULT;
		}
		a += (uintptr_t)got;
		len -= (size_t)got;
	}
	return rc;
}

/**
 * vu_log_iov() - Mark the pages of the first bytes of a chain's buffers
 * @l:		Log
 * @m:		Memory table the pieces were translated with
 * @iov:	Device-writable pieces, in our address space
 * @n:		Entries of @iov
 * @len:	Bytes written from the start of @iov
 *
 * Return: 0, or the last error of vu_log_host()
 */
int vu_log_iov(struct vu_log *l, const struct vu_mem *m,
	       const struct iovec *iov, unsigned n, size_t len)
{
	unsigned i;
	int rc = 0;

	if (!l->bitmap)
		return 0;
	for (i = 0; i < n && len; i++) {
		size_t k = MIN(iov[i].iov_len, len);
		int r = vu_log_host(l, m, iov[i].iov_base, k);

		if (r)
			rc = r;
		len -= k;
	}
	return rc;
}
