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
 * Listening sockets for forwarded ports come out of the same limit, and
 * "all" or an exclusion-only spec asks for tens of thousands of them:
 * limits_listen_plan() gives them a budget, limits_listen_budget(), which
 * keeps LIMITS_FDS_FIXED descriptors for the daemon's own set-up (signalfd,
 * tap, UNIX socket, pid file, namespace helper...), the socket and pipe
 * pools of pasta (LIMITS_FDS_POOLS) and LIMITS_FLOWS_MIN flows
 * (LIMITS_FDS_PER_FLOW each), or half of what the fixed part leaves when
 * the limit is smaller than that.  Ports given one by one or as ranges come
 * first: if they don't fit, start-up fails naming the option.  Ports from
 * "all" and exclusion-only specs share what is left, in proportion to how
 * many each table asks for; fwd_listen() skips those beyond a table's share
 * (limits_listen_take()) and says how many in one line.  Sockets opened
 * later (-c, passt/ctl.c; "auto", passt/fwd_auto.c) come out of the same
 * budget, less what is open at the time (fwd_listen_room()), shared the
 * same way (limits_listen_share()): the limit can't be raised any more,
 * and the reserve must stay whatever is changed at run time.
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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../conf/conf.h"
#include "../lib/log.h"
#include "../lib/visible.h"
#include "limits.h"

#define NR_OPEN_PATH		"/proc/sys/fs/nr_open"
#define LIMITS_LOG_INTERVAL_MS	1000

static const char *const limit_str[LIMIT_COUNT] = {
	[LIMIT_FLOWS] = "flow table full",
	[LIMIT_FDS] = "out of file descriptors or socket memory",
};

static int limits_reserve_fd = -1;
static int limits_reserve_src = -1;

static const char *const limits_tbl_str[LIMITS_TBL_COUNT] = {
	[LIMITS_TBL_T] = "-t", [LIMITS_TBL_U] = "-u",
	[LIMITS_TBL_TNS] = "-T", [LIMITS_TBL_UNS] = "-U",
};

/**
 * struct limits_listen - Listening socket budget of one forwarding table
 * @weak_left:	Sockets ports of "all"/exclusion-only rules may still open
 * @given_left:	Sockets reserved for ports given explicitly, not open yet
 */
static struct limits_listen {
	unsigned long weak_left;
	unsigned long given_left;
} limits_listen[LIMITS_TBL_COUNT];
static bool limits_listen_planned;	/* false: no budget, take anything */

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
	if (t->auto_on)
		n += CONF_FWD_AUTO_MAX;
	return n * 2;
}

/**
 * limits_nofile_need() - File descriptors the configuration may need
 * @c:		Configuration
 *
 * Return: LIMITS_FDS_PER_FLOW per flow, one per listening socket, plus
 *	   LIMITS_FDS_FIXED
 */
VISIBLE_IF_UNIT
unsigned long limits_nofile_need(const struct conf *c)
{
	return (unsigned long)c->flow_max * LIMITS_FDS_PER_FLOW +
	       limits_table_ports(&c->tcp_in) + limits_table_ports(&c->udp_in) +
	       limits_table_ports(&c->tcp_out) +
	       limits_table_ports(&c->udp_out) + LIMITS_FDS_FIXED;
}

/**
 * limits_table_socks() - Listening sockets the rules of a table open
 * @t:		Table
 * @ns:		Namespace side (-T, -U): a rule without address opens two
 *		sockets per port there (127.0.0.1 and ::1, see fwd_listen())
 * @weak:	Count the rules of "all"/exclusion-only specs, else the others
 *
 * Return: sockets, at most one per port and family
 */
VISIBLE_IF_UNIT
unsigned long limits_table_socks(const struct fwd_table *t, bool ns,
				 bool weak)
{
	unsigned long n = 0;
	unsigned i;

	for (i = 0; i < t->n; i++) {
		const struct fwd_rule *r = &t->rules[i];
		unsigned long ports;

		if (r->weak != weak)
			continue;
		ports = (unsigned long)r->last - r->first + 1;
		n += ns && r->af == AF_UNSPEC ? ports * 2 : ports;
	}
	if (weak && t->auto_on)	/* passt/fwd_auto.c */
		n += ns && t->auto_bind.af == AF_UNSPEC ?
		     CONF_FWD_AUTO_MAX * 2 : CONF_FWD_AUTO_MAX;
	return n;
}

/**
 * limits_listen_reserve() - Descriptors kept out of the listening budget
 * @flow_max:	--flow-max
 * @pasta:	pasta mode (socket and pipe pools)
 *
 * Return: LIMITS_FDS_POOLS (pasta only) plus LIMITS_FDS_PER_FLOW for each
 *	   of LIMITS_FLOWS_MIN flows, or of @flow_max if that's less; not
 *	   counting LIMITS_FDS_FIXED
 */
static unsigned long limits_listen_reserve(unsigned flow_max, bool pasta)
{
	unsigned long flows = flow_max < LIMITS_FLOWS_MIN ? flow_max :
			      LIMITS_FLOWS_MIN;

	return flows * LIMITS_FDS_PER_FLOW + (pasta ? LIMITS_FDS_POOLS : 0);
}

/**
 * limits_listen_budget() - Listening sockets a descriptor limit allows
 * @nofile:	RLIMIT_NOFILE (soft), RLIM_INFINITY for none
 * @flow_max:	--flow-max
 * @pasta:	pasta mode
 *
 * What is left after LIMITS_FDS_FIXED descriptors, and after the reserve
 * of limits_listen_reserve(), which shrinks to half of what is left after
 * LIMITS_FDS_FIXED if the limit is too small for it.
 *
 * Return: number of listening sockets, ULONG_MAX for no limit
 */
unsigned long limits_listen_budget(unsigned long nofile, unsigned flow_max,
				   bool pasta)
{
	unsigned long avail, reserve;

	if (nofile == (unsigned long)RLIM_INFINITY)
		return ULONG_MAX;
	avail = nofile > LIMITS_FDS_FIXED ? nofile - LIMITS_FDS_FIXED : 0;
	reserve = limits_listen_reserve(flow_max, pasta);
	if (reserve > avail / 2)
		reserve = avail / 2;
	return avail - reserve;
}

/**
 * limits_listen_plan() - Split the listening budget between the tables
 * @c:		Configuration (tables, mode, --flow-max, -t/-u disabled)
 * @nofile:	RLIMIT_NOFILE (soft) once raised, RLIM_INFINITY for none
 * @why:	Message for the caller to print on failure, may be NULL
 * @len:	Size of @why
 *
 * Ports given explicitly are reserved first.  Ports from "all" and
 * exclusion-only specs share the rest, in proportion to what each table
 * asks for.
 *
 * Context: start-up, after limits_nofile_init()
 * Return: 0, or -EMFILE if the ports given explicitly don't fit (@why says
 *	   which options and the limit)
 */
int limits_listen_plan(const struct conf *c, unsigned long nofile,
		       char *why, size_t len)
{
	const struct fwd_table *t[LIMITS_TBL_COUNT] = {
		[LIMITS_TBL_T] = &c->tcp_in, [LIMITS_TBL_U] = &c->udp_in,
		[LIMITS_TBL_TNS] = &c->tcp_out, [LIMITS_TBL_UNS] = &c->udp_out,
	};
	unsigned long budget, given = 0, want[LIMITS_TBL_COUNT];
	bool pasta = c->mode == MODE_PASTA;
	char opts[16] = "";
	int i;

	budget = limits_listen_budget(nofile, c->flow_max, pasta);
	for (i = 0; i < LIMITS_TBL_COUNT; i++) {
		bool ns = i == LIMITS_TBL_TNS || i == LIMITS_TBL_UNS;
		bool udp = i == LIMITS_TBL_U || i == LIMITS_TBL_UNS;
		struct limits_listen *l = &limits_listen[i];

		want[i] = 0;
		l->given_left = l->weak_left = 0;
		if ((ns && !pasta) || (udp ? c->no_udp : c->no_tcp))
			continue;
		l->given_left = limits_table_socks(t[i], ns, false);
		want[i] = limits_table_socks(t[i], ns, true);
		given += l->given_left;
		if (l->given_left)
			snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts),
				 "%s%s", *opts ? "/" : "", limits_tbl_str[i]);
	}

	if (given > budget) {
		if (why)
			snprintf(why, len,
				 "%s: %lu listening sockets for the ports given, "
				 "but RLIMIT_NOFILE %lu leaves room for %lu (the "
				 "rest is kept for set-up and flows): raise the "
				 "limit (ulimit -n) or give fewer ports",
				 opts, given, nofile, budget);
		limits_listen_planned = false;
		return -EMFILE;
	}

	limits_listen_planned = budget != ULONG_MAX;
	{
		unsigned long share[LIMITS_TBL_COUNT];

		limits_listen_share(budget - given, want, share,
				    LIMITS_TBL_COUNT);
		for (i = 0; i < LIMITS_TBL_COUNT; i++)
			limits_listen[i].weak_left = share[i];
	}
	return 0;
}

/**
 * limits_listen_share() - Share listening sockets in proportion to wants
 * @room:	Sockets there is room for, ULONG_MAX for no limit
 * @want:	Sockets each asks for
 * @share:	Result: what each gets, @want[i] if everything fits, else
 *		@room * @want[i] / (sum of @want), rounded down
 * @n:		Number of entries
 *
 * Used at start-up (limits_listen_plan()) and for ports of "all" and
 * exclusion-only specs added at run time (passt/ctl.c).
 */
void limits_listen_share(unsigned long room, const unsigned long *want,
			 unsigned long *share, unsigned n)
{
	unsigned long long sum = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		sum += want[i];
	for (i = 0; i < n; i++) {
		if (sum <= room)
			share[i] = want[i];
		else	/* sum > room, so the quotient fits in long */
			share[i] = (unsigned long)
				((unsigned long long)room * want[i] / sum);
	}
}

/**
 * limits_listen_take() - Count listening sockets about to be opened
 * @tbl:	Table the port belongs to
 * @weak:	The port comes from "all" or an exclusion-only spec
 * @n:		Sockets for the port (1, or 2 for 127.0.0.1 and ::1)
 *
 * Return: false if a port of a weak rule doesn't fit in the table's share
 *	   any more (skip it); ports given explicitly were reserved by
 *	   limits_listen_plan() and always fit
 */
bool limits_listen_take(enum limits_tbl tbl, bool weak, unsigned n)
{
	struct limits_listen *l = &limits_listen[tbl];

	if (!limits_listen_planned)
		return true;
	if (!weak) {
		l->given_left = l->given_left > n ? l->given_left - n : 0;
		return true;
	}
	if (l->weak_left < n)
		return false;
	l->weak_left -= n;
	return true;
}

/**
 * limits_listen_put() - Give back sockets taken but not opened
 * @tbl:	Table
 * @weak:	As given to limits_listen_take()
 * @n:		Sockets that could not be opened (port in use, say)
 */
void limits_listen_put(enum limits_tbl tbl, bool weak, unsigned n)
{
	if (limits_listen_planned && weak)
		limits_listen[tbl].weak_left += n;
}

/**
 * limits_listen_opt() - Option that fills a table, for messages
 * @tbl:	Table
 *
 * Return: "-t", "-u", "-T" or "-U"
 */
const char *limits_listen_opt(enum limits_tbl tbl)
{
	return limits_tbl_str[tbl];
}

static unsigned long limits_nofile_cur;	/* as last read, 0: read again */

/**
 * limits_nofile() - Current RLIMIT_NOFILE (soft)
 *
 * Read once and kept (limits_nofile_init() reads it again after changing
 * it): warnings of run-time paths (fwd_auto.c) quote it, and getrlimit()
 * is prlimit64(), which the seccomp filter doesn't allow.  Nothing changes
 * the limit once set-up is over.
 *
 * Context: set-up reads it (isolate_initial()); any time after
 * Return: limit, RLIM_INFINITY for none, 0 if it can't be read
 */
unsigned long limits_nofile(void)
{
	struct rlimit rl;

	if (limits_nofile_cur)
		return limits_nofile_cur;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	limits_nofile_cur = (unsigned long)rl.rlim_cur;
	return limits_nofile_cur;
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
	bool short_of;

	limits_nofile_cur = 0;	/* limits_nofile(): changed here */
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
	/* Ordinary when the flow table is big: information only if not even
	 * the minimum reserve of limits_listen_budget() fits
	 */
	short_of = rl.rlim_max < LIMITS_FDS_FIXED +
		   limits_listen_reserve(c->flow_max, c->mode == MODE_PASTA);
	log_msg(short_of ? LOG_INFO : LOG_DEBUG, false,
		"RLIMIT_NOFILE: hard limit %lu is below the %lu file "
		"descriptors %u flows may need: new flows will be refused when "
		"they run out", (unsigned long)rl.rlim_max, need, c->flow_max);
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
VISIBLE_IF_UNIT
uint64_t limits_refused_total(enum limit_kind kind)
{
	return limits_log[kind].total;
}

/**
 * limits_stats_print() - Print the new flows refused by a limit, all
 *			  protocols (--stats, SIGUSR1)
 */
void limits_stats_print(void)
{
	info_always("stats: new flows refused, all protocols: flow table full %lu, out of descriptors or socket memory %lu",
		    (unsigned long)limits_refused_total(LIMIT_FLOWS),
		    (unsigned long)limits_refused_total(LIMIT_FDS));
}
