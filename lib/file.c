// SPDX-License-Identifier: GPL-2.0-or-later
/* lib/file.c - Files we create at set-up (PID file, pcap, log file),
 *		 safe from links planted where they go
 *
 * DOC: Theory of Operation
 *
 * We may be started as root and keep CAP_DAC_OVERRIDE, and the paths of
 * -P, --pcap and -l often lie in directories others can write to (/tmp,
 * /run/user).  A symbolic link planted at such a path, followed by open()
 * with O_CREAT | O_TRUNC, would make us truncate (or append to) any file
 * the link points to.  So:
 *
 * - a path whose last component is a symbolic link is refused (lstat(2),
 *   and O_NOFOLLOW on the open itself, which fails with ELOOP if a link
 *   appeared meanwhile: open(2));
 * - an existing file is opened without O_CREAT and with O_NONBLOCK (a
 *   FIFO planted there can't block us) and must be a regular file or a
 *   character device (--pcap /dev/null; device nodes can't be planted by
 *   users): FIFOs, sockets and block devices are refused.  A regular file
 *   with more than one hard link is refused too (-EMLINK): where
 *   fs.protected_hardlinks is off, anyone may link a file they can't write
 *   (/etc/shadow) into a directory they can, and we would truncate or
 *   append to it (Documentation/admin-guide/sysctl/fs.rst).  Only a regular
 *   file is truncated (ftruncate(2)), if asked.  In a sticky directory
 *   others can write to (/tmp), a file of another user who doesn't own the
 *   directory is refused with EACCES, as the kernel's fs.protected_regular
 *   refuses O_CREAT on it (Documentation/admin-guide/sysctl/fs.rst): that
 *   user could rewrite our PID file;
 * - a new file is created under a temporary name in the same directory
 *   with O_CREAT | O_EXCL (which never follows a link nor opens an
 *   existing file) and renamed into place with RENAME_NOREPLACE
 *   (rename(2)): whatever appeared at the path in between stays as it is,
 *   and the file is opened again as an existing one.
 *
 * Directories higher up in the path are followed as usual: they belong to
 * whoever gives us the path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "file.h"

#define FILE_OPEN_TRIES	4	/* created, replaced, removed meanwhile */

/**
 * file_foreign_in_sticky() - Is a file another user's, in a sticky directory
 *			      others may write to?
 * @path:	Path of the file
 * @st:		Its status
 *
 * Return: true if so (the file's owner is neither us nor the directory's)
 */
static bool file_foreign_in_sticky(const char *path, const struct stat *st)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat ds;

	if (st->st_uid == geteuid())
		return false;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s",
			 slash == path ? 1 : (int)(slash - path), path);
	if (stat(dir, &ds))
		return true;	/* can't tell: don't trust it */
	return (ds.st_mode & S_ISVTX) && (ds.st_mode & (S_IWOTH | S_IWGRP)) &&
	       ds.st_uid != st->st_uid;
}

/**
 * file_open_existing() - Open an existing regular file, never through a link
 * @path:	Path
 * @flags:	O_WRONLY or O_RDWR, O_TRUNC, O_APPEND
 *
 * Return: fd, -ENOENT if there's nothing at @path, -ELOOP for a symbolic
 *	   link, -EFTYPE_ (neither a regular file nor a character device),
 *	   -EMLINK for a regular file with other hard links, -EACCES for
 *	   another user's
 *	   file in a sticky directory, other -errno
 */
static int file_open_existing(const char *path, int flags)
{
	int fd, ret;
	struct stat st;

	fd = open(path, (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK |
		  O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto err;
	}
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		ret = -EFTYPE_;
		goto err;
	}
	if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
		ret = -EMLINK;
		goto err;
	}
	if (file_foreign_in_sticky(path, &st)) {
		ret = -EACCES;
		goto err;
	}
	if (fcntl(fd, F_SETFL, flags & O_APPEND) ||
	    ((flags & O_TRUNC) && S_ISREG(st.st_mode) && ftruncate(fd, 0))) {
		ret = -errno;
		goto err;
	}
	return fd;
err:
	close(fd);
	return ret;
}

/**
 * file_open_new() - Create a file under a temporary name, rename it in place
 * @path:	Path, at most PATH_MAX bytes
 * @flags:	O_WRONLY or O_RDWR, O_APPEND
 * @mode:	Permissions of the new file
 *
 * Return: fd, -EEXIST if something appeared at @path, other -errno
 */
static int file_open_new(const char *path, int flags, mode_t mode)
{
	char tmp[PATH_MAX + 32];
	const char *slash = strrchr(path, '/');
	struct timespec ts;
	int fd = -1, ret, i;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (i = 0; i < FILE_OPEN_TRIES; i++) {
		int n = snprintf(tmp, sizeof(tmp), "%.*s.%s.%ld.%lx~",
				 slash ? (int)(slash - path + 1) : 0, path,
				 slash ? slash + 1 : path, (long)getpid(),
				 (unsigned long)(ts.tv_nsec + i));

		if (n < 0 || (size_t)n >= sizeof(tmp))
			return -ENAMETOOLONG;
		fd = open(tmp, (flags & ~O_TRUNC) | O_CREAT | O_EXCL |
			  O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0 && errno == ENAMETOOLONG) {	/* no room for the suffix */
		fd = open(path, (flags & ~O_TRUNC) | O_CREAT | O_EXCL |
			  O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	if (fd < 0)
		return -errno;

	/* File systems without RENAME_NOREPLACE: link(2) doesn't replace */
	ret = renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE);
	if (ret && errno == EINVAL && !(ret = link(tmp, path)))
		unlink(tmp);
	if (ret) {
		ret = -errno;
		unlink(tmp);
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * file_open_safe() - Open or create a file, never through a symbolic link
 * @path:	Path
 * @flags:	O_WRONLY or O_RDWR, optionally O_TRUNC or O_APPEND
 * @mode:	Permissions if the file is created
 *
 * See the DOC above.  O_CLOEXEC is always set.
 *
 * Context: set-up, before the seccomp filter
 * Return: fd, or -ELOOP if the last component of @path is a symbolic
 *	   link, -EFTYPE_ if it's neither a regular file nor a character
 *	   device, -EMLINK if it's a regular file with other hard links,
 *	   -EACCES if it's another user's in a sticky directory, other -errno
 */
int file_open_safe(const char *path, int flags, mode_t mode)
{
	struct stat st;
	int i, fd;

	for (i = 0; i < FILE_OPEN_TRIES; i++) {
		if (!lstat(path, &st)) {
			if (S_ISLNK(st.st_mode))
				return -ELOOP;
			fd = file_open_existing(path, flags);
			if (fd != -ENOENT)	/* removed meanwhile: again */
				return fd;
		} else if (errno != ENOENT) {
			return -errno;
		}

		fd = file_open_new(path, flags, mode);
		if (fd != -EEXIST)		/* created meanwhile: again */
			return fd;
	}
	return -EAGAIN;
}

/**
 * file_strerror() - Describe an error of file_open_safe()
 * @err:	Error, positive or negative errno value
 *
 * Return: message, for ELOOP and EFTYPE_ saying what we refuse and why
 */
const char *file_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err == ELOOP)
		return "is a symbolic link: refused (a link planted there would make us write where it points), give the file's own path";
	if (err == EFTYPE_)
		return "not a regular file (nor a character device): refused";
	if (err == EMLINK)
		return "has other hard links: refused (a link planted there would make us write to the file it shares), give a file of its own";
	if (err == EACCES)
		return "permission denied (or another user's file in a sticky directory: refused)";
	return strerror(err);
}
