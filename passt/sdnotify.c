// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/sdnotify.c - Readiness notification to a service manager (systemd)
 *
 * DOC: Theory of Operation
 *
 * A service manager that wants to know when we are ready (systemd with
 * Type=notify) puts the address of a datagram socket in NOTIFY_SOCKET.
 * The protocol is documented in sd_notify(3), NOTES, and is covered by
 * systemd's interface stability promise for independent implementations:
 * one AF_UNIX datagram per notification, whose payload is newline-separated
 * VARIABLE=VALUE lines; an address starting with '/' is a file system
 * path, one starting with '@' a name in the abstract namespace (unix(7),
 * the '@' standing for the leading NUL byte).  The receiver learns our PID
 * from SCM_CREDENTIALS, which the kernel attaches by itself on a socket
 * that set SO_PASSCRED: the sender needs no control message.
 *
 * We implement that here instead of linking libsystemd: it is a socket(),
 * a connect() and a send(), and libsystemd would bring a shared library
 * (and its own dependencies) into a process that runs with a seccomp
 * allow-list and no file system.  sd_notify() would also open a new socket
 * and look the path up for every message, which the STOPPING=1 at exit
 * can't do any more: by then the file system is out of reach and socket()
 * and connect() aren't in the filter.  So sdnotify_init() connects a socket
 * once, at start-up, and every later message is a send() on it.
 *
 * Messages: READY=1 with MAINPID= and a STATUS= saying what is ready
 * (sdnotify_ready(), called once set-up is complete, just before the main
 * loop), STOPPING=1 when we start to exit (sdnotify_stopping()), and from
 * the parent that detaches without -f, MAINPID= of the process that stays
 * (sdnotify_mainpid()).  NOTIFY_SOCKET is removed from the environment, so
 * that a command pasta spawns doesn't report to our service manager as if
 * it were us.
 *
 * A NOTIFY_SOCKET we can't use (empty, relative, too long for sun_path, an
 * AF_VSOCK "vsock:" address, nobody listening) is ignored with a debug
 * line: readiness is a courtesy to the caller, never a reason to fail.
 * Sends are MSG_DONTWAIT: a manager that doesn't read its socket never
 * stalls the main loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../lib/log.h"
#include "../lib/visible.h"
#include "sdnotify.h"

static int sdnotify_sock = -1;		/* connected datagram socket */
static bool sdnotify_stopping_sent;

/**
 * sdnotify_addr() - Turn a NOTIFY_SOCKET value into an AF_UNIX address
 * @env:	Value of NOTIFY_SOCKET, NUL-terminated
 * @sa:		Address, filled on success
 * @len:	Length of @sa to pass to connect(), bytes, filled on success
 *
 * sd_notify(3): "/path" is a file system socket, "@name" a name in the
 * abstract namespace.  The path, with its terminating NUL, must fit
 * sun_path (108 bytes, unix(7)); the abstract name takes the whole of
 * sun_path after the leading NUL and its length is given by @len, as
 * unix(7) describes for abstract addresses.
 *
 * Return: 0, -EINVAL for an empty or relative value, -ENAMETOOLONG if it
 *	   doesn't fit, -EAFNOSUPPORT for a "vsock:" address (AF_VSOCK,
 *	   systemd >= 254: not supported here)
 */
VISIBLE_IF_UNIT
int sdnotify_addr(const char *env, struct sockaddr_un *sa, socklen_t *len)
{
	size_t n = strlen(env);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;

	if (!strncmp(env, "vsock:", strlen("vsock:")))
		return -EAFNOSUPPORT;
	if (env[0] == '@') {
		if (n < 2)
			return -EINVAL;
		if (n > sizeof(sa->sun_path))	/* '@' becomes the NUL */
			return -ENAMETOOLONG;
		memcpy(sa->sun_path + 1, env + 1, n - 1);
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
		return 0;
	}
	if (env[0] != '/')
		return -EINVAL;
	if (n >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memcpy(sa->sun_path, env, n + 1);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	return 0;
}

/**
 * sdnotify_init() - Connect to NOTIFY_SOCKET, if set and usable
 *
 * Removes NOTIFY_SOCKET from the environment in any case.  Without it, or
 * with one we can't use (logged at debug level), later notifications do
 * nothing.
 *
 * Context: start-up, after stray descriptors are closed and before the
 *	    file system, or the network namespace an abstract name lives
 *	    in, may be left (the seccomp filter isn't installed yet)
 */
void sdnotify_init(void)
{
	const char *env = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	socklen_t sl;
	int s, ret;

	if (!env)
		return;

	if ((ret = sdnotify_addr(env, &sa, &sl)) < 0) {
		debug("NOTIFY_SOCKET '%s' ignored: %s", env, strerror(-ret));
		goto out;
	}

	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		debug_perror("NOTIFY_SOCKET ignored: socket()");
		goto out;
	}
	if (connect(s, (struct sockaddr *)&sa, sl)) {
		debug_perror("NOTIFY_SOCKET '%s' ignored: connect()", env);
		close(s);
		goto out;
	}
	sdnotify_sock = s;
	debug("NOTIFY_SOCKET: readiness goes to %s", env);
out:
	unsetenv("NOTIFY_SOCKET");
}

/**
 * sdnotify_send() - Send one notification datagram
 * @msg:	Newline-separated VARIABLE=VALUE lines
 *
 * A failed send is logged at debug level and otherwise ignored.
 *
 * Context: any, main loop included
 * #syscalls sendto
 */
static void sdnotify_send(const char *msg)
{
	if (sdnotify_sock < 0)
		return;
	if (send(sdnotify_sock, msg, strlen(msg),
		 MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		debug_perror("NOTIFY_SOCKET: send()");
}

/**
 * sdnotify_mainpid() - Tell the manager which process to watch from now on
 * @pid:	The process that stays when we detach (no -f)
 *
 * Context: the parent in daemonize(), just before it exits
 */
void sdnotify_mainpid(pid_t pid)
{
	char msg[32];

	snprintf(msg, sizeof(msg), "MAINPID=%d\n", (int)pid);
	sdnotify_send(msg);
}

/**
 * sdnotify_ready() - Set-up is done: READY=1, MAINPID= and STATUS=
 * @fmt:	printf() format of the STATUS= text (one line: what is ready)
 *
 * Context: once, just before the main loop (the seccomp filter may be
 *	    installed: only getpid() and send() are used)
 * #syscalls getpid
 */
void sdnotify_ready(const char *fmt, ...)
{
	char msg[SDNOTIFY_MSG_MAX], status[SDNOTIFY_MSG_MAX - 64], *p;
	va_list ap;

	if (sdnotify_sock < 0)
		return;

	va_start(ap, fmt);
	vsnprintf(status, sizeof(status), fmt, ap);
	va_end(ap);
	for (p = status; *p; p++) {	/* one line, whatever a path holds */
		if (*p == '\n')
			*p = ' ';
	}

	snprintf(msg, sizeof(msg), "READY=1\nMAINPID=%d\nSTATUS=%s\n",
		 (int)getpid(), status);
	sdnotify_send(msg);
	debug("NOTIFY_SOCKET: READY=1, STATUS=%s", status);
}

/**
 * sdnotify_stopping() - We have started to exit: STOPPING=1, once
 *
 * Safe to call more than once and from anywhere on the way out (the exit
 * drain, then main() after the loop): only the first call sends.
 *
 * Context: any, main loop included
 */
void sdnotify_stopping(void)
{
	if (sdnotify_stopping_sent)
		return;
	sdnotify_stopping_sent = true;
	sdnotify_send("STOPPING=1\nSTATUS=exiting\n");
}

/**
 * sdnotify_fd() - The connected notification socket
 *
 * Return: descriptor, or -1 if there is none (for tests and fd accounting)
 */
VISIBLE_IF_UNIT
int sdnotify_fd(void)
{
	return sdnotify_sock;
}
