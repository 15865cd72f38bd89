/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/iov.h - Helpers for arrays of struct iovec (readv(2), writev(2)) */
#ifndef LIB_IOV_H
#define LIB_IOV_H

#include <stddef.h>
#include <sys/uio.h>

size_t iov_length(const struct iovec *iov, size_t n);
size_t iov_copy_to(const struct iovec *iov, unsigned n, size_t off,
		   const void *buf, size_t len);
size_t iov_copy_from(void *buf, size_t len, const struct iovec *iov,
		     unsigned n, size_t off);

#endif /* LIB_IOV_H */
