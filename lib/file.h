/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/file.h - Files we create at set-up, never through planted links */
#ifndef LIB_FILE_H
#define LIB_FILE_H

#include <errno.h>
#include <sys/types.h>

/* "Neither a regular file nor a character device" from file_open_safe():
 * an errno value open(2) doesn't give for the paths we take, so that
 * file_strerror() can say it
 */
#define EFTYPE_		EMEDIUMTYPE

int file_open_safe(const char *path, int flags, mode_t mode);
const char *file_strerror(int err);

#endif /* LIB_FILE_H */
