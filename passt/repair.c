// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/repair.c - The socket passt-repair connects to (--repair-path)
 *
 * Moving a TCP connection to another host takes TCP_REPAIR on its socket
 * (Documentation/networking/tcp-repair: dump and restore the queues and
 * sequence numbers), which needs CAP_NET_ADMIN; passt never has it.  A
 * separate helper that has it, passt-repair (repair/passt-repair.c, or
 * upstream's), connects to this socket and switches repair mode on the
 * sockets we send it: one signed byte per command (1 TCP_REPAIR_ON, 0
 * TCP_REPAIR_OFF, -1 TCP_REPAIR_OFF_NO_WP) with 1 to 253 descriptors as
 * SCM_RIGHTS, echoed back by the helper on success (upstream's protocol,
 * passt-repair(1)).  As upstream, with --vhost-user the socket listens from
 * the start at --repair-path, by default the -s path with ".repair"
 * appended; one helper at a time (another is accepted and closed at once);
 * after a migration we close the helper's connection, so that it is
 * started again for the next one.
 *
 * TCP connections move with repair_set() (passt/tcp_mig_flows.c): many
 * sockets per message, several messages in flight, so that a migration
 * takes about one round trip rather than one per connection (upstream's
 * cost).  Without a helper, a migration with TCP connections open is
 * refused.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/log.h"
#include "epoll_ref.h"
#include "isolation.h"
#include "ctx.h"
#include "repair.h"
#include "sockfile.h"

#define REPAIR_FDS_MAX		253	/* SCM_MAX_FD, include/net/scm.h */
#define REPAIR_INFLIGHT		8	/* commands sent ahead of their echo */

static int repair_listen_fd = -1;
static int repair_fd = -1;

/* Largest command (descriptors) the helper may be sent: the smallest one
 * sent so far on its connection.  Upstream's passt-repair passes the
 * msg_controllen its last recvmsg() left to the next one (recvmsg(2): it
 * is set to the length used), so a command with more descriptors than the
 * one before is cut to that many (MSG_CTRUNC, the rest closed by the
 * kernel), and the cut sockets are silently left as they were.
 */
static unsigned repair_cap = REPAIR_FDS_MAX;

/**
 * repair_open() - Listen on the passt-repair socket (--vhost-user)
 * @ctx:	Context
 * @sock_path:	The -s socket's path, "" if there is none (-F, systemd):
 *		then only an explicit --repair-path makes a socket
 *
 * A path we can't use is a warning, not an error: the guest runs, only
 * migrations that need passt-repair won't work (as upstream).
 *
 * Context: set-up, before isolation (no #syscalls needed)
 */
void repair_open(struct ctx *ctx, const char *sock_path)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_REPAIR_LISTEN };
	struct epoll_event ev = { .events = EPOLLIN };
	bool give = isolate_root_in_init_userns() && ctx->c.uid;
	char path[108];
	int s;

	if (!strcmp(ctx->c.repair_path, "none"))
		return;
	if (*ctx->c.repair_path) {
		snprintf(path, sizeof(path), "%s", ctx->c.repair_path);
	} else if (!*sock_path) {
		return;
	} else if (snprintf(path, sizeof(path), "%s.repair", sock_path) >=
		   (int)sizeof(path)) {
		warn("passt-repair socket: %s.repair is too long for a UNIX "
		     "socket path: no passt-repair", sock_path);
		return;
	}
	s = sockfile_listen(path, SOCK_STREAM, 1, SOCKFILE_UMASK_KEEP,
			    give ? ctx->c.uid : SOCKFILE_NO_CHOWN, ctx->c.gid);
	if (s < 0) {
		warn("passt-repair socket %s: %s: no passt-repair", path,
		     strerror(-s));
		return;
	}
	ref.fd = (uint32_t)s & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev) < 0) {
		warn_perror("passt-repair socket: epoll_ctl");
		close(s);
		return;
	}
	repair_listen_fd = s;
	info("passt-repair socket bound at %s", path);
}

/**
 * repair_listen_handler() - passt-repair connects
 * @ctx:	Context
 *
 * The helper is sent our TCP sockets, so only root (KubeVirt's and
 * libvirt's passt-repair) or our own UID may connect, whatever mode the
 * umask gave the socket file: SO_PEERCRED (socket(7)) says who connected.
 * Anyone else is closed at once and logged.
 *
 * #syscalls:passt accept4 getsockopt epoll_ctl close
 */
void repair_listen_handler(struct ctx *ctx)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_REPAIR };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	struct ucred cr = { 0 };
	socklen_t len = sizeof(cr);
	int s;

	s = accept4(repair_listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (s < 0)
		return;
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    (cr.uid != 0 && cr.uid != ctx->c.uid)) {
		warn("passt-repair (PID %d, UID %u) refused: only UID 0 or "
		     "%u may take our sockets", (int)cr.pid, (unsigned)cr.uid,
		     (unsigned)ctx->c.uid);
		close(s);
		return;
	}
	if (repair_fd >= 0) {
		info("passt-repair (PID %d) refused: one is connected already",
		     (int)cr.pid);
		close(s);
		return;
	}
	ref.fd = (uint32_t)s & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev) < 0) {
		close(s);
		return;
	}
	repair_fd = s;
	repair_cap = REPAIR_FDS_MAX;
	info("passt-repair connected (PID %d)", (int)cr.pid);
}

/**
 * repair_handler() - Event on the helper's connection
 * @ctx:	Context
 * @events:	epoll events
 *
 * The helper speaks only when asked (it echoes our commands, and we send
 * none yet): anything it sends, or its hang-up, ends the connection.
 */
void repair_handler(struct ctx *ctx, uint32_t events)
{
	(void)events;
	info("passt-repair disconnected");
	repair_close(ctx);
}

/**
 * repair_close() - Close the helper's connection, if any (after a
 *		    migration, or when it leaves)
 * @ctx:	Context
 *
 * #syscalls:passt epoll_ctl close
 */
void repair_close(struct ctx *ctx)
{
	if (repair_fd < 0)
		return;
	epoll_ctl(ctx->epollfd, EPOLL_CTL_DEL, repair_fd, NULL);
	close(repair_fd);
	repair_fd = -1;
}

/**
 * repair_connected() - Is a passt-repair helper connected?
 *
 * Return: true if it is
 */
bool repair_connected(void)
{
	return repair_fd >= 0;
}

/**
 * repair_wait() - Wait for passt-repair to connect, if it hasn't yet
 * @ctx:	Context
 * @ms:		Longest wait, ms
 *
 * A destination gets the stream as soon as QEMU starts loading, which may
 * be before the helper connects (as upstream, which waits too).
 *
 * #syscalls:passt poll
 * Return: true if a helper is connected
 */
bool repair_wait(struct ctx *ctx, int ms)
{
	struct pollfd p = { .fd = repair_listen_fd, .events = POLLIN };

	if (repair_fd >= 0)
		return true;
	if (repair_listen_fd < 0)
		return false;
	info("waiting up to %d ms for passt-repair", ms);
	if (poll(&p, 1, ms) == 1)
		repair_listen_handler(ctx);
	return repair_fd >= 0;
}

/**
 * repair_send() - Send one command to the helper
 * @fds:	Sockets, 1 to REPAIR_FDS_MAX
 * @n:		Their count
 * @cmd:	TCP_REPAIR value: 1 on, 0 off, -1 off without window probe
 *
 * #syscalls:passt sendmsg
 * Return: 0, or -EIO if the helper went away
 */
static int repair_send(const int *fds, unsigned n, int8_t cmd)
{
	char cbuf[CMSG_SPACE(sizeof(int) * REPAIR_FDS_MAX)] = { 0 };
	struct iovec iov = { &cmd, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = CMSG_SPACE(sizeof(int) * n) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	if (sendmsg(repair_fd, &m, MSG_NOSIGNAL) != 1)
		return -EIO;
	return 0;
}

/**
 * repair_echoes() - Wait for the helper's echoes of commands sent
 * @n:		Echoes to wait for, at least one
 * @cmd:	The command they echo
 *
 * The helper answers each command when it has set every socket of it, or
 * closes the connection on error (passt-repair(1)).  We wait up to 10
 * seconds for each answer: a migration is the only user, the guest is
 * stopped.
 *
 * #syscalls:passt recvfrom poll
 * Return: echoes received (1 to @n), -EIO if the helper failed or went
 *	   away, -ETIMEDOUT
 */
static int repair_echoes(unsigned n, int8_t cmd)
{
	struct pollfd p = { .fd = repair_fd, .events = POLLIN };
	int8_t echo[REPAIR_INFLIGHT];
	ssize_t r, i;

	if (poll(&p, 1, 10000) != 1)
		return -ETIMEDOUT;
	r = recv(repair_fd, echo, n < REPAIR_INFLIGHT ? n : REPAIR_INFLIGHT,
		 MSG_DONTWAIT);
	if (r <= 0)
		return -EIO;
	for (i = 0; i < r; i++)
		if (echo[i] != cmd)
			return -EIO;
	return (int)r;
}

/**
 * repair_set() - Switch TCP_REPAIR on many sockets, through the helper
 * @fds:	Sockets
 * @n:		Their count (any)
 * @cmd:	TCP_REPAIR value: 1 on, 0 off, -1 off without window probe
 *
 * Commands of up to REPAIR_FDS_MAX sockets each, of sizes that never grow
 * on one helper connection (repair_cap: upstream's passt-repair would cut
 * a larger one), as even as they can be, so that a later call isn't held
 * to a small rest: 1000 sockets go as four commands of 250.  Up to
 * REPAIR_INFLIGHT commands are sent before their echoes come: the helper
 * goes from one to the next without waiting for us (it reads one command
 * per recvmsg(), its byte and its descriptors, as upstream's does).
 *
 * Return: 0, -ENOTCONN without a helper, or -EIO, -ETIMEDOUT if the
 *	   helper failed (sockets of earlier commands may be switched)
 */
int repair_set(const int *fds, unsigned n, int8_t cmd)
{
	unsigned nb, sent = 0, done = 0, off = 0;
	int rc;

	if (repair_fd < 0)
		return n ? -ENOTCONN : 0;
	if (!n)
		return 0;
	nb = (n + repair_cap - 1) / repair_cap;
	while (done < nb) {
		while (sent < nb && sent - done < REPAIR_INFLIGHT) {
			/* the first n % nb commands one larger: never growing */
			unsigned k = n / nb + (sent < n % nb ? 1 : 0);

			if ((rc = repair_send(fds + off, k, cmd)))
				return rc;
			if (k < repair_cap)
				repair_cap = k;
			off += k;
			sent++;
		}
		if ((rc = repair_echoes(sent - done, cmd)) < 0)
			return rc;
		done += (unsigned)rc;
	}
	return 0;
}
