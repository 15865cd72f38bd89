// SPDX-License-Identifier: GPL-2.0-or-later
/* lib/iov.c - Helpers for arrays of struct iovec (readv(2), writev(2))
 *
 * Lengths and copies across the pieces of a scatter-gather list, as the
 * guest's buffers of a virtqueue chain (tap/vhost_user.c) or the frames of
 * one writev() to the tap device (tap/tap.c) give them.
 */
#include <stdint.h>
#include <string.h>

#include "iov.h"
#include "util.h"

/**
 * iov_length() - Total length of an iovec array
 * @iov:	Array
 * @n:		Entries
 *
 * Return: sum of iov_len, bytes
 */
size_t iov_length(const struct iovec *iov, size_t n)
{
	size_t l = 0;

	while (n--)
		l += iov[n].iov_len;
	return l;
}

/**
 * iov_copy_to() - Copy a buffer into iovecs, from an offset
 * @iov:	Destination pieces
 * @n:		Entries in @iov
 * @off:	Bytes of @iov to skip first
 * @buf:	Source
 * @len:	Bytes of @buf
 *
 * Return: bytes copied (less than @len if @iov is too short)
 */
size_t iov_copy_to(const struct iovec *iov, unsigned n, size_t off,
		   const void *buf, size_t len)
{
	const uint8_t *s = buf;
	size_t done = 0;
	unsigned i;

	for (i = 0; i < n && done < len; i++) {
		size_t l;

		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		l = MIN(iov[i].iov_len - off, len - done);
		memcpy((uint8_t *)iov[i].iov_base + off, s + done, l);
		done += l;
		off = 0;
	}
	return done;
}

/**
 * iov_copy_from() - Copy from iovecs, from an offset, into a buffer
 * @buf:	Destination
 * @len:	Room in @buf, bytes
 * @iov:	Source pieces
 * @n:		Entries in @iov
 * @off:	Bytes of @iov to skip first
 *
 * Return: bytes copied
 */
size_t iov_copy_from(void *buf, size_t len, const struct iovec *iov,
		     unsigned n, size_t off)
{
	uint8_t *d = buf;
	size_t done = 0;
	unsigned i;

	for (i = 0; i < n && done < len; i++) {
		size_t l;

		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		l = MIN(iov[i].iov_len - off, len - done);
		memcpy(d + done, (const uint8_t *)iov[i].iov_base + off, l);
		done += l;
		off = 0;
	}
	return done;
}
