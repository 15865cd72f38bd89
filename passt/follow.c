// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/follow.c - Follow the host's network while running
 *
 * DOC: Theory of Operation
 *
 * Unless --no-follow-host, follow_init() opens, before isolation and in
 * the host's network namespace, a libnl cache manager on the host's links,
 * addresses and routes (lib/netlink.c, netlink_watch_open()), and starts a
 * resolv.conf helper (follow_resolv_start()).  The helper, a child forked
 * then, holds an inotify instance watching resolv.conf, its directory
 * (tools replace the file: IN_MOVED_TO, IN_CREATE) and, if it is a
 * symbolic link, the directory of its target; the file itself stays open
 * there, and so does each directory (O_PATH), to read the file again once
 * the file system is gone from view (isolate_helper(): an empty root, the
 * --runas user or nobody, no capability).  Its seccomp filter allows
 * openat() relative to those directories only, read-only and without
 * following a symbolic link (a replaced resolv.conf that is a link to
 * another place isn't found again: the directory of its first target is
 * watched, see follow_resolv_init()).  On each event about the file it
 * reads it again and sends what it says (struct resolv_conf) over a
 * SOCK_SEQPACKET socketpair.  The daemon itself keeps no directory and
 * opens no file: its end of the socketpair and the netlink socket are in
 * its epoll set.
 *
 * Each notification only marks a change (follow_settle_event()) and asks
 * for a timer: once no notification came for FOLLOW_QUIET_MS (or
 * FOLLOW_MAX_WAIT_MS after the first of a flood), follow_apply() derives
 * the configuration again with the rules used at start (conf/follow.c,
 * follow_derive()), logs one info line per change, and puts the new
 * values in place: DNS forwarding, DHCP, DHCPv6 and NDP read them from
 * the configuration at every use, so they follow at once; a changed IPv6
 * configuration restarts the router advertisement schedule (an RA goes
 * out at once, with the old prefix and lifetimes 0 if the prefix changed:
 * ndp_ra_prefix_gone()); pasta --config-net updates the namespace's addresses and
 * routes through its configuration helper (passt/nsconf.c); TCP
 * connections whose host-side address the host no longer has are reset,
 * UDP and ICMP echo flows closed (flow_host_changed()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cap-ng.h>

#include "../conf/follow.h"
#include "../lib/log.h"
#include "../lib/netlink.h"
#include "../conf/host.h"
#include "../conf/resolv.h"
#include "../tap/services.h"
#include "../tap/guest.h"
#include "../tap/tap.h"
#include "flow.h"
#include "follow.h"
#include "isolation.h"
#include "nsconf.h"
#include "signals.h"

#define FOLLOW_RESOLV_DIRS	FOLLOW_DIRS_MAX	/* resolv.conf's, its target's */

static struct follow_settle follow_settle;
static struct resolv_conf follow_resolv;	/* what resolv.conf says */
static int follow_nl_fd = -1;
static int follow_resolv_sock = -1;		/* daemon: to the helper */
/* The resolv.conf helper's own */
static int follow_in_fd = -1;			/* inotify */
static int follow_file_wd = -1;			/* watch on the file */
static int follow_file_fd = -1;			/* the file, open */
static int follow_dir_wd[FOLLOW_RESOLV_DIRS] = { -1, -1 };
static int follow_dir_fd[FOLLOW_RESOLV_DIRS] = { -1, -1 };
static char follow_base[FOLLOW_RESOLV_DIRS][NAME_MAX + 1];

/**
 * follow_epoll_add() - Register one of our fds with the main loop
 * @ctx:	Context
 * @fd:		File descriptor
 * @type:	EPOLL_TYPE_FOLLOW_NL or EPOLL_TYPE_FOLLOW_RESOLV
 *
 * Return: 0 or -errno
 */
static int follow_epoll_add(struct ctx *ctx, int fd, enum epoll_type type)
{
	union epoll_ref ref = { .type = type,
				.fd = (uint32_t)fd & EPOLL_REF_FD_MAX };
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = ref.u64 };

	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	return 0;
}

/**
 * follow_dir_add() - Watch a directory for a file name, keep it open
 * @i:		Slot, below FOLLOW_RESOLV_DIRS
 * @path:	Path of the file (its directory is watched)
 *
 * Context: set-up, before isolation
 */
static void follow_dir_add(unsigned i, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
		snprintf(follow_base[i], sizeof(follow_base[i]), "%s", path);
	} else {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		if (!dir[0])
			snprintf(dir, sizeof(dir), "/");
		snprintf(follow_base[i], sizeof(follow_base[i]), "%s",
			 slash + 1);
	}
	follow_dir_wd[i] = inotify_add_watch(follow_in_fd, dir,
					     IN_CREATE | IN_MOVED_TO |
					     IN_CLOSE_WRITE | IN_MODIFY |
					     IN_DELETE | IN_MOVED_FROM |
					     IN_ONLYDIR);
	if (follow_dir_wd[i] < 0)
		debug_perror("inotify on %s", dir);
	follow_dir_fd[i] = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/**
 * follow_resolv_init() - Watch resolv.conf and read it a first time
 *
 * Context: the resolv.conf helper, before it detaches from the file system
 */
static void follow_resolv_init(void)
{
	char real[PATH_MAX];

	follow_in_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (follow_in_fd < 0) {
		warn_perror("inotify: resolv.conf changes won't be seen");
		return;
	}
	follow_file_fd = open(resolv_path, O_RDONLY | O_CLOEXEC);
	follow_file_wd = inotify_add_watch(follow_in_fd, resolv_path,
					   IN_MODIFY | IN_CLOSE_WRITE |
					   IN_ATTRIB | IN_DELETE_SELF |
					   IN_MOVE_SELF);
	follow_dir_add(0, resolv_path);
	if (realpath(resolv_path, real) && strcmp(real, resolv_path))
		follow_dir_add(1, real);
	if (follow_file_fd >= 0)
		resolv_read_fd(follow_file_fd, &follow_resolv);
	else
		resolv_read(resolv_path, &follow_resolv);
}

/**
 * follow_dir_fds() - Directories the helper keeps open to find resolv.conf
 * @fds:	Filled with their fds, FOLLOW_DIRS_MAX entries at most
 *
 * For the helper's seccomp filter (isolate_seccomp_helper_dirs()):
 * openat() is allowed relative to these only, with FOLLOW_OPEN_FLAGS.
 *
 * Return: number of fds
 */
static unsigned follow_dir_fds(int *fds)
{
	unsigned i, n = 0;

	for (i = 0; i < FOLLOW_RESOLV_DIRS; i++) {
		if (follow_dir_fd[i] >= 0)
			fds[n++] = follow_dir_fd[i];
	}
	return n;
}

/**
 * follow_inotify_read() - Drain the inotify queue: is resolv.conf involved?
 *
 * Context: the resolv.conf helper
 * #syscalls:helper read
 * Return: true if an event concerns resolv.conf (or the queue overflowed)
 */
static bool follow_inotify_read(void)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool hit = false;
	ssize_t n;

	while ((n = read(follow_in_fd, buf, sizeof(buf))) > 0) {
		const char *p = buf;

		while (p + sizeof(struct inotify_event) <= buf + n) {
			const struct inotify_event *ev = (const void *)p;
			unsigned i;

			if (ev->mask & IN_Q_OVERFLOW || ev->wd == follow_file_wd)
				hit = true;
			for (i = 0; i < FOLLOW_RESOLV_DIRS; i++) {
				if (ev->wd == follow_dir_wd[i] && ev->len &&
				    !strncmp(ev->name, follow_base[i], ev->len))
					hit = true;
			}
			p += sizeof(struct inotify_event) + ev->len;
		}
	}
	return hit;
}

/**
 * follow_resolv_reread() - Read resolv.conf again, the new file if replaced
 *
 * The open file is read unless it has no name left (replaced or removed):
 * then the name is opened again in the directories kept open, the
 * target's first.  A file that can't be read leaves the last contents
 * (nothing is logged: the helper's filter has no write()).
 *
 * Context: the resolv.conf helper
 * #syscalls:helper fstat newfstatat close
 * (openat: a rule of its own, isolate_seccomp_helper_dirs())
 */
static void follow_resolv_reread(void)
{
	struct stat st;
	int i;

	if (follow_file_fd < 0 || fstat(follow_file_fd, &st) ||
	    !st.st_nlink) {
		for (i = FOLLOW_RESOLV_DIRS - 1; i >= 0; i--) {
			int fd;

			if (follow_dir_fd[i] < 0)
				continue;
			fd = openat(follow_dir_fd[i], follow_base[i],
				    FOLLOW_OPEN_FLAGS);
			if (fd < 0)
				continue;
			if (follow_file_fd >= 0)
				close(follow_file_fd);
			follow_file_fd = fd;
			break;
		}
	}
	if (follow_file_fd >= 0)	/* on failure, what it said stays */
		resolv_read_fd(follow_file_fd, &follow_resolv);
}

/**
 * follow_resolv_helper() - Body of the resolv.conf helper
 * @fd:		Helper's end of the socketpair
 * @ctx:	Context (--runas)
 *
 * Watches resolv.conf (follow_resolv_init()), detaches (isolate_helper():
 * empty root, --runas user or nobody), drops every capability, sets
 * no_new_privs and its seccomp filter, sends the daemon what the file
 * said when the watches were set, then, on each inotify event about the
 * file, reads it again (follow_resolv_reread()) and sends what it says,
 * one struct resolv_conf per message.  It exits when the
 * daemon's end is closed, and dies with the daemon (PR_SET_PDEATHSIG).
 *
 * Context: forked child; never returns
 * #syscalls:helper poll ppoll recvfrom sendto exit_group brk mmap munmap
 * #syscalls:helper exit rt_sigreturn restart_syscall
 */
static void follow_resolv_helper(int fd, const struct ctx *ctx)
{
	int fds[FOLLOW_DIRS_MAX];
	struct pollfd pfd[2];
	unsigned n;

	/* Silent: its filter has no write() (the resolv.conf parser's debug
	 * lines would kill it)
	 */
	log_level = -1;
	log_trace_on = false;
	signals_unblock_child();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, ctx->c.mode == MODE_PASTA ? "pasta-resolv" :
						       "passt-resolv");
	if (fd > 3)
		close_range(3, (unsigned)fd - 1, 0);
	close_range((unsigned)fd + 1, ~0U, 0);

	follow_resolv_init();
	if (follow_in_fd < 0)
		_exit(1);
	if (isolate_helper(&ctx->c))
		_exit(1);
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_apply(CAPNG_SELECT_BOTH))
		_exit(1);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	n = follow_dir_fds(fds);
	if (isolate_seccomp_helper_dirs(fds, n, FOLLOW_OPEN_FLAGS) < 0)
		_exit(1);

	/* What it said when the watches were set: a change since the
	 * daemon's own first read isn't missed
	 */
	if (send(fd, &follow_resolv, sizeof(follow_resolv), MSG_NOSIGNAL) < 0)
		_exit(0);

	pfd[0].fd = fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = follow_in_fd;
	pfd[1].events = POLLIN;
	for (;;) {
		char c;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (pfd[0].revents) {	/* nothing comes: the daemon is gone */
			ssize_t r = recv(fd, &c, sizeof(c), MSG_DONTWAIT);

			if (!r || (r < 0 && errno != EAGAIN && errno != EINTR))
				_exit(0);
		}
		if ((pfd[1].revents & POLLIN) && follow_inotify_read()) {
			follow_resolv_reread();
			if (send(fd, &follow_resolv, sizeof(follow_resolv),
				 MSG_NOSIGNAL) < 0 && errno == EPIPE)
				_exit(0);
		}
	}
}

/**
 * follow_resolv_start() - Fork the resolv.conf helper
 * @ctx:	Context
 *
 * Context: set-up, before isolation.  A failure is a warning: the name
 * servers then stay those of the start.
 */
static void follow_resolv_start(struct ctx *ctx)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		warn_perror("resolv.conf helper: socketpair");
		return;
	}
	pid = fork();
	if (pid < 0) {
		warn_perror("resolv.conf helper: fork");
		close(sv[0]);
		close(sv[1]);
		return;
	}
	if (!pid) {
		close(sv[0]);
		follow_resolv_helper(sv[1], ctx);	/* no return */
	}
	close(sv[1]);
	follow_resolv_sock = sv[0];
}

/**
 * follow_resolv_recv() - Take what the helper sent: resolv.conf changed
 * @ctx:	Context
 *
 * The last message of those queued wins; one that says what we have
 * already (both sides zero the whole struct before reading) changes
 * nothing.  If the helper is gone, its socket leaves the epoll set, with
 * a warning: the name servers stay.
 *
 * #syscalls recvfrom epoll_ctl close
 * Return: true if a different struct resolv_conf was taken
 */
static bool follow_resolv_recv(struct ctx *ctx)
{
	static struct resolv_conf r;
	bool got = false;
	unsigned i;
	ssize_t n;

	while ((n = recv(follow_resolv_sock, &r, sizeof(r), MSG_DONTWAIT)) > 0) {
		if (n != sizeof(r))
			continue;
		r.ns4_count = MIN(r.ns4_count, (unsigned)RESOLV_MAX_NS);
		r.ns6_count = MIN(r.ns6_count, (unsigned)RESOLV_MAX_NS);
		r.search_count = MIN(r.search_count, (unsigned)CONF_MAX_SEARCH);
		for (i = 0; i < CONF_MAX_SEARCH; i++)
			r.search[i][CONF_SEARCH_LEN - 1] = '\0';
		if (!memcmp(&r, &follow_resolv, sizeof(r)))
			continue;	/* the same (its first message, usually) */
		follow_resolv = r;
		got = true;
	}
	if (!n || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		warn("resolv.conf helper gone: name servers won't follow");
		epoll_ctl(ctx->epollfd, EPOLL_CTL_DEL, follow_resolv_sock, NULL);
		close(follow_resolv_sock);
		follow_resolv_sock = -1;
	}
	return got;
}

/**
 * follow_init() - Start watching the host's network, unless --no-follow-host
 * @ctx:	Context, epoll instance ready
 *
 * Context: set-up, in the host's network namespace, before isolation (the
 * netlink socket and the resolv.conf helper must be made then: the
 * seccomp filter and the empty root come later).  Failures are warnings:
 * the daemon runs on, with what it derived at start.
 */
void follow_init(struct ctx *ctx)
{
	if (ctx->c.no_follow_host) {
		debug("--no-follow-host: the start-up configuration stays");
		return;
	}

	follow_nl_fd = netlink_watch_open();
	if (follow_nl_fd < 0) {
		warn("can't watch the host's routes and addresses: %s",
		     strerror(-follow_nl_fd));
		follow_nl_fd = -1;
	} else if (follow_epoll_add(ctx, follow_nl_fd, EPOLL_TYPE_FOLLOW_NL)) {
		warn_perror("epoll_ctl on the netlink watch");
	}

	if (resolv_read(resolv_path, &follow_resolv))
		debug("resolv.conf: can't read it now");
	follow_resolv_start(ctx);
	if (follow_resolv_sock >= 0 &&
	    follow_epoll_add(ctx, follow_resolv_sock, EPOLL_TYPE_FOLLOW_RESOLV))
		warn_perror("epoll_ctl on the resolv.conf helper's socket");

	nsconf_init(ctx);
}

/**
 * follow_handler() - A notification from the host: mark it, wait to settle
 * @ctx:	Context
 * @ref:	epoll reference (EPOLL_TYPE_FOLLOW_NL or _RESOLV)
 */
void follow_handler(struct ctx *ctx, union epoll_ref ref)
{
	bool hit = false;

	if (ref.type == EPOLL_TYPE_FOLLOW_NL) {
		int rc = netlink_watch_read();

		trace("netlink watch: %d", rc);

		if (rc < 0) {
			debug("netlink watch: %s", strerror(-rc));
			hit = true;
		}
		hit = hit || rc > 0;
	} else if (follow_resolv_sock >= 0 && follow_resolv_recv(ctx)) {
		hit = true;
	}
	if (!hit)
		return;
	follow_settle_event(&follow_settle, ctx->now);
	timer_want(ctx, follow_settle_due(&follow_settle));
}

/**
 * follow_line() - Log one change
 * @msg:	Line
 */
static void follow_line(const char *msg)
{
	info("%s", msg);
}

/**
 * follow_apply() - Derive again, log and put in place what changed
 * @ctx:	Context
 */
static void follow_apply(struct ctx *ctx)
{
	static struct conf next;
	struct in_addr old4;
	struct in6_addr old6;
	int rc, old6_plen;
	bool v6;

	rc = follow_derive(&ctx->c, &next, &follow_resolv,
			   follow_nl_fd >= 0 ? netlink_watch_derive : NULL);
	if (rc)
		debug("host changed, but its addresses can't be derived: %s",
		      strerror(-rc));
	else if (follow_nl_fd >= 0)
		debug("host: %s", netlink_host_summary());
	if (!follow_diff(&ctx->c, &next, follow_line)) {
		if (follow_nl_fd >= 0)	/* a secondary address may be gone */
			flow_host_changed(ctx, netlink_watch_has_addr);
		return;
	}

	v6 = memcmp(&ctx->c.ip6, &next.ip6, sizeof(next.ip6));
	old4 = ctx->c.ip4.addr;
	old6 = ctx->c.ip6.addr;
	old6_plen = ctx->c.ip6.prefix_len;
	ctx->c.ip4 = next.ip4;
	ctx->c.ip6 = next.ip6;
	memcpy(ctx->c.search, next.search, sizeof(next.search));
	ctx->c.search_count = next.search_count;

	if (follow_nl_fd >= 0) {	/* connections from a lost address */
		flow_host_changed(ctx, netlink_watch_has_addr);
		tap_flush();	/* RSTs out before the namespace drops it */
	}
	if (v6 && ctx->c.ip6.enabled && !ctx->c.no_ra && !ctx->c.no_ndp) {
		/* new prefix or gateway: tell at once, old prefix deprecated */
		if (!IN6_IS_ADDR_UNSPECIFIED(&old6) &&
		    (old6_plen != ctx->c.ip6.prefix_len ||
		     memcmp(&old6, &ctx->c.ip6.addr, sizeof(old6))))
			ndp_ra_prefix_gone(&old6, old6_plen);
		else
			ndp_ra_restart();
	}
	if (nsconf_running()) {
		/* the namespace drops them: inbound goes to the new ones */
		if (old4.s_addr != ctx->c.ip4.addr.s_addr)
			tap_guest_forget(AF_INET, &old4);
		if (memcmp(&old6, &ctx->c.ip6.addr, sizeof(old6)))
			tap_guest_forget(AF_INET6, &old6);
	}
	nsconf_update(ctx);
}

/**
 * follow_timer() - From the main loop's timer: act once changes settled
 * @ctx:	Context
 */
void follow_timer(struct ctx *ctx)
{
	if (follow_settle_take(&follow_settle, ctx->now))
		follow_apply(ctx);
	else if (follow_settle.pending)
		timer_want(ctx, follow_settle_due(&follow_settle));
}
