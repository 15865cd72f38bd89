// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/sdlisten.c - Socket activation: a listening socket from systemd
 *
 * DOC: Theory of Operation
 *
 * With a socket unit (passt@.socket), systemd binds the UNIX socket itself
 * and starts passt when the first client (QEMU) connects, handing over the
 * listening socket as descriptor 3.  The protocol is sd_listen_fds(3):
 * LISTEN_FDS holds how many descriptors were passed, starting at
 * SD_LISTEN_FDS_START (3), and LISTEN_PID the PID they are meant for.  A
 * LISTEN_PID that isn't ours (or missing) means the variables were
 * inherited from someone else's environment: they are ignored, as
 * sd_listen_fds() does, and we say so.  Like libsystemd's, this is a
 * documented, stable protocol; parsing two numbers needs no library.
 *
 * passt takes exactly one descriptor, and it must be what QEMU can connect
 * to: an AF_UNIX (SO_DOMAIN) SOCK_STREAM (SO_TYPE) socket in listening state
 * (SO_ACCEPTCONN), that is a socket unit with ListenStream=/path and
 * Accept=no.  Anything else (two descriptors, a file, a datagram socket, a
 * connected socket from Accept=yes, a TCP socket) is refused at start with
 * a message naming what is wrong, exit status 1: running on with a
 * descriptor systemd meant for something else would leave QEMU waiting on
 * a socket nobody accepts on.  -F excludes it; -s may name the same path
 * (so one unit line works with and without the socket unit), not another.
 *
 * The socket belongs to the socket unit: passt never removes its file, and
 * after the client goes it keeps listening on it, as with -s.  The three
 * variables are removed from the environment once read.
 *
 * sdlisten_init() runs before isolate_initial(), which closes every other
 * inherited descriptor and keeps this one (sdlisten_fd()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../conf/conf.h"
#include "../lib/log.h"
#include "../lib/visible.h"
#include "epoll_ref.h"
#include "sdlisten.h"

static int sdlisten_sock = -1;
static char sdlisten_sock_name[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];

/**
 * sdlisten_number() - Parse a decimal number as sd_listen_fds(3) expects
 * @s:		Text: digits only, no sign, no spaces
 * @v:		Value, filled on success
 *
 * Return: 0, or -EINVAL if @s is empty, not all digits, or above INT_MAX
 */
static int sdlisten_number(const char *s, int *v)
{
	long long n = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		n = n * 10 + (*s - '0');
		if (n > INT_MAX)
			return -EINVAL;
	}
	*v = (int)n;
	return 0;
}

/**
 * sdlisten_parse() - How many descriptors the environment passes to us
 * @fds:	Value of LISTEN_FDS, or NULL if unset
 * @pid:	Value of LISTEN_PID, or NULL if unset
 * @self:	Our PID
 *
 * Return: number of descriptors (0 or more) from SDLISTEN_FDS_START on,
 *	   -ENOENT if LISTEN_FDS is unset (no socket activation), -ESRCH if
 *	   LISTEN_PID is unset or names another process (the variables are
 *	   not for us), -EINVAL if either value is not a decimal number or
 *	   the descriptors would run past INT_MAX
 */
VISIBLE_IF_UNIT
int sdlisten_parse(const char *fds, const char *pid, pid_t self)
{
	int n, p;

	if (!fds)
		return -ENOENT;
	if (!pid)
		return -ESRCH;
	if (sdlisten_number(pid, &p) || !p)
		return -EINVAL;
	if (p != (int)self)
		return -ESRCH;
	if (sdlisten_number(fds, &n) || n > INT_MAX - SDLISTEN_FDS_START)
		return -EINVAL;
	return n;
}

/**
 * sdlisten_check() - Is a descriptor a listening AF_UNIX stream socket?
 * @fd:		Descriptor
 *
 * socket(7): SO_DOMAIN, SO_TYPE and SO_ACCEPTCONN, read with getsockopt().
 *
 * Return: 0 if it is; -EBADF if @fd isn't open, -ENOTSOCK if it isn't a
 *	   socket, -EAFNOSUPPORT if it isn't AF_UNIX, -ESOCKTNOSUPPORT if it
 *	   isn't SOCK_STREAM, -EINVAL if it isn't listening
 */
VISIBLE_IF_UNIT
int sdlisten_check(int fd)
{
	int domain, type, acc;
	socklen_t sl;

	if (fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	sl = sizeof(domain);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &sl))
		return errno == ENOTSOCK ? -ENOTSOCK : -errno;
	if (domain != AF_UNIX)
		return -EAFNOSUPPORT;
	sl = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl))
		return -errno;
	if (type != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	sl = sizeof(acc);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &sl))
		return -errno;
	return acc ? 0 : -EINVAL;
}

/**
 * sdlisten_name() - The address an AF_UNIX socket is bound to, as text
 * @fd:		Socket
 * @buf:	Result: the path, "@name" for an abstract name (unix(7)),
 *		"" if unnamed
 * @len:	Size of @buf, bytes (at least sizeof(sun_path) + 1 to hold
 *		any name)
 *
 * Return: 0, or -errno from getsockname()
 */
VISIBLE_IF_UNIT
int sdlisten_name(int fd, char *buf, size_t len)
{
	struct sockaddr_un sa;
	socklen_t sl = sizeof(sa);
	size_t n;

	memset(&sa, 0, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &sl))
		return -errno;
	n = sl > offsetof(struct sockaddr_un, sun_path) ?
	    sl - offsetof(struct sockaddr_un, sun_path) : 0;
	if (!n)
		snprintf(buf, len, "%s", "");
	else if (sa.sun_path[0] == '\0')
		snprintf(buf, len, "@%.*s", (int)(n - 1), sa.sun_path + 1);
	else
		snprintf(buf, len, "%.*s", (int)strnlen(sa.sun_path, n),
			 sa.sun_path);
	return 0;
}

/**
 * sdlisten_init() - Take the listening socket systemd passed, if any
 * @c:		Configuration (mode, -F, -s)
 *
 * Context: start-up, before isolate_initial() closes inherited descriptors
 * Return: the descriptor (SDLISTEN_FDS_START), or -1 if we got none; dies
 *	   (exit status 1) with a message if what we got can't be used
 */
int sdlisten_init(const struct conf *c)
{
	const char *fds = getenv("LISTEN_FDS"), *pid = getenv("LISTEN_PID");
	int n = sdlisten_parse(fds, pid, getpid()), fd = SDLISTEN_FDS_START;
	int ret;

	if (n == -ENOENT)
		return -1;
	if (n == -ESRCH) {
		if (pid)
			warn("LISTEN_FDS ignored: LISTEN_PID=%s is not our "
			     "PID %d", pid, (int)getpid());
		else
			warn("LISTEN_FDS ignored: LISTEN_PID is not set");
		n = 0;
		goto out;
	}
	if (n == -EINVAL)
		die("LISTEN_FDS=%s LISTEN_PID=%s: not decimal numbers",
		    fds, pid);
	if (c->mode != MODE_PASST) {
		if (n)
			warn("LISTEN_FDS=%d ignored: pasta takes no socket from "
			     "the service manager", n);
		n = 0;
		goto out;
	}
	if (!n) {
		warn("LISTEN_FDS=0: no socket passed, binding our own");
		goto out;
	}
	if (n > 1)
		die("LISTEN_FDS=%d: passt takes one listening socket "
		    "(descriptor 3)", n);
	if (c->fd >= 0)
		die("-F/--fd and a socket passed in LISTEN_FDS exclude each "
		    "other");

	switch ((ret = sdlisten_check(fd))) {
	case 0:
		break;
	case -EBADF:
		die("LISTEN_FDS=1: descriptor %d is not open", fd);
	case -ENOTSOCK:
		die("LISTEN_FDS=1: descriptor %d is not a socket", fd);
	case -EAFNOSUPPORT:
		die("LISTEN_FDS=1: descriptor %d is not an AF_UNIX socket "
		    "(the socket unit needs ListenStream=/path)", fd);
	case -ESOCKTNOSUPPORT:
		die("LISTEN_FDS=1: descriptor %d is not a stream socket "
		    "(the socket unit needs ListenStream=)", fd);
	case -EINVAL:
		die("LISTEN_FDS=1: descriptor %d is not listening (the socket "
		    "unit needs Accept=no)", fd);
	default:
		errno = -ret;
		die_perror("LISTEN_FDS=1: descriptor %d", fd);
	}

	if ((ret = sdlisten_name(fd, sdlisten_sock_name,
				 sizeof(sdlisten_sock_name))) < 0) {
		errno = -ret;
		die_perror("LISTEN_FDS=1: getsockname() on descriptor %d", fd);
	}
	if (*c->sock_path && strcmp(c->sock_path, sdlisten_sock_name))
		die("-s %s: the socket passed in LISTEN_FDS is bound at '%s'",
		    c->sock_path, sdlisten_sock_name);
	sdlisten_sock = fd;
out:
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDNAMES");
	return n ? fd : -1;
}

/**
 * sdlisten_fd() - The socket taken by sdlisten_init()
 *
 * Return: descriptor, or -1 if there is none
 */
int sdlisten_fd(void)
{
	return sdlisten_sock;
}

/**
 * sdlisten_path() - Where the socket from systemd is bound
 *
 * Return: path ("@name" if abstract, "" if none or unnamed)
 */
const char *sdlisten_path(void)
{
	return sdlisten_sock_name;
}

/**
 * sdlisten_adopt() - Serve clients on the socket from systemd
 * @epollfd:	epoll instance of the main loop
 *
 * Non-blocking and close-on-exec, registered as the passt listener
 * (EPOLL_TYPE_TAP_LISTEN): from here on it is handled like the socket
 * passt binds itself, except that its file is never removed.
 *
 * Context: set-up, instead of binding our own socket
 * Return: 0, or -errno from fcntl() or epoll_ctl()
 */
int sdlisten_adopt(int epollfd)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TAP_LISTEN };
	struct epoll_event ev = { .events = EPOLLIN };
	int s = sdlisten_sock, fl;

	if ((fl = fcntl(s, F_GETFL)) < 0 ||
	    fcntl(s, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(s, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;

	ref.fd = (uint32_t)s & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(epollfd, EPOLL_CTL_ADD, s, &ev))
		return -errno;

	info("UNIX domain socket bound at %s (passed by the service manager "
	     "in LISTEN_FDS)", *sdlisten_sock_name ? sdlisten_sock_name :
							"an unnamed address");
	if (*sdlisten_sock_name == '/')
		info("connect QEMU with: -netdev stream,id=n0,server=off,addr.type=unix,addr.path=%s -device virtio-net-pci,netdev=n0",
		     sdlisten_sock_name);
	return 0;
}
