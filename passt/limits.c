// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/limits.c - Resource limits: descriptor budget, refusing new flows
 *
 * DOC: Theory of Operation
 *
 * Everything the daemon holds is bounded by its configuration: the flow
 * table by --flow-max (allocated once), host sockets and pipes by the flows
 * that own them (at most LIMITS_FDS_PER_FLOW each), listeners by the
 * forwarding rules.  limits_nofile_init() raises RLIMIT_NOFILE, at start-up,
 * to what that adds up to (limits_nofile_need()); if the hard limit can't
 * be raised that far (no CAP_SYS_RESOURCE, or fs.nr_open), it takes what
 * there is and says so.
 *
 * When a limit is reached anyway, the new flow is refused and nothing else
 * changes: a guest SYN gets an RST, an accepted connection is reset, a
 * datagram is dropped.  Each refusal is counted (struct passt_stats) and
 * limits_refused() logs at most one line per second per kind of limit,
 * with the number of refusals since the previous line.
 *
 * accept4() failing with EMFILE leaves the connection in the listen queue,
 * and the level-triggered listener would wake the loop again at once.
 * limits_accept_refuse() frees a reserve descriptor kept for this (a
 * duplicate of the epoll fd, made with fcntl(F_DUPFD_CLOEXEC), which
 * needs no file system), accepts the connection, resets it, and takes the
 * reserve back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../conf/conf.h"
#include "../conf/log.h"
#include "limits.h"

#define NR_OPEN_PATH		"/proc/sys/fs/nr_open"
#define LIMITS_LOG_INTERVAL_MS	1000

static const char *const limit_str[LIMIT_COUNT] = {
	[LIMIT_FLOWS] = "flow table full",
	[LIMIT_FDS] = "out of file descriptors or socket memory",
};

static int limits_reserve_fd = -1;
static int limits_reserve_src = -1;

/**
 * struct limits_log - Rate limiting state of one kind of refusal
 * @last_ms:	Time of the last line, ms (CLOCK_MONOTONIC), 0: none yet
 * @pending:	Refusals not reported in a line yet
 * @total:	Refusals since start
 */
static struct limits_log {
	int64_t last_ms;
	uint64_t pending;
	uint64_t total;
} limits_log[LIMIT_COUNT];

/**
 * limits_table_ports() - Listening sockets a forwarding table may open
 * @t:		Table
 *
 * Return: ports in all rules, doubled (a rule without address may open one
 *	   socket per family)
 */
static unsigned long limits_table_ports(const struct fwd_table *t)
{
	unsigned long n = 0;
	unsigned i;

	for (i = 0; i < t->n; i++)
		n += (unsigned long)t->rules[i].last - t->rules[i].first + 1;
	return n * 2;
}

/**
 * limits_nofile_need() - File descriptors the configuration may need
 * @c:		Configuration
 *
 * Return: LIMITS_FDS_PER_FLOW per flow, one per listening socket, plus
 *	   LIMITS_FDS_FIXED
 */
unsigned long limits_nofile_need(const struct conf *c)
{
	return (unsigned long)c->flow_max * LIMITS_FDS_PER_FLOW +
	       limits_table_ports(&c->tcp_in) + limits_table_ports(&c->udp_in) +
	       limits_table_ports(&c->tcp_out) +
	       limits_table_ports(&c->udp_out) + LIMITS_FDS_FIXED;
}

/**
 * limits_nr_open() - System-wide cap on RLIMIT_NOFILE (fs.nr_open)
 *
 * Return: value, or 1048576 (the kernel default) if it can't be read
 */
static unsigned long limits_nr_open(void)
{
	unsigned long v = 1048576;
	char buf[32];
	ssize_t n;
	int fd;

	fd = open(NR_OPEN_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return v;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		v = strtoul(buf, NULL, 10);
	}
	return v;
}

/**
 * limits_nofile_init() - Raise RLIMIT_NOFILE to what the flow table needs
 * @c:		Configuration
 *
 * Never lowers a limit.  Raising the hard limit needs CAP_SYS_RESOURCE; if
 * that fails the soft limit goes up to the hard one and a warning says how
 * many descriptors are missing.
 *
 * Context: start-up, before capabilities are dropped
 * Return: 0, or -errno from getrlimit()/setrlimit()
 */
int limits_nofile_init(const struct conf *c)
{
	unsigned long need = limits_nofile_need(c), cap = limits_nr_open();
	struct rlimit rl, want;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (need > cap)
		need = cap;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= need)
		return 0;

	want.rlim_cur = need;
	want.rlim_max = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ?
			rl.rlim_max : need;
	if (!setrlimit(RLIMIT_NOFILE, &want)) {
		debug("RLIMIT_NOFILE raised to %lu", need);
		return 0;
	}
	if (errno != EPERM)
		return -errno;

	want.rlim_cur = rl.rlim_max;
	want.rlim_max = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &want))
		return -errno;
	info("RLIMIT_NOFILE: hard limit %lu is below the %lu file descriptors "
	     "%u flows may need: new flows will be refused when they run out",
	     (unsigned long)rl.rlim_max, need, c->flow_max);
	return 0;
}

/**
 * limits_reserve_init() - Keep a spare descriptor for refusing connections
 * @fd:		Any open descriptor to duplicate (the epoll fd)
 *
 * Return: 0, or -errno
 */
int limits_reserve_init(int fd)
{
	limits_reserve_src = fd;
	limits_reserve_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return limits_reserve_fd < 0 ? -errno : 0;
}

/**
 * limits_accept_refuse() - Reset one pending connection while out of fds
 * @listen_fd:	Listening socket whose accept4() failed with EMFILE/ENFILE
 *
 * Context: main loop
 * #syscalls accept4 setsockopt close fcntl
 * Return: 0 if a connection was taken off the queue and reset, -errno
 *	   otherwise (no reserve, or accept4() failed again)
 */
int limits_accept_refuse(int listen_fd)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };
	int s, ret = 0;

	if (limits_reserve_fd < 0) {
		if (limits_reserve_src < 0)
			return -EBADF;
		limits_reserve_fd = fcntl(limits_reserve_src, F_DUPFD_CLOEXEC, 0);
		if (limits_reserve_fd < 0)
			return -EMFILE;
	}
	close(limits_reserve_fd);
	limits_reserve_fd = -1;

	s = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (s < 0) {
		ret = -errno;
	} else {
		setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(s);
	}

	if (limits_reserve_src >= 0)
		limits_reserve_fd = fcntl(limits_reserve_src, F_DUPFD_CLOEXEC, 0);
	return ret;
}

/**
 * limits_refused() - Count a refused flow, log at most once per second
 * @now:	Current time, ms (CLOCK_MONOTONIC)
 * @kind:	Which limit
 * @what:	What was refused ("TCP connection from the guest"...)
 */
void limits_refused(int64_t now, enum limit_kind kind, const char *what)
{
	struct limits_log *l = &limits_log[kind];

	l->total++;
	l->pending++;
	if (l->last_ms && now - l->last_ms < LIMITS_LOG_INTERVAL_MS)
		return;
	warn("%s: refusing new flows (%lu since the last message, last: %s)",
	     limit_str[kind], (unsigned long)l->pending, what);
	l->last_ms = now ? now : 1;
	l->pending = 0;
}

/**
 * limits_refused_total() - Refusals of one kind since start
 * @kind:	Which limit
 *
 * Return: count
 */
uint64_t limits_refused_total(enum limit_kind kind)
{
	return limits_log[kind].total;
}
