// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/sockfile.c - UNIX socket files: created without following links,
 * removed at exit by a helper process
 *
 * DOC: Theory of Operation
 *
 * passt's socket (-s) and the -c socket are files that we create while we
 * may still be root, in directories other users may write to (/tmp, a
 * per-VM directory of the --runas user).  Any operation by path once the
 * file exists (chmod(), chown(), even by name in an open directory) races
 * with such a user, who swaps a symbolic or hard link in after bind(): root
 * would then change the owner or mode of the link's target.  So nothing
 * touches the socket file by path once it is visible:
 *  - the directory of the path is opened once (O_PATH); all that follows is
 *    relative to that descriptor;
 *  - the mode comes from the umask around bind(): no chmod() at all;
 *  - if the file stays ours (not started as root, or --runas 0), it is
 *    bound at its name, and nothing follows;
 *  - if it is to belong to the --runas user, a private directory (ours,
 *    mode 0700, a random name) is made in the directory,
 *    and the socket is bound in there (fchdir(), then a relative name:
 *    bind() takes no directory descriptor); nobody else can reach into
 *    that directory;
 *    the socket listens, then gets its name with linkat(), which never
 *    replaces an entry: the file appears complete and accepting;
 *    fchownat() by the private name (no link followed) hands it over; the
 *    private name and directory are removed.  (linkat() first and
 *    fchownat() after: with fs.protected_hardlinks, a process without
 *    CAP_FOWNER may link only files it owns.)  Only root started with
 *    --runas takes this way: profiles of Linux security modules that allow
 *    just the socket's path (libvirt's, for a passt it starts as the qemu
 *    user) keep working for everybody else.
 * A socket file at the name that nobody listens on (connect() refused) is
 * removed first, if it is still the file we looked at; any other file there
 * is left alone (EADDRINUSE).  The path's directory components are the
 * caller's: they are followed, once, when the directory is opened.
 *
 * Removal at exit.  The daemon keeps no file system after isolation, no
 * descriptor of a directory and no unlinkat() in its seccomp filter.
 * sockfile_remover_start(), just before isolation, forks a helper that
 * keeps the directory descriptors, the names and identities (device,
 * inode) of the files, and the read end of a pipe whose write end only the
 * daemon has.  The helper is detached like the daemon (isolate_helper():
 * empty root, the --runas user), without capabilities, with no_new_privs
 * and a seccomp filter of its own (read, fstatat, unlinkat, close, exit).
 * It waits for the end of the pipe, which comes when the daemon exits in
 * any way (SIGKILL included), then removes each name that is still the
 * same socket file.  On a clean exit the daemon closes the pipe and waits
 * for the helper (atexit), so that the files are gone once the daemon's
 * exit is seen.  The helper keeps the daemon's blocked signals: a SIGINT
 * or SIGTERM to the process group doesn't stop it before the daemon.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cap-ng.h>

#include "../conf/conf.h"
#include "../lib/log.h"
#include "isolation.h"
#include "sockfile.h"

#define SOCKFILE_MAX		3	/* passt's -s, -c, --repair-path */
#define SOCKFILE_TMP_TRIES	8	/* names for the private directory */
#define SOCKFILE_TMP_NAME	"s"	/* the socket in there */

/**
 * struct sockfile - A socket file to remove at exit
 * @dirfd:	Its directory (O_PATH), -1 once handed to the helper
 * @name:	Its name there
 * @dev:	Device of the file we created
 * @ino:	Its inode number
 */
static struct sockfile {
	int dirfd;
	char name[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;
	ino_t ino;
} sockfile[SOCKFILE_MAX];
static unsigned sockfile_n;

static int sockfile_pipe = -1;		/* write end, daemon */
static pid_t sockfile_pid = -1;		/* helper */

/**
 * sockfile_split() - Directory and name of a path
 * @path:	Path, as given
 * @dir:	Directory, "." for a bare name, "/" for one in the root
 * @len:	Size of @dir
 *
 * Return: pointer to the name in @path, NULL if there is none (trailing
 *	   slash) or @dir is too small
 */
static const char *sockfile_split(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	int n;

	if (!slash)
		n = snprintf(dir, len, ".");
	else
		n = snprintf(dir, len, "%.*s",
			     slash == path ? 1 : (int)(slash - path), path);
	if (n < 0 || (size_t)n >= len)
		return NULL;
	path = slash ? slash + 1 : path;
	return *path ? path : NULL;
}

/**
 * sockfile_same() - Is a stat() result the file we looked at before?
 * @a:		One
 * @b:		The other
 *
 * Return: true if device and inode match and both are sockets
 */
static bool sockfile_same(const struct stat *a, const struct stat *b)
{
	return S_ISSOCK(a->st_mode) && S_ISSOCK(b->st_mode) &&
	       a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/**
 * sockfile_clear() - Free a name from a socket file nobody listens on
 * @dfd:	Directory, also the current working directory
 * @name:	Name in it
 * @type:	Socket type, for the connect() probe
 *
 * Context: set-up, cwd is @dfd (fchdir()) so that connect() resolves @name
 *	    there
 * Return: 0 if the name is free, -EADDRINUSE if a listener (or a socket
 *	   of another type) or another kind of file has it, -errno on
 *	   other failures
 */
static int sockfile_clear(int dfd, const char *name, int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st, now;
	bool stale;
	int p;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EADDRINUSE;

	p = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", name);
	stale = connect(p, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
		errno == ECONNREFUSED;
	close(p);
	if (!stale)
		return -EADDRINUSE;

	if (fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!sockfile_same(&st, &now))
		return -EADDRINUSE;
	if (unlinkat(dfd, name, 0) && errno != ENOENT)
		return -errno;
	return 0;
}

/**
 * sockfile_private_dir() - Make our private directory in @dfd
 * @dfd:	Directory of the socket path
 * @tmp:	Its name, set here
 * @len:	Size of @tmp
 *
 * The name is random; the directory is opened without following a link
 * and checked to be ours and closed to others, in case another user
 * replaced it between mkdirat() and openat().
 *
 * Return: O_PATH descriptor of the directory, or -errno (-EPERM if what
 *	   we opened isn't ours); @tmp is emptied on failure: nothing of
 *	   ours to remove
 */
static int sockfile_private_dir(int dfd, char *tmp, size_t len)
{
	struct stat st;
	mode_t um;
	int i, fd, ret = -EEXIST;

	um = umask(077);
	for (i = 0; i < SOCKFILE_TMP_TRIES; i++) {
		uint64_t r;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint64_t)time(NULL) * 2654435761U ^
			    (uint64_t)getpid() << 32 ^ (uint64_t)i;
		snprintf(tmp, len, ".passt-%016llx", (unsigned long long)r);
		if (!mkdirat(dfd, tmp, 0700)) {
			ret = 0;
			break;
		}
		ret = -errno;
		if (errno != EEXIST)
			break;
	}
	umask(um);
	if (ret)
		goto fail;

	fd = openat(dfd, tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (errno == EMFILE || errno == ENFILE || errno == ENOMEM)
			unlinkat(dfd, tmp, AT_REMOVEDIR);	/* still ours */
		else
			ret = -EPERM;		/* replaced: not ours */
		goto fail;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		ret = -EPERM;
		goto fail;
	}
	return fd;
fail:
	*tmp = '\0';
	return ret;
}

/**
 * sockfile_bind() - Bind and listen at a name in the working directory
 * @type:	SOCK_STREAM or SOCK_SEQPACKET
 * @name:	Name, relative
 * @umask_bind:	umask for bind(), or SOCKFILE_UMASK_KEEP
 * @backlog:	listen() backlog
 *
 * Return: listening socket (non-blocking, close-on-exec), or -errno
 */
static int sockfile_bind(int type, const char *name, mode_t umask_bind,
			 int backlog)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t um = 0;
	int s, ret;

	s = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", name);
	if (umask_bind != SOCKFILE_UMASK_KEEP)
		um = umask(umask_bind);
	ret = bind(s, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	if (umask_bind != SOCKFILE_UMASK_KEEP)
		umask(um);
	if (!ret && listen(s, backlog))
		ret = -errno;
	if (ret) {
		close(s);
		return ret;
	}
	return s;
}

/**
 * sockfile_listen() - Create a listening UNIX socket at a path, safely
 * @path:	Path (at most 107 characters)
 * @type:	SOCK_STREAM or SOCK_SEQPACKET (non-blocking, close-on-exec)
 * @backlog:	listen() backlog
 * @umask_bind:	umask for bind() (the file's mode is 0777 without it), or
 *		SOCKFILE_UMASK_KEEP for the process' own
 * @uid:	Owner to give the file, SOCKFILE_NO_CHOWN to keep ours
 * @gid:	Group to give it, with @uid
 *
 * See the DOC block above.  The file is recorded for removal at exit
 * (sockfile_remover_start()).
 *
 * Context: set-up, single-threaded (the working directory changes for a
 *	    moment), before isolation (no #syscalls needed)
 * Return: listening socket, or -errno: -EADDRINUSE if another socket that
 *	   listens, or another kind of file, has the path
 */
int sockfile_listen(const char *path, int type, int backlog, mode_t umask_bind,
		    uid_t uid, gid_t gid)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)], tmp[32] = "";
	int dfd = -1, tfd = -1, cwd = -1, s = -1, ret;
	bool linked = false;
	const char *name;
	struct stat st;

	if (sockfile_n >= SOCKFILE_MAX)
		return -ENOSPC;
	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	if (!(name = sockfile_split(path, dir, sizeof(dir))))
		return -EINVAL;

	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0) {
		ret = -errno;
		goto out;
	}

	if (fchdir(dfd)) {
		ret = -errno;
		goto out;
	}
	ret = sockfile_clear(dfd, name, type);
	if (ret)
		goto out_cwd;

	if (uid == SOCKFILE_NO_CHOWN) {
		/* Nothing to do by path after bind(): bind() at the name */
		if ((s = sockfile_bind(type, name, umask_bind, backlog)) < 0) {
			ret = s;
			goto out_cwd;
		}
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			ret = -errno;
			goto out_cwd;
		}
		linked = true;
		goto out_cwd;
	}

	if ((tfd = sockfile_private_dir(dfd, tmp, sizeof(tmp))) < 0) {
		ret = tfd;
		goto out_cwd;
	}
	if (fchdir(tfd)) {
		ret = -errno;
		goto out_cwd;
	}
	if ((s = sockfile_bind(type, SOCKFILE_TMP_NAME, umask_bind,
			       backlog)) < 0) {
		ret = s;
		goto out_cwd;
	}
	if (fstatat(tfd, SOCKFILE_TMP_NAME, &st, AT_SYMLINK_NOFOLLOW)) {
		ret = -errno;
		goto out_cwd;
	}

	/* The name: never replacing an entry, never following a link */
	if (linkat(tfd, SOCKFILE_TMP_NAME, dfd, name, 0)) {
		ret = errno == EEXIST ? -EADDRINUSE : -errno;
		goto out_cwd;
	}
	linked = true;
	if (fchownat(tfd, SOCKFILE_TMP_NAME, uid, gid, AT_SYMLINK_NOFOLLOW))
		warn_perror("chown() of %s", path);

out_cwd:
	if (fchdir(cwd))
		die_perror("can't return to the working directory");
out:
	if (tfd >= 0) {
		unlinkat(tfd, SOCKFILE_TMP_NAME, 0);
		close(tfd);
	}
	if (*tmp)
		unlinkat(dfd, tmp, AT_REMOVEDIR);
	if (cwd >= 0)
		close(cwd);

	if (!linked) {
		if (s >= 0)
			close(s);
		close(dfd);
		return ret < 0 ? ret : -EIO;
	}

	sockfile[sockfile_n].dirfd = dfd;
	snprintf(sockfile[sockfile_n].name, sizeof(sockfile[0].name), "%s",
		 name);
	sockfile[sockfile_n].dev = st.st_dev;
	sockfile[sockfile_n].ino = st.st_ino;
	sockfile_n++;
	return s;
}

/**
 * sockfile_remove() - Helper: remove the names that are still our files
 *
 * Context: helper, after the daemon is gone
 */
static void sockfile_remove(void)
{
	unsigned i;

	for (i = 0; i < sockfile_n; i++) {
		const struct sockfile *f = &sockfile[i];
		struct stat st;

		if (f->dirfd < 0 ||
		    fstatat(f->dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISSOCK(st.st_mode) || st.st_dev != f->dev ||
		    st.st_ino != f->ino)
			continue;
		unlinkat(f->dirfd, f->name, 0);
	}
}

/**
 * sockfile_close_others() - Helper: close every fd but stdio and ours
 * @rfd:	Read end of the pipe
 *
 * Context: helper, before its seccomp filter
 */
static void sockfile_close_others(int rfd)
{
	int keep[SOCKFILE_MAX + 1], n = 0, i, j, lo = STDERR_FILENO + 1;

	keep[n++] = rfd;
	for (i = 0; i < (int)sockfile_n; i++)
		keep[n++] = sockfile[i].dirfd;
	for (i = 1; i < n; i++) {		/* sort, a handful of them */
		for (j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	}
	for (i = 0; i < n; i++) {
		if (keep[i] > lo)
			close_range((unsigned)lo, (unsigned)keep[i] - 1, 0);
		if (keep[i] >= lo)
			lo = keep[i] + 1;
	}
	close_range((unsigned)lo, ~0U, 0);
}

/**
 * sockfile_helper() - Body of the helper: wait for the daemon's end, remove
 * @rfd:	Read end of the pipe
 * @c:		Configuration (mode, --runas)
 *
 * Context: forked, single-threaded; never returns
 */
__attribute__((noreturn))
static void sockfile_helper(int rfd, const struct conf *c)
{
	static const char *const allow[] = {
		"read", "newfstatat", "fstatat64", "statx", "unlinkat",
		"close", "exit_group", "exit", "restart_syscall",
		"rt_sigreturn",
	};
	bool keep = false;
	char b;
	ssize_t n;

	sockfile_close_others(rfd);
	prctl(PR_SET_NAME, c->mode == MODE_PASTA ? "pasta-sockfile" :
						   "passt-sockfile", 0, 0, 0);
	if (isolate_helper(c))
		_exit(EXIT_FAILURE);
	capng_clear(CAPNG_SELECT_BOTH);
	capng_apply(CAPNG_SELECT_BOTH);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    isolate_seccomp_only(allow, sizeof(allow) / sizeof(allow[0])) < 0)
		_exit(EXIT_FAILURE);

	while ((n = read(rfd, &b, 1)) != 0) {
		if (n < 0 && errno != EINTR)
			break;
		if (n == 1 && b == 'k')		/* sockfile_remover_keep() */
			keep = true;
	}
	if (!keep)
		sockfile_remove();
	_exit(EXIT_SUCCESS);
}

/**
 * sockfile_remover_stop() - Daemon, at exit: let the helper remove the files
 *
 * #syscalls close wait4
 */
static void sockfile_remover_stop(void)
{
	if (sockfile_pipe < 0)
		return;
	close(sockfile_pipe);
	sockfile_pipe = -1;
	while (waitpid(sockfile_pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/**
 * sockfile_dir_check() - Warn if the helper won't be able to remove a file
 * @c:		Configuration (--runas identity)
 * @i:		Index in sockfile[]
 *
 * The helper runs as the --runas user when we were started as root
 * (isolate_helper()); unlinkat() needs write permission on the directory
 * (path_resolution(7)), which a directory only root may write to doesn't
 * give it.  The file is then left for the next start to replace.
 *
 * Context: set-up, before the seccomp filter (sockfile_remover_start())
 */
static void sockfile_dir_check(const struct conf *c, unsigned i)
{
	struct stat st;

	if (!isolate_root_in_init_userns() || !c->uid ||
	    fstat(sockfile[i].dirfd, &st))
		return;
	if ((st.st_uid == c->uid && (st.st_mode & S_IWUSR)) ||
	    (st.st_gid == c->gid && (st.st_mode & S_IWGRP)) ||
	    (st.st_mode & S_IWOTH))
		return;
	warn("socket file %s will stay after exit: its directory isn't "
	     "writable by UID %u, which removes it (--runas)",
	     sockfile[i].name, (unsigned)c->uid);
}

/**
 * sockfile_remover_start() - Fork the helper that removes the files at exit
 * @c:		Configuration (mode, --runas)
 *
 * Afterwards the daemon holds no directory descriptor: only the write end
 * of the helper's pipe.  If the helper can't be started, the files stay
 * after exit (a warning says so).
 *
 * Context: set-up, after the last fork() of the daemon that isn't this
 *	    one (daemonizing, the namespace helper), before isolate_prefork()
 */
void sockfile_remover_start(const struct conf *c)
{
	unsigned i;
	int p[2];
	pid_t pid;

	if (!sockfile_n)
		return;
	for (i = 0; i < sockfile_n; i++)
		sockfile_dir_check(c, i);
	if (pipe2(p, O_CLOEXEC)) {
		warn_perror("pipe: socket files will stay after exit");
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		warn_perror("fork: socket files will stay after exit");
		close(p[0]);
		close(p[1]);
		goto out;
	}
	if (!pid) {
		close(p[1]);
		sockfile_helper(p[0], c);
	}
	close(p[0]);
	sockfile_pipe = p[1];
	sockfile_pid = pid;
	atexit(sockfile_remover_stop);
out:
	for (i = 0; i < sockfile_n; i++) {
		close(sockfile[i].dirfd);
		sockfile[i].dirfd = -1;
	}
}

/**
 * sockfile_remover_keep() - Daemon handing over: leave the files at exit
 *
 * A new process took over our listening sockets (passt/restart.c): the
 * files are its own now, and it removes them at its exit.
 *
 * #syscalls write
 */
void sockfile_remover_keep(void)
{
	if (sockfile_pipe >= 0 && write(sockfile_pipe, "k", 1) != 1)
		warn_perror("socket files may be removed at exit");
}

/**
 * sockfile_adopt() - Remove at exit a socket file another process created
 * @path:	Its path
 *
 * For a hand-over (passt/restart.c): the socket behind it is ours now.
 * The file is recorded as it is now (device, inode), as sockfile_listen()
 * does for the files it binds.
 *
 * Context: set-up, before sockfile_remover_start()
 */
void sockfile_adopt(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct sockfile *f = &sockfile[sockfile_n];
	const char *name;
	struct stat st;
	int dfd;

	if (sockfile_n >= SOCKFILE_MAX || strlen(path) >= sizeof(dir) ||
	    !(name = sockfile_split(path, dir, sizeof(dir))))
		return;
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISSOCK(st.st_mode)) {
		close(dfd);
		return;
	}
	f->dirfd = dfd;
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	sockfile_n++;
}
