// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/nsock.c - TCP and UDP sockets made inside the target namespace by a
 * helper
 *
 * A connection spliced from the host into the namespace needs a socket that
 * lives in the namespace, and a socket belongs to the namespace of the task
 * that created it.  The daemon never enters the namespace again after
 * set-up: instead, nsock_init() forks one helper process that enters the
 * namespace with setns() once, drops every capability, sets no_new_privs,
 * confines itself with a seccomp filter that allows little more than
 * socket(), and then serves requests.
 *
 * Daemon and helper talk over a SOCK_SEQPACKET socketpair.  A request asks
 * for N sockets of one family; the reply carries them as SCM_RIGHTS, so
 * they land in the daemon's file table (the helper closes its copies).
 * The daemon keeps a pool of NSOCK_POOL ready sockets per family and type
 * (TCP for the splice path, UDP for loopback datagrams to -u ports): taking
 * one (nsock_get()) costs no system call, and nsock_refill(), run from
 * the timer, asks for the missing ones without waiting; replies come back
 * as epoll events (EPOLL_TYPE_NS_HELPER, nsock_handler()).  Only when a
 * burst empties a pool does nsock_get() wait for a reply (at most
 * NSOCK_WAIT_MS).
 *
 * A helper process rather than a thread: a thread would share the file
 * system information of the daemon (so a later unshare(CLONE_NEWNS) would
 * fail), and glibc would make it take part in the daemon's later setuid()
 * calls.  The helper holds nothing but its end of the socketpair; it exits
 * when the daemon does (EOF on the socketpair, or PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cap-ng.h>

#include "../lib/log.h"
#include "../lib/visible.h"
#include "epoll_ref.h"
#include "isolation.h"
#include "ctx.h"
#include "signals.h"
#include "nsock.h"

/**
 * struct nsock_msg - Request to the helper, and its reply
 * @fam:	Pool index: bit 0 set for IPv6, bit 1 for UDP (nsock_fam())
 * @n:		Sockets asked for (a reply repeats the request's value)
 * @got:	Reply: sockets attached as SCM_RIGHTS
 * @pad:	Zero
 * @err:	Reply: 0, or -errno of the first socket() that failed; in
 *		the helper's first message, -errno of setns()
 */
struct nsock_msg {
	uint8_t fam;
	uint8_t n;
	uint8_t got;
	uint8_t pad;
	int32_t err;
};

#define NSOCK_FAMS	4	/* TCP/IPv4, TCP/IPv6, UDP/IPv4, UDP/IPv6 */

static int nsock_pool[NSOCK_FAMS][NSOCK_POOL];
static unsigned nsock_n[NSOCK_FAMS];	/* sockets in the pool */
static unsigned nsock_pending[NSOCK_FAMS]; /* asked for, reply not seen yet */
static int nsock_err[NSOCK_FAMS];	/* error of the last reply, or 0 */
static unsigned nsock_on;		/* bitmap of pools kept filled */
static int nsock_sock = -1;		/* our end of the socketpair */
static pid_t nsock_helper_pid;

/**
 * nsock_fam_af() - Address family of a pool
 * @fam:	Pool index
 *
 * Return: AF_INET or AF_INET6
 */
static int nsock_fam_af(unsigned fam)
{
	return (fam & 1) ? AF_INET6 : AF_INET;
}

/**
 * nsock_fam() - Pool index for a family and a type
 * @af:		AF_INET or AF_INET6
 * @udp:	UDP rather than TCP
 *
 * Return: 0 to NSOCK_FAMS - 1
 */
static unsigned nsock_fam(int af, bool udp)
{
	return (af == AF_INET6 ? 1U : 0U) | (udp ? 2U : 0U);
}

/**
 * nsock_close_others() - Helper: close every fd but stdio and two we keep
 * @a:		fd to keep
 * @b:		fd to keep
 *
 * Context: before the helper's seccomp filter (no #syscalls line)
 */
static void nsock_close_others(int a, int b)
{
	int lo = MIN(a, b), hi = MAX(a, b);

	if (lo > 3)
		close_range(3, (unsigned)lo - 1, 0);
	if (hi > lo + 1)
		close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
	close_range((unsigned)hi + 1, ~0U, 0);
}

/**
 * nsock_helper_confine() - Helper: no capabilities, no_new_privs, seccomp
 *
 * After this the helper can only create sockets, set options on them,
 * exchange messages on the socketpair, close fds and exit: the
 * "#syscalls:helper" lines of this file, which isolate_seccomp_helper()
 * turns into the filter.  The calls made before the filter (capset,
 * prctl, seccomp here; setns, getppid, close_range in nsock_helper()) are
 * on no list.
 *
 * #syscalls:helper exit rt_sigreturn restart_syscall
 * (exit: the end of a thread libc may make; rt_sigreturn: the return from
 * a signal handler; restart_syscall: a recv() resumed after SIGSTOP)
 * Return: 0, or -1 if the seccomp filter couldn't be loaded
 */
static int nsock_helper_confine(void)
{
	capng_clear(CAPNG_SELECT_BOTH);
	capng_apply(CAPNG_SELECT_BOTH);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);

	return isolate_seccomp_helper() < 0 ? -1 : 0;
}

/**
 * nsock_helper_reply() - Helper: create sockets and send them back
 * @fd:		Helper's end of the socketpair
 * @req:	Validated request
 *
 * #syscalls:helper socket setsockopt sendmsg close
 */
static void nsock_helper_reply(int fd, const struct nsock_msg *req)
{
	char cbuf[CMSG_SPACE(sizeof(int) * NSOCK_POOL)] = { 0 };
	struct nsock_msg rep = { .fam = req->fam, .n = req->n };
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[NSOCK_POOL], one = 1;
	struct cmsghdr *cm;
	unsigned i;

	for (i = 0; i < req->n; i++) {
		bool udp = req->fam & 2;
		int af = nsock_fam_af(req->fam);
		int s = socket(af, (udp ? SOCK_DGRAM : SOCK_STREAM) |
				   SOCK_NONBLOCK | SOCK_CLOEXEC,
			       udp ? IPPROTO_UDP : IPPROTO_TCP);

		if (s < 0) {
			rep.err = -errno;
			break;
		}
		if (!udp)	/* spliced data is pushed as it comes: no Nagle */
			setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
		else if (af == AF_INET6)
			setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				   sizeof(one));
		fds[rep.got++] = s;
	}

	if (rep.got) {
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * rep.got);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * rep.got);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * rep.got);
	}
	while (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
	for (i = 0; i < rep.got; i++)
		close(fds[i]);
}

/**
 * nsock_helper() - Body of the helper process
 * @fd:		Helper's end of the socketpair
 * @nsfd:	Target network namespace
 * @parent:	PID of the daemon
 * @c:		Configuration (--runas), for isolate_helper()
 *
 * Context: forked child; never returns
 * #syscalls:helper sendto recvfrom exit_group
 */
static void nsock_helper(int fd, int nsfd, pid_t parent, const struct conf *c)
{
	struct nsock_msg m = { 0 };

	signals_unblock_child();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, "pasta-nsock");
	nsock_close_others(fd, nsfd);

	if (setns(nsfd, CLONE_NEWNET))
		m.err = -errno;
	close(nsfd);
	if (!m.err)
		m.err = isolate_helper(c);
	if (!m.err && nsock_helper_confine())
		m.err = -EPERM;
	if (send(fd, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m) || m.err)
		_exit(1);

	for (;;) {
		ssize_t n = recv(fd, &m, sizeof(m), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);	/* the daemon is gone */
		if (n != sizeof(m) || m.fam >= NSOCK_FAMS || m.n > NSOCK_POOL)
			continue;	/* never sent by the daemon */
		m.got = 0;
		m.err = 0;
		nsock_helper_reply(fd, &m);
	}
}

/**
 * nsock_gone() - Forget the helper (it died): pooled sockets stay usable
 */
static void nsock_gone(void)
{
	if (nsock_sock >= 0)
		close(nsock_sock);	/* also leaves the epoll set */
	nsock_sock = -1;
	memset(nsock_pending, 0, sizeof(nsock_pending));
}

/**
 * nsock_recv() - Take one reply of the helper, if there is one
 *
 * Sockets beyond the pool's capacity (not asked for) are closed.
 *
 * #syscalls recvmsg close
 * Return: 1 if a reply was consumed, 0 if none is waiting, -ECONNRESET if
 *	   the helper is gone, other -errno from recvmsg()
 */
static int nsock_recv(void)
{
	char cbuf[CMSG_SPACE(sizeof(int) * NSOCK_POOL)];
	struct nsock_msg m = { 0 };
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	bool valid;
	ssize_t n;

	do {
		n = recvmsg(nsock_sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;

	valid = n == sizeof(m) && m.fam < NSOCK_FAMS;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t i, nfd;
		int fd;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfd; i++) {
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			if (valid && nsock_n[m.fam] < NSOCK_POOL)
				nsock_pool[m.fam][nsock_n[m.fam]++] = fd;
			else
				close(fd);
		}
	}
	if (!valid)
		return 1;

	nsock_pending[m.fam] -= MIN(m.n, nsock_pending[m.fam]);
	nsock_err[m.fam] = m.err;
	if (m.err)
		debug("namespace socket helper: socket(): %s", strerror(-m.err));
	return 1;
}

/**
 * nsock_request() - Ask the helper for sockets, without waiting
 * @fam:	Pool index: bit 0 set for IPv6, bit 1 for UDP (nsock_fam())
 * @n:		How many (1 to NSOCK_POOL)
 *
 * #syscalls sendto
 * Return: 0, or -errno (-ENOTCONN if there is no helper)
 */
static int nsock_request(unsigned fam, unsigned n)
{
	struct nsock_msg m = { .fam = (uint8_t)fam, .n = (uint8_t)n };

	if (nsock_sock < 0)
		return -ENOTCONN;
	if (send(nsock_sock, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    sizeof(m))
		return -errno;
	nsock_pending[fam] += n;
	return 0;
}

/**
 * nsock_wait() - Wait until the helper's socket is readable
 * @ms:		Longest wait, ms
 *
 * #syscalls poll
 * Return: 1 if readable, 0 on timeout, -errno on error
 */
static int nsock_wait(int ms)
{
	struct pollfd p = { .fd = nsock_sock, .events = POLLIN };
	int n;

	do {
		n = poll(&p, 1, ms);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/**
 * nsock_fill_wait() - Fill an empty pool, waiting for the helper
 * @fam:	Pool index: bit 0 set for IPv6, bit 1 for UDP (nsock_fam())
 *
 * Context: main loop, only when a burst of connections emptied the pool
 * Return: 0 once the pool has a socket, -ETIMEDOUT after NSOCK_WAIT_MS,
 *	   the error of socket() in the namespace (say -EMFILE), or
 *	   -ENOTCONN if there is no helper
 */
static int nsock_fill_wait(unsigned fam)
{
	int64_t end = now_ms() + NSOCK_WAIT_MS;
	int ret;

	if (!nsock_pending[fam] &&
	    (ret = nsock_request(fam, NSOCK_POOL - nsock_n[fam])) < 0)
		return ret;

	while (!nsock_n[fam]) {
		int64_t left = end - now_ms();

		ret = nsock_recv();
		if (ret < 0) {
			warn("namespace socket helper is gone: %s",
			     strerror(-ret));
			nsock_gone();
			return -ENOTCONN;
		}
		if (ret) {
			if (!nsock_n[fam] && !nsock_pending[fam])
				return nsock_err[fam] ? nsock_err[fam] : -EIO;
			continue;
		}
		if (left <= 0)
			return -ETIMEDOUT;
		if ((ret = nsock_wait((int)left)) < 0)
			return ret;
	}
	return 0;
}

/**
 * nsock_get_type() - Take a socket created in the target namespace
 * @af:		AF_INET or AF_INET6
 * @udp:	UDP socket rather than TCP
 *
 * The socket is non-blocking and close-on-exec, neither bound nor
 * connected; TCP ones have TCP_NODELAY, IPv6 UDP ones IPV6_V6ONLY.  The
 * caller owns it.
 *
 * Context: main loop
 * Return: socket, or -errno (see nsock_fill_wait())
 */
int nsock_get_type(int af, bool udp)
{
	unsigned fam = nsock_fam(af, udp);
	int ret;

	nsock_on |= 1U << fam;
	if (!nsock_n[fam] && (ret = nsock_fill_wait(fam)) < 0)
		return ret;
	return nsock_pool[fam][--nsock_n[fam]];
}

/**
 * nsock_get() - Take a TCP socket created in the target namespace
 * @af:		AF_INET or AF_INET6
 *
 * Context: main loop
 * Return: socket, or -errno (see nsock_fill_wait())
 */
int nsock_get(int af)
{
	return nsock_get_type(af, false);
}

/**
 * nsock_refill_due() - Are pools short of sockets with nothing asked for?
 *
 * Return: true if nsock_refill() would send a request
 */
bool nsock_refill_due(void)
{
	unsigned fam;

	if (nsock_sock < 0)
		return false;
	for (fam = 0; fam < NSOCK_FAMS; fam++)
		if ((nsock_on & (1U << fam)) && !nsock_pending[fam] &&
		    nsock_n[fam] < NSOCK_POOL)
			return true;
	return false;
}

/**
 * nsock_refill() - Ask the helper for what the pools miss, without waiting
 *
 * Context: timer (after a wake-up that took sockets)
 */
void nsock_refill(void)
{
	unsigned fam;

	if (nsock_sock < 0)
		return;
	for (fam = 0; fam < NSOCK_FAMS; fam++)
		if ((nsock_on & (1U << fam)) && !nsock_pending[fam] &&
		    nsock_n[fam] < NSOCK_POOL)
			nsock_request(fam, NSOCK_POOL - nsock_n[fam]);
}

/**
 * nsock_handler() - Replies of the helper are waiting, or it went away
 * @ctx:	Context
 * @events:	epoll events on our end of the socketpair
 *
 * Context: main loop, EPOLL_TYPE_NS_HELPER
 */
void nsock_handler(struct ctx *ctx, uint32_t events)
{
	int ret;

	(void)events;
	if (nsock_sock < 0)
		return;
	while ((ret = nsock_recv()) > 0)
		;
	if (ret < 0) {
		warn("namespace socket helper is gone: %s", strerror(-ret));
		nsock_gone();
		return;
	}
	if (nsock_refill_due())
		timer_want(ctx, ctx->now);
}

/**
 * nsock_ready() - Can nsock_get() return sockets at all?
 *
 * Return: true if the helper runs or a pool still holds sockets
 */
bool nsock_ready(void)
{
	unsigned fam;

	for (fam = 0; fam < NSOCK_FAMS; fam++)
		if (nsock_n[fam])
			return true;
	return nsock_sock >= 0;
}

/**
 * nsock_avail() - Sockets in a pool (for tests and statistics)
 * @af:		AF_INET or AF_INET6
 *
 * Return: count
 */
unsigned nsock_avail(int af)
{
	return nsock_n[nsock_fam(af, false)];
}

/**
 * nsock_pid() - PID of the helper (for tests and logs)
 *
 * Return: PID, 0 if none was started
 */
VISIBLE_IF_UNIT
pid_t nsock_pid(void)
{
	return nsock_helper_pid;
}

/**
 * nsock_init() - Fork the helper into the target namespace, fill the pools
 * @ctx:	Context: ns_fd is the target namespace, epollfd the main loop's
 * @tcp:	Keep TCP pools filled (splice path)
 * @udp:	Keep UDP pools filled (loopback datagrams to -u ports)
 *
 * Call after any fork() of the daemon (daemonizing), while it still has
 * the privileges to enter the namespace (before isolate_prefork()).
 *
 * Context: set-up (before the seccomp filter: no #syscalls needed)
 * Return: 0, or -errno (setns() refused, no helper reply within five
 *	   times NSOCK_WAIT_MS, fork() failed)
 */
int nsock_init(struct ctx *ctx, bool tcp, bool udp)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_NS_HELPER };
	struct epoll_event ev = { .events = EPOLLIN };
	pid_t parent = getpid(), pid;
	struct nsock_msg m = { 0 };
	unsigned fam;
	int sv[2], ret;

	if (ctx->ns_fd < 0)
		return -EINVAL;
	if (nsock_sock >= 0)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;

	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	if (!pid)
		nsock_helper(sv[1], ctx->ns_fd, parent, &ctx->c);  /* no return */

	close(sv[1]);
	nsock_sock = sv[0];
	nsock_helper_pid = pid;
	ret = nsock_wait(NSOCK_WAIT_MS * 5);
	if (ret == 1 && recv(nsock_sock, &m, sizeof(m), 0) == sizeof(m))
		ret = m.err;
	else
		ret = ret < 0 ? ret : -ETIMEDOUT;
	if (ret < 0)
		goto fail;

	ref.fd = (uint32_t)nsock_sock & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, nsock_sock, &ev)) {
		ret = -errno;
		goto fail;
	}

	nsock_on = (tcp ? 0x3U : 0) | (udp ? 0xcU : 0);
	for (fam = 0; fam < NSOCK_FAMS; fam++) {
		if (!(nsock_on & (1U << fam)))
			continue;
		nsock_err[fam] = 0;
		nsock_fill_wait(fam);
	}
	/* Other pools' replies may still be on their way */
	for (;;) {
		bool pending = false;

		for (fam = 0; fam < NSOCK_FAMS; fam++)
			pending |= !!nsock_pending[fam];
		if (!pending || nsock_wait(NSOCK_WAIT_MS) != 1 ||
		    nsock_recv() <= 0)
			break;
	}
	return 0;

fail:
	nsock_gone();
	return ret;
}
