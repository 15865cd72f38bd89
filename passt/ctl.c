// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/ctl.c - Port forwarding changes at run time: the -c socket, for
 * pesto(1)
 *
 * With -c PATH, a SOCK_STREAM UNIX socket listens at PATH (mode 0600), and
 * speaks upstream's pesto protocol (conf/wire.h).  One client at a time;
 * its UID (SO_PEERCRED) must be the one that started us (else it is closed
 * without a word).  Others wait in the backlog: the listening socket isn't
 * watched meanwhile.  A client gets our hello and tables, then sends
 * binary replacement tables (no reply), or, ours, a text request
 * (passt/ctl.h), which gets a reply.  Everything is read and written
 * without blocking, from the main loop: a client that stalls for
 * CTL_CLIENT_TIMEOUT_S is closed, and blocks neither traffic nor (after
 * that) the next client.  A complete request is carried out after the
 * batch of epoll events it came in, so that no event of that batch refers
 * to a listening socket closed meanwhile.
 *
 * A request is applied to copies of the four tables first: any malformed
 * line, unknown option or side, or conflict (conf/ports.c), or binary
 * tables ours can't hold (conf/wire.c), gives an error reply (binary: a
 * warning in the log) and leaves everything as it was.  Then, per table:
 *  - listening sockets of the old rules whose port and bind address (and
 *    interface) are still covered by a new rule stay open, and are moved
 *    to that rule (EPOLL_CTL_MOD of their reference, which holds the rule
 *    index): connections keep going, and a port whose target changed
 *    takes the new target for new connections;
 *  - ports of new rules without such a socket get one; if a port of a
 *    rule other than "all" and exclusion-only ones can't be bound, the
 *    sockets opened for the request are closed and the reply says which
 *    port and why: again nothing changes;
 *  - sockets no rule covers any more are closed: accepted TCP connections
 *    go on (a listening socket's close doesn't touch them), UDP flows that
 *    reply through the socket are closed with it.
 * "auto" turned on or off takes effect at the next scan (passt/fwd_auto.c),
 * within a second.
 *
 * Listening sockets opened at run time come out of the same budget as at
 * start-up (limits_listen_budget(), passt/limits.c): whatever the change,
 * the descriptors RLIMIT_NOFILE keeps for flows, the pools and set-up (the
 * -c socket and its client included) stay free, as the limit can't be
 * raised after start-up.  Sockets for new ports given explicitly must fit
 * in the budget while the old ones are still open (old sockets of "all"
 * and exclusion-only rules that go away are closed first if that makes
 * room, and opened again if the change is refused), else the request is
 * refused naming RLIMIT_NOFILE and nothing changes.  Ports of "all" and
 * exclusion-only rules are opened last, once the old sockets are closed,
 * sharing what is left in proportion to what each table misses (and to
 * what "auto" may still open), as at start-up; those that don't fit are
 * skipped, and the reply and the log say how many.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../lib/log.h"
#include "../conf/ports.h"
#include "../conf/wire.h"
#include "ctl.h"
#include "epoll_ref.h"
#include "fwd.h"
#include "fwd_auto.h"
#include "isolation.h"
#include "limits.h"
#include "ctx.h"
#include "restart.h"
#include "sockfile.h"
#include "udp.h"

static int ctl_listen_fd = -1;
static int ctl_conn_fd = -1;
static uid_t ctl_owner;			/* UID that started us */

static char ctl_rep[CTL_REP_MAX];
static size_t ctl_rep_len;
static char ctl_note[512];		/* ports a change skipped, for the reply */

/**
 * struct ctl_conn - The client being served
 * @deadline:	Time (ms, CLOCK_MONOTONIC) it is closed at, whatever it does
 * @in_len:	Bytes of request in ctl_in
 * @eof:	The client ended its side
 * @ready:	A complete request waits for ctl_process()
 * @out_len:	Bytes to send in ctl_outb
 * @out_off:	Bytes of them sent
 * @closing:	Close once @out_len bytes are sent
 */
static struct ctl_conn {
	int64_t deadline;
	size_t in_len;
	bool eof;
	bool ready;
	size_t out_len;
	size_t out_off;
	bool closing;
} ctl_c;

#define CTL_IN_MAX	(WIRE_MAX_FRAME)
#define CTL_OUT_MAX	(WIRE_MAX_FRAME > CTL_REP_MAX ? WIRE_MAX_FRAME : \
			 CTL_REP_MAX)
static uint8_t ctl_in[CTL_IN_MAX + 1];
static uint8_t ctl_outb[CTL_OUT_MAX];
static struct wire_pif ctl_pifs[WIRE_PIF_MAX];

/* Scratch: the tables being built, and their sockets */
static struct fwd_table ctl_new[FWD_TBLS];
static struct fwd_socks ctl_reg[FWD_TBLS][CONF_MAX_FWD_RULES];
static uint64_t ctl_have[65536 / 64];

static const char ctl_opt[FWD_TBLS] = { 't', 'u', 'T', 'U' };

/**
 * ctl_out() - Append to the reply
 * @fmt:	printf() format, then its arguments
 */
__attribute__((format(printf, 1, 2)))
static void ctl_out(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ctl_rep_len >= sizeof(ctl_rep) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(ctl_rep + ctl_rep_len, sizeof(ctl_rep) - ctl_rep_len,
		      fmt, ap);
	va_end(ap);
	if (n > 0)
		ctl_rep_len = MIN(ctl_rep_len + (size_t)n, sizeof(ctl_rep) - 1);
}

/**
 * ctl_table() - A table of the configuration
 * @c:		Configuration
 * @i:		enum fwd_tbl
 *
 * Return: the table
 */
static struct fwd_table *ctl_table(struct conf *c, unsigned i)
{
	struct fwd_table *t[FWD_TBLS] = { &c->tcp_in, &c->udp_in,
					  &c->tcp_out, &c->udp_out };

	return t[i];
}

/**
 * ctl_show() - Describe the tables in the reply
 * @c:		Configuration
 */
static void ctl_show(struct conf *c)
{
	char buf[128];
	unsigned i, j;

	for (i = 0; i < FWD_TBLS; i++) {
		const struct fwd_table *t = ctl_table(c, i);
		static uint16_t ports[CONF_FWD_AUTO_MAX];
		unsigned n;

		if (!ctl_table_usable(c, i))
			continue;
		if (!t->n && !t->auto_on)
			ctl_out("-%c none\n", ctl_opt[i]);
		for (j = 0; j < t->n; j++) {
			fwd_rule_fmt(&t->rules[j], buf, sizeof(buf));
			ctl_out("-%c %s\n", ctl_opt[i], buf);
		}
		if (!t->auto_on)
			continue;
		ctl_out("-%c auto", ctl_opt[i]);
		for (j = 0; j < t->auto_nonly; j++) {
			const struct fwd_excl *e = &t->auto_only[j];

			ctl_out("%s%u", j ? "," : ", only ", e->first);
			if (e->first != e->last)
				ctl_out("-%u", e->last);
			if (e->to != e->first)
				ctl_out(":%u", e->to);
			if (e->to != e->first && e->first != e->last)
				ctl_out("-%u", e->to + (e->last - e->first));
		}
		for (j = 0; j < t->auto_nexc; j++) {
			const struct fwd_excl *e = &t->auto_exc[j];

			if (e->first == e->last)
				ctl_out("%s%u", j ? "," : ", except ", e->first);
			else
				ctl_out("%s%u-%u", j ? "," : ", except ",
					e->first, e->last);
		}
		n = fwd_auto_ports(t, ports, CONF_FWD_AUTO_MAX);
		ctl_out(", forwarding now:%s", n ? "" : " none");
		for (j = 0; j < n; j++)
			ctl_out(" %u", ports[j]);
		ctl_out("\n");
	}
}

/**
 * ctl_socks_clear() - Empty the scratch records of sockets
 */
static void ctl_socks_clear(void)
{
	unsigned i, j;

	for (i = 0; i < FWD_TBLS; i++) {
		for (j = 0; j < CONF_MAX_FWD_RULES; j++)
			ctl_reg[i][j].n = 0;
	}
}

/**
 * ctl_find_rule() - Rule of a new table that covers a socket of an old rule
 * @t:		New table
 * @old:	Old rule
 * @port:	Port of the socket
 *
 * Return: index, or -1 if none
 */
static int ctl_find_rule(const struct fwd_table *t, const struct fwd_rule *old,
			 uint16_t port)
{
	unsigned j;

	for (j = 0; j < t->n; j++) {
		const struct fwd_rule *r = &t->rules[j];

		if (ctl_same_bind(r, old) && port >= r->first &&
		    port <= r->last)
			return (int)j;
	}
	return -1;
}

/**
 * ctl_is_old() - Was a socket there before the request?
 * @c:		Configuration (the old tables)
 * @i:		Table
 * @fd:		Socket
 *
 * Return: true if an old rule of table @i has it
 */
static bool ctl_is_old(struct conf *c, unsigned i, int fd)
{
	const struct fwd_table *t = ctl_table(c, i);
	unsigned k, m;

	for (k = 0; k < t->n; k++) {
		const struct fwd_socks *l = fwd_socks_of(i, k);

		for (m = 0; m < l->n; m++) {
			if (l->s[m].fd == fd)
				return true;
		}
	}
	return false;
}

/**
 * ctl_port_socks() - Listening sockets one port of a rule opens
 * @c:		Configuration (enabled families)
 * @r:		Rule
 * @ns:		Namespace side: no address means 127.0.0.1 and ::1
 *
 * Return: 1, or 2 on the namespace side for a rule without an address and
 *	   both families (fwd_listen_port())
 */
static unsigned ctl_port_socks(const struct conf *c, const struct fwd_rule *r,
			       bool ns)
{
	if (ns && r->af == AF_UNSPEC)
		return (unsigned)c->ip4.enabled + (unsigned)c->ip6.enabled;
	return 1;
}

/**
 * ctl_have_set() - Mark the ports of a record of sockets in ctl_have
 * @l:		Record
 */
static void ctl_have_set(const struct fwd_socks *l)
{
	unsigned m;

	memset(ctl_have, 0, sizeof(ctl_have));
	for (m = 0; m < l->n; m++)
		ctl_have[l->s[m].port / 64] |= 1ULL << (l->s[m].port % 64);
}

/**
 * ctl_have_get() - Is a port marked in ctl_have?
 * @port:	Port
 *
 * Return: true if so
 */
static bool ctl_have_get(unsigned port)
{
	return ctl_have[port / 64] & (1ULL << (port % 64));
}

/**
 * ctl_fill_weak() - Open the missing ports of "all" and exclusion-only
 *		     rules of the tables in use, within the listening budget
 * @ctx:	Context
 * @mask:	Tables to fill, bit (1 << enum fwd_tbl): those a change
 *		touched, so that ports skipped before (at start-up, say) are
 *		not reported again at every change
 * @note:	Where to say what was skipped, NULL for the log only
 * @len:	Size of @note
 *
 * What fwd_listen() does at start-up, at run time: the room the listening
 * budget of RLIMIT_NOFILE leaves (fwd_listen_room()) is shared between the
 * tables in proportion to the sockets their weak rules miss, and to what
 * "auto" of each table may still open (fwd_auto_headroom(), counted as at
 * start-up); ports beyond a table's share are skipped, with one line per
 * table.  Ports that can't be bound are skipped silently.
 *
 * Context: main loop, on the tables in use (after a change, or after a
 *	    change was rolled back)
 */
static void ctl_fill_weak(struct ctx *ctx, unsigned mask, char *note,
			  size_t len)
{
	unsigned long want[FWD_TBLS * 2], share[FWD_TBLS * 2];
	struct conf *c = &ctx->c;
	unsigned i, j, m;

	if (note && len)
		*note = '\0';
	for (i = 0; i < FWD_TBLS; i++) {
		const struct fwd_table *t = ctl_table(c, i);
		bool ns = i >= FWD_TBL_TNS;

		want[i] = want[FWD_TBLS + i] = 0;
		if (!ctl_table_usable(c, i))
			continue;
		want[FWD_TBLS + i] = fwd_auto_headroom(t);
		if (!(mask & (1U << i)))
			continue;
		for (j = 0; j < t->n; j++) {
			const struct fwd_rule *r = &t->rules[j];
			unsigned long need;

			if (!r->weak)
				continue;
			need = ((unsigned long)r->last - r->first + 1) *
			       ctl_port_socks(c, r, ns);
			m = fwd_socks_of(i, j)->n;
			want[i] += need > m ? need - m : 0;
		}
	}
	limits_listen_share(fwd_listen_room(c), want, share, FWD_TBLS * 2);

	for (i = 0; i < FWD_TBLS; i++) {
		const struct fwd_table *t = ctl_table(c, i);
		bool udp = i == FWD_TBL_U || i == FWD_TBL_UNS;
		unsigned long taken = 0, skipped = 0, opened = 0;
		bool ns = i >= FWD_TBL_TNS;

		if (!want[i])
			continue;
		for (j = 0; j < t->n; j++) {
			const struct fwd_rule *r = &t->rules[j];
			struct fwd_socks *l = fwd_socks_of(i, j);
			unsigned socks = ctl_port_socks(c, r, ns), p;

			if (!r->weak)
				continue;
			ctl_have_set(l);
			for (p = r->first; p <= r->last; p++) {
				unsigned before = l->n;

				if (ctl_have_get(p)) {
					opened++;
					continue;
				}
				if (taken + socks > share[i]) {
					skipped++;
					continue;
				}
				fwd_auto_drop_port(ctx, t, (uint16_t)p);
				if (!fwd_listen_port(ctx, udp ? IPPROTO_UDP :
						     IPPROTO_TCP, r, j,
						     (uint16_t)p, ns, ns, l))
					opened++;
				taken += l->n - before;
			}
		}
		if (!skipped)
			continue;
		warn("-%c: %lu ports skipped, RLIMIT_NOFILE %lu leaves no more "
		     "descriptors for listening sockets (%lu ports bound): "
		     "raise the limit (ulimit -n) to forward them",
		     ctl_opt[i], skipped, limits_nofile(), opened);
		if (note && strlen(note) + 1 < len)
			snprintf(note + strlen(note), len - strlen(note),
				 "-%c: %lu ports skipped, RLIMIT_NOFILE %lu "
				 "leaves no more descriptors for listening "
				 "sockets (%lu ports bound)\n",
				 ctl_opt[i], skipped, limits_nofile(), opened);
	}
}

/**
 * ctl_close_weak_gone() - Close the sockets of "all" and exclusion-only
 *			   rules that no new rule covers, before the change
 * @ctx:	Context
 *
 * They go away with the change anyway, and, unlike those of ports given
 * explicitly, can be skipped: closing them first makes room in the
 * listening budget for the new ports given.  If the change is refused
 * after this, ctl_fill_weak() opens them again.
 *
 * Return: tables where sockets were closed, bit (1 << enum fwd_tbl)
 */
static unsigned ctl_close_weak_gone(struct ctx *ctx)
{
	struct conf *c = &ctx->c;
	unsigned closed = 0;
	unsigned i, k, m;

	for (i = 0; i < FWD_TBLS; i++) {
		const struct fwd_table *t = ctl_table(c, i);
		bool udp = i == FWD_TBL_U || i == FWD_TBL_UNS;

		for (k = 0; k < t->n; k++) {
			struct fwd_socks *l = fwd_socks_of(i, k);
			unsigned n = 0;

			if (!t->rules[k].weak)
				continue;
			for (m = 0; m < l->n; m++) {
				if (ctl_find_rule(&ctl_new[i], &t->rules[k],
						  l->s[m].port) >= 0) {
					l->s[n++] = l->s[m];
					continue;
				}
				if (udp)
					udp_listen_closing(ctx, l->s[m].fd);
				close(l->s[m].fd);
				closed |= 1U << i;
			}
			l->n = n;
		}
	}
	return closed;
}

/**
 * ctl_commit() - Make the new tables real: sockets moved, opened, closed
 * @ctx:	Context
 * @err:	Error message buffer
 * @len:	Its size
 *
 * Return: 0, -ENOSPC if a pif would hold more rules than upstream's
 *	   protocol carries (wire_tables_fit()), or -errno of a port that
 *	   can't be bound (nothing changed, message in @err)
 */
static int ctl_commit(struct ctx *ctx, char *err, size_t len)
{
	unsigned long given = 0, gone_weak = 0, gone = 0, room;
	struct conf *c = &ctx->c;
	unsigned i, j, k, m, closed_early = 0, changed = 0;
	char opts[16] = "";
	int ret = 0;

	if (wire_tables_fit(ctl_new, c->mode == MODE_PASTA, err, len))
		return -ENOSPC;

	ctl_socks_clear();

	/* Old sockets that stay: recorded under their new rule */
	for (i = 0; i < FWD_TBLS; i++) {
		const struct fwd_table *t = ctl_table(c, i);

		for (k = 0; k < t->n; k++) {
			const struct fwd_socks *l = fwd_socks_of(i, k);

			for (m = 0; m < l->n; m++) {
				int r = ctl_find_rule(&ctl_new[i],
						      &t->rules[k],
						      l->s[m].port);

				if (r >= 0 &&
				    fwd_socks_add(&ctl_reg[i][r], l->s[m].fd,
						  l->s[m].port)) {
					snprintf(err, len, "out of memory");
					return -ENOMEM;
				}
			}
		}
	}

	/* The listening budget of RLIMIT_NOFILE, as at start-up: sockets
	 * for new ports given explicitly must fit in it while the old
	 * sockets are still open (nothing is closed before the change can't
	 * fail any more), less those of "all" and exclusion-only rules that
	 * go away, which can be closed first.  Ports of such rules are
	 * opened once the old sockets are closed (ctl_fill_weak()).
	 */
	for (i = 0; i < FWD_TBLS; i++) {
		const struct fwd_table *t = ctl_table(c, i);
		bool ns = i >= FWD_TBL_TNS;
		unsigned long n = 0;

		for (k = 0; k < t->n; k++) {
			const struct fwd_socks *l = fwd_socks_of(i, k);

			for (m = 0; m < l->n; m++) {
				if (ctl_find_rule(&ctl_new[i], &t->rules[k],
						  l->s[m].port) >= 0)
					continue;
				gone++;
				if (t->rules[k].weak)
					gone_weak++;
			}
		}
		if (!ctl_table_usable(c, i))
			continue;
		for (j = 0; j < ctl_new[i].n; j++) {
			const struct fwd_rule *r = &ctl_new[i].rules[j];
			unsigned p;

			if (r->weak)
				continue;
			ctl_have_set(&ctl_reg[i][j]);
			for (p = r->first; p <= r->last; p++) {
				if (!ctl_have_get(p))
					n += ctl_port_socks(c, r, ns);
			}
		}
		given += n;
		if (n)
			snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts),
				 "%s-%c", *opts ? "/" : "", ctl_opt[i]);
	}
	room = fwd_listen_room(c);
	if (room != ULONG_MAX && given > room + gone_weak) {
		unsigned long open = fwd_listen_count();

		if (given > room + gone) {
			snprintf(err, len, "%s: %lu more listening sockets for "
				 "the ports given, but RLIMIT_NOFILE %lu leaves "
				 "room for %lu more (%lu are open; the rest is "
				 "kept for flows and set-up)", opts, given,
				 limits_nofile(), room + gone, open - gone);
		} else {
			snprintf(err, len, "%s: %lu more listening sockets for "
				 "the ports given, but RLIMIT_NOFILE %lu leaves "
				 "room for %lu while the %lu sockets of ports "
				 "this change removes are still open: delete "
				 "those first, then add", opts, given,
				 limits_nofile(), room + gone_weak,
				 gone - gone_weak);
		}
		return -EMFILE;
	}
	if (room != ULONG_MAX && given > room) {
		closed_early = ctl_close_weak_gone(ctx);
	}

	/* New ports given explicitly */
	for (i = 0; i < FWD_TBLS && !ret; i++) {
		bool udp = i == FWD_TBL_U || i == FWD_TBL_UNS;
		bool ns = i >= FWD_TBL_TNS;

		if (!ctl_table_usable(c, i))
			continue;
		for (j = 0; j < ctl_new[i].n && !ret; j++) {
			const struct fwd_rule *r = &ctl_new[i].rules[j];
			struct fwd_socks *l = &ctl_reg[i][j];
			unsigned p;

			if (r->weak)
				continue;
			ctl_have_set(l);
			for (p = r->first; p <= r->last; p++) {
				int rc;

				if (ctl_have_get(p))
					continue;
				fwd_auto_drop_port(ctx, ctl_table(c, i),
						   (uint16_t)p);
				rc = fwd_listen_port(ctx, udp ? IPPROTO_UDP :
						     IPPROTO_TCP, r, j,
						     (uint16_t)p, ns, ns, l);
				if (rc < 0) {
					snprintf(err, len, "%s port %u can't "
						 "be forwarded: %s",
						 udp ? "UDP" : "TCP", p,
						 strerror(-rc));
					ret = rc;
					break;
				}
			}
		}
	}

	if (ret) {
		/* Close what this request opened: nothing else changed */
		for (i = 0; i < FWD_TBLS; i++) {
			for (j = 0; j < CONF_MAX_FWD_RULES; j++) {
				struct fwd_socks *l = &ctl_reg[i][j];

				for (m = 0; m < l->n; m++) {
					if (!ctl_is_old(c, i, l->s[m].fd))
						close(l->s[m].fd);
				}
			}
		}
		/* Ports of "all" rules closed to make room: back */
		if (closed_early)
			ctl_fill_weak(ctx, closed_early, NULL, 0);
		/* ...and "auto" ports given up for new rules above: back now,
		 * not at the next scan
		 */
		fwd_auto_scan(ctx);
		return ret;
	}

	/* Moved sockets get their new rule index; gone ones are closed */
	for (i = 0; i < FWD_TBLS; i++) {
		struct fwd_table *t = ctl_table(c, i);
		bool udp = i == FWD_TBL_U || i == FWD_TBL_UNS;

		for (j = 0; j < ctl_new[i].n; j++) {
			const struct fwd_socks *l = &ctl_reg[i][j];

			for (m = 0; m < l->n; m++) {
				union epoll_ref ref = {
					.type = udp ? EPOLL_TYPE_UDP_LISTEN :
						      EPOLL_TYPE_TCP_LISTEN,
				};
				struct epoll_event ev = { .events = EPOLLIN };

				ref.fd = (uint32_t)l->s[m].fd &
					 EPOLL_REF_FD_MAX;
				ref.listen.port = l->s[m].port;
				ref.listen.rule = (uint8_t)j;
				ref.listen.ns = i >= FWD_TBL_TNS;
				ev.data.u64 = ref.u64;
				epoll_ctl(ctx->epollfd, EPOLL_CTL_MOD,
					  l->s[m].fd, &ev);
			}
		}
		for (k = 0; k < t->n; k++) {
			struct fwd_socks *l = fwd_socks_of(i, k);

			for (m = 0; m < l->n; m++) {
				if (ctl_find_rule(&ctl_new[i], &t->rules[k],
						  l->s[m].port) >= 0)
					continue;
				if (udp)
					udp_listen_closing(ctx, l->s[m].fd);
				close(l->s[m].fd);
			}
		}
		/* Swap the records: ours become fwd.c's, its old ones our
		 * (empty) scratch
		 */
		for (j = 0; j < CONF_MAX_FWD_RULES; j++) {
			struct fwd_socks *l = fwd_socks_of(i, j), tmp = *l;

			*l = ctl_reg[i][j];
			ctl_reg[i][j] = tmp;
			ctl_reg[i][j].n = 0;
		}
		if (memcmp(t, &ctl_new[i], sizeof(*t)))
			changed |= 1U << i;
		*t = ctl_new[i];
	}

	/* Ports of "all" and exclusion-only rules, now that the old sockets
	 * are closed
	 */
	ctl_fill_weak(ctx, changed, ctl_note, sizeof(ctl_note));
	return 0;
}

/**
 * ctl_run_text() - Carry out a text request, fill the reply
 * @ctx:	Context
 * @req:	Request, NUL-terminated, at most CTL_REQ_MAX bytes
 */
static void ctl_run_text(struct ctx *ctx, char *req)
{
	struct conf *c = &ctx->c;
	bool show = false, change = false;
	char err[256];
	unsigned i;

	ctl_rep_len = 0;
	for (i = 0; i < FWD_TBLS; i++)
		ctl_new[i] = *ctl_table(c, i);

	if (ctl_parse(c, req, ctl_new, &show, &change, err, sizeof(err))) {
		ctl_out("error\n%s: nothing changed\n", err);
		return;
	}

	if (change) {
		if (ctl_commit(ctx, err, sizeof(err))) {
			ctl_out("error\n%s: nothing changed\n", err);
			return;
		}
		info("-c: port forwarding changed");
	}
	ctl_out("ok\n");
	if (change)
		ctl_out("%s", ctl_note);
	if (show) {
		fwd_auto_scan(ctx);	/* "auto" as of now, not of the last tick */
		ctl_show(c);
	}
}

/**
 * ctl_run_wire() - Carry out a client's frame of replacement tables
 * @ctx:	Context
 * @len:	Length of the frame at the start of ctl_in
 *
 * The protocol has no reply: what is refused is logged, and nothing
 * changes.
 */
static void ctl_run_wire(struct ctx *ctx, size_t len)
{
	struct conf *c = &ctx->c;
	struct fwd_table cur[FWD_TBLS];
	unsigned npifs = 0, i;
	char err[256];

	if (wire_frame_get(ctl_in, len, false, ctl_pifs, &npifs, err,
			   sizeof(err)) <= 0) {
		warn("-c: refused a client's tables: %s: nothing changed",
		     err);
		return;
	}
	for (i = 0; i < FWD_TBLS; i++)
		cur[i] = *ctl_table(c, i);
	if (wire_pifs_apply(ctl_pifs, npifs, cur, ctl_new,
			    c->mode == MODE_PASTA, err, sizeof(err))) {
		warn("-c: refused a client's tables: %s: nothing changed",
		     err);
		return;
	}
	for (i = 0; i < FWD_TBLS; i++) {
		if (!ctl_table_usable(c, i) && fwd_table_on(&ctl_new[i])) {
			warn("-c: refused a client's tables: %s %s rules, "
			     "but %s is disabled: nothing changed",
			     i >= FWD_TBL_TNS ? "SPLICE" : "HOST",
			     (i & 1) ? "UDP" : "TCP", (i & 1) ? "UDP" : "TCP");
			return;
		}
	}
	if (ctl_commit(ctx, err, sizeof(err))) {
		warn("-c: refused a client's tables: %s: nothing changed",
		     err);
		return;
	}
	info("-c: port forwarding changed");
}

/**
 * ctl_listen_watch() - Watch the listening socket, or not
 * @ctx:	Context
 * @on:		Watch it (no client): a waiting client is accepted next
 */
static void ctl_listen_watch(struct ctx *ctx, bool on)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CTL_LISTEN };
	struct epoll_event ev = { .events = on ? EPOLLIN : 0 };

	ref.fd = (uint32_t)ctl_listen_fd & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	epoll_ctl(ctx->epollfd, EPOLL_CTL_MOD, ctl_listen_fd, &ev);
}

/**
 * ctl_conn_close() - Close the client connection, take the next client
 * @ctx:	Context
 */
static void ctl_conn_close(struct ctx *ctx)
{
	if (ctl_conn_fd < 0)
		return;
	epoll_ctl(ctx->epollfd, EPOLL_CTL_DEL, ctl_conn_fd, NULL);
	close(ctl_conn_fd);
	ctl_conn_fd = -1;
	memset(&ctl_c, 0, sizeof(ctl_c));
	ctl_listen_watch(ctx, true);
}

/**
 * ctl_conn_watch() - Events we wait for on the client connection
 * @ctx:	Context
 */
static void ctl_conn_watch(struct ctx *ctx)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CTL };
	struct epoll_event ev = { .events = 0 };

	if (ctl_c.out_off < ctl_c.out_len)
		ev.events |= EPOLLOUT;
	/* Not after the end of its stream: level-triggered, it would wake
	 * us again and again while a reply waits for room
	 */
	if (!ctl_c.eof && !ctl_c.ready)
		ev.events |= EPOLLIN | EPOLLRDHUP;
	ref.fd = (uint32_t)ctl_conn_fd & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	epoll_ctl(ctx->epollfd, EPOLL_CTL_MOD, ctl_conn_fd, &ev);
}

/**
 * ctl_flush() - Send what is queued for the client, without blocking
 * @ctx:	Context
 *
 * Return: 0, or -1 if the connection was closed (error, or all sent with
 *	   @ctl_c.closing)
 *
 * #syscalls sendto
 */
static int ctl_flush(struct ctx *ctx)
{
	while (ctl_c.out_off < ctl_c.out_len) {
		ssize_t n = send(ctl_conn_fd, ctl_outb + ctl_c.out_off,
				 ctl_c.out_len - ctl_c.out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			debug_perror("-c: send to client");
			ctl_conn_close(ctx);
			return -1;
		}
		ctl_c.out_off += (size_t)n;
	}
	if (ctl_c.out_off == ctl_c.out_len && ctl_c.closing) {
		ctl_conn_close(ctx);
		return -1;
	}
	ctl_conn_watch(ctx);
	return 0;
}

/**
 * ctl_process() - Carry out a request read in this batch of events
 * @ctx:	Context
 *
 * Context: main loop, after the batch of epoll events
 */
void ctl_process(struct ctx *ctx)
{
	ssize_t len;

	if (ctl_conn_fd < 0 || !ctl_c.ready)
		return;
	ctl_c.ready = false;

	if (ctl_in[0] < 0x20) {		/* a pif id: binary tables */
		len = wire_frame_get(ctl_in, ctl_c.in_len, false, NULL, NULL,
				     NULL, 0);
		if (len > 0)
			ctl_run_wire(ctx, (size_t)len);
		ctl_conn_close(ctx);
		return;
	}

	/* Ours: a new process asks for our state (passt/restart.c) */
	if (restart_handover_req(ctl_in, ctl_c.in_len)) {
		char req[32];
		size_t n = MIN(ctl_c.in_len, sizeof(req) - 1);

		memcpy(req, ctl_in, n);
		req[n] = '\0';
		restart_give(ctx, ctl_conn_fd, req, ctl_listen_fd);
		ctl_conn_close(ctx);
		return;
	}

	/* Text (ours): the whole stream up to its end */
	if (ctl_c.in_len > CTL_REQ_MAX) {
		ctl_rep_len = 0;
		ctl_out("error\nrequest longer than %d bytes (at most %d "
			"are accepted): nothing changed\n", CTL_REQ_MAX,
			CTL_REQ_MAX);
	} else if (memchr(ctl_in, '\0', ctl_c.in_len)) {
		ctl_rep_len = 0;
		ctl_out("error\nrequest with a NUL byte: nothing changed\n");
	} else {
		ctl_in[ctl_c.in_len] = '\0';
		ctl_run_text(ctx, (char *)ctl_in);
	}
	memcpy(ctl_outb, ctl_rep, ctl_rep_len);
	ctl_c.out_len = ctl_rep_len;
	ctl_c.out_off = 0;
	ctl_c.closing = true;
	ctl_flush(ctx);
}

/**
 * ctl_input() - Look at what the client sent so far
 * @ctx:	Context
 *
 * A first byte below 0x20 is a pif id (0 to 3): binary tables, complete
 * at their terminating 0 (conf/wire.h); anything else is a text request,
 * complete at the end of the stream.  An empty stream is a client that
 * read the tables and changes nothing.
 *
 * Return: 0, or -1 if the connection was closed
 */
static int ctl_input(struct ctx *ctx)
{
	char err[160];
	ssize_t rc;

	if (!ctl_c.in_len) {
		if (ctl_c.eof) {
			ctl_conn_close(ctx);
			return -1;
		}
		return 0;
	}
	if (ctl_in[0] >= 0x20) {
		/* error reply if too long; a hand-over request is complete
		 * at its newline: its client waits for the stream
		 */
		if (ctl_c.eof || restart_handover_req(ctl_in, ctl_c.in_len))
			ctl_c.ready = true;
		return 0;
	}
	rc = wire_frame_get(ctl_in, ctl_c.in_len, false, NULL, NULL, err,
			    sizeof(err));
	if (rc > 0) {
		ctl_c.ready = true;
		return 0;
	}
	if (rc < 0) {
		warn("-c: refused a client's tables: %s: nothing changed",
		     err);
	} else if (ctl_c.eof || ctl_c.in_len >= CTL_IN_MAX) {
		warn("-c: client's tables end after %zu bytes, incomplete: "
		     "nothing changed", ctl_c.in_len);
	} else {
		return 0;
	}
	ctl_conn_close(ctx);
	return -1;
}

/**
 * ctl_handler() - The client can take more, sent more, or went away
 * @ctx:	Context
 * @events:	epoll events
 *
 * Reads at most what the buffer holds: binary tables longer than that are
 * refused, text beyond CTL_REQ_MAX is read and dropped up to its end (then
 * refused with a reply); a client that stalls is closed by ctl_timer().
 *
 * #syscalls recvfrom
 */
void ctl_handler(struct ctx *ctx, uint32_t events)
{
	if (ctl_conn_fd < 0)
		return;
	if ((events & EPOLLOUT) && ctl_flush(ctx))
		return;
	if (ctl_c.closing || ctl_c.ready) {
		if (events & (EPOLLERR | EPOLLHUP))
			ctl_conn_close(ctx);
		return;
	}
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
		while (!ctl_c.eof && ctl_c.in_len < CTL_IN_MAX) {
			ssize_t n = recv(ctl_conn_fd, ctl_in + ctl_c.in_len,
					 CTL_IN_MAX - ctl_c.in_len,
					 MSG_DONTWAIT);

			if (n > 0) {
				ctl_c.in_len += (size_t)n;
				/* Text too long: read to its end, keep none */
				if (ctl_in[0] >= 0x20 &&
				    ctl_c.in_len > CTL_REQ_MAX)
					ctl_c.in_len = CTL_REQ_MAX + 1;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			if (n < 0) {
				debug_perror("-c: receive from client");
				ctl_conn_close(ctx);
				return;
			}
			ctl_c.eof = true;
		}
		if (ctl_input(ctx))
			return;
		ctl_conn_watch(ctx);
	}
}

/**
 * ctl_timer() - Close a client that takes too long
 * @ctx:	Context
 *
 * Context: main loop, housekeeping tick
 */
void ctl_timer(struct ctx *ctx)
{
	if (ctl_conn_fd < 0 || ctx->now < ctl_c.deadline)
		return;
	warn("-c: client took longer than %d s: closed, nothing changed",
	     CTL_CLIENT_TIMEOUT_S);
	ctl_conn_close(ctx);
}

/**
 * ctl_caps() - Capabilities we announce for our tables
 * @c:		Configuration
 *
 * Return: WIRE_CAP_* bits
 */
static uint32_t ctl_caps(const struct conf *c)
{
	uint32_t caps = WIRE_CAP_IFNAME | WIRE_CAP_X_TEXT;

	if (c->ip4.enabled)
		caps |= WIRE_CAP_IPV4;
	if (c->ip6.enabled)
		caps |= WIRE_CAP_IPV6;
	if (!c->no_tcp)
		caps |= WIRE_CAP_TCP;
	if (!c->no_udp)
		caps |= WIRE_CAP_UDP;
	if (c->mode == MODE_PASTA)
		caps |= WIRE_CAP_SCAN;
	return caps;
}

/**
 * ctl_listen_handler() - A client connects: check its UID, greet it
 * @ctx:	Context
 *
 * The greeting is the hello and our tables (conf/wire.h), sent without
 * blocking; the listening socket is not watched until this client is
 * done, so that others wait in its backlog, as with upstream's pasta.  Out
 * of descriptors, the client is taken off the queue and its connection
 * closed (limits_accept_refuse()), as for forwarded TCP ports.
 *
 * #syscalls accept4 getsockopt epoll_ctl close
 */
void ctl_listen_handler(struct ctx *ctx)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CTL };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	const struct conf *c = &ctx->c;
	struct fwd_table cur[FWD_TBLS];
	struct ucred cred;
	socklen_t sl = sizeof(cred);
	ssize_t len;
	unsigned i;
	int s;

	if (ctl_conn_fd >= 0) {
		ctl_listen_watch(ctx, false);	/* after this one */
		return;
	}
	s = accept4(ctl_listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (s < 0) {
		/* Left in the queue, the client would wake us for ever */
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			limits_refused(ctx->now, LIMIT_FDS, "-c client");
			limits_accept_refuse(ctl_listen_fd);
		}
		return;
	}
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &sl) ||
	    cred.uid != ctl_owner) {
		warn("-c: refused a client with UID %u (not %u)",
		     (unsigned)cred.uid, (unsigned)ctl_owner);
		close(s);
		return;
	}

	for (i = 0; i < FWD_TBLS; i++)
		cur[i] = *ctl_table(&ctx->c, i);
	len = wire_tables_put(ctl_outb, sizeof(ctl_outb), cur,
			      c->mode == MODE_PASTA, true, ctl_caps(c));
	if (len < 0) {
		warn("-c: tables too large to send");
		close(s);
		return;
	}

	ref.fd = (uint32_t)s & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev)) {
		close(s);
		return;
	}
	memset(&ctl_c, 0, sizeof(ctl_c));
	ctl_conn_fd = s;
	ctl_c.deadline = ctx->now + CTL_CLIENT_TIMEOUT_S * 1000LL;
	ctl_c.out_len = (size_t)len;
	ctl_listen_watch(ctx, false);
	ctl_flush(ctx);
}

/**
 * ctl_init() - -c: bind and listen on the configuration socket
 * @ctx:	Context
 *
 * A SOCK_STREAM socket, as upstream's.  A socket file nobody listens on
 * any more is taken over.  The file is created with mode 0600 (umask
 * around bind()); started as root, it belongs to the user we switch to,
 * but only root may use it (SO_PEERCRED).  Nothing touches the path after
 * bind(), and the file is removed at exit by a helper (passt/sockfile.c).
 *
 * Context: set-up, before isolation; dies if the path can't be bound, or
 *	    if the tables hold more rules than upstream's pesto reads
 *	    (wire_tables_fit())
 */
void ctl_init(struct ctx *ctx)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CTL_LISTEN };
	struct epoll_event ev = { .events = EPOLLIN };
	struct conf *c = &ctx->c;
	bool give = isolate_root_in_init_userns() && c->uid;
	char err[256];
	unsigned i;
	int s;

	if (!*c->conf_path)
		return;
	/* Tables that either pesto can read, as upstream's pasta */
	for (i = 0; i < FWD_TBLS; i++)
		ctl_new[i] = *ctl_table(c, i);
	if (wire_tables_fit(ctl_new, c->mode == MODE_PASTA, err, sizeof(err)))
		die("-c %s: %s", c->conf_path, err);
	ctl_owner = geteuid();
	s = sockfile_listen(c->conf_path, SOCK_STREAM, 8, 0177,
			    give ? c->uid : SOCKFILE_NO_CHOWN, c->gid);
	if (s < 0) {
		errno = -s;
		die_perror("-c %s: can't bind", c->conf_path);
	}

	ref.fd = (uint32_t)s & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev))
		die_perror("-c: epoll_ctl");
	ctl_listen_fd = s;
	info("-c: configuration socket at %s", c->conf_path);
}

/**
 * ctl_adopt() - New process: the -c socket of the process it replaced
 * @ctx:	Context
 * @s:		Listening socket, -1 if the old process had none
 *
 * Takes the place of ctl_init(): the file at -c is the old process's
 * socket, now ours (sockfile_adopt() removes it at our exit).
 *
 * Context: set-up, restart_adopt()
 */
void ctl_adopt(struct ctx *ctx, int s)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CTL_LISTEN };
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned i;

	if (s < 0)
		return;
	if (!*ctx->c.conf_path) {
		close(s);
		return;
	}
	for (i = 0; i < FWD_TBLS; i++)
		ctl_new[i] = *ctl_table(&ctx->c, i);
	ctl_owner = geteuid();
	fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
	ref.fd = (uint32_t)s & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev))
		die_perror("-c: epoll_ctl");
	ctl_listen_fd = s;
	sockfile_adopt(ctx->c.conf_path);
	info("-c: configuration socket at %s (taken over)", ctx->c.conf_path);
}
