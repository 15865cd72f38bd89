// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/ctl.c - Port forwarding changes at run time: the -c socket, for
 * pesto(1)
 *
 * With -c PATH, a SOCK_SEQPACKET UNIX socket listens at PATH (mode 0600).
 * One client at a time; its UID (SO_PEERCRED) must be the one that started
 * us.  Each message is a request (passt/ctl.h); it is read from the main
 * loop and carried out after the batch of epoll events it came in, so that
 * no event of that batch refers to a listening socket closed meanwhile.
 *
 * A request is applied to copies of the four tables first: any malformed
 * line, unknown option or side, or conflict (conf/ports.c) gives an error
 * reply and leaves everything as it was.  Then, per table:
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
 * within a second.  Sockets opened at run time are not counted in the
 * descriptor shares of passt/limits.c: RLIMIT_NOFILE itself bounds them.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "../conf/log.h"
#include "../conf/ports.h"
#include "ctl.h"
#include "epoll_ref.h"
#include "fwd.h"
#include "fwd_auto.h"
#include "isolation.h"
#include "limits.h"
#include "passt.h"
#include "sockfile.h"
#include "udp.h"

static int ctl_listen_fd = -1;
static int ctl_conn_fd = -1;
static uid_t ctl_owner;			/* UID that started us */

static char ctl_req[CTL_REQ_MAX + 1];
static ssize_t ctl_req_len = -1;	/* pending request, -1 for none */
static char ctl_rep[CTL_REP_MAX];
static size_t ctl_rep_len;

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
 * ctl_table_usable() - Can a table be changed here?
 * @c:		Configuration
 * @i:		enum fwd_tbl
 *
 * Return: false for -T and -U in passt mode, and for a protocol disabled
 *	   with --no-tcp or --no-udp
 */
static bool ctl_table_usable(const struct conf *c, unsigned i)
{
	bool udp = i == FWD_TBL_U || i == FWD_TBL_UNS;

	if (i >= FWD_TBL_TNS && c->mode != MODE_PASTA)
		return false;
	return udp ? !c->no_udp : !c->no_tcp;
}

/**
 * ctl_same_bind() - Same bind address and interface?
 * @a:		Rule
 * @b:		Rule
 *
 * Return: true if so
 */
static bool ctl_same_bind(const struct fwd_rule *a, const struct fwd_rule *b)
{
	if (a->af != b->af || strcmp(a->ifname, b->ifname))
		return false;
	return a->af == AF_UNSPEC || inany_equals(&a->addr, &b->addr);
}

/**
 * ctl_del() - Take the ports of a spec out of a table
 * @t:		Table (a copy), unchanged on error
 * @spec:	Spec, as for -t: ports, ranges, optional address, or "auto"
 * @ns_side:	Namespace side, for messages
 * @err:	Error message buffer
 * @len:	Its size
 *
 * Ports are taken out whatever their target; every port given must be
 * forwarded, for that bind address.
 *
 * Return: 0, or -EINVAL with a message in @err
 */
static int ctl_del(struct fwd_table *t, const char *spec, bool ns_side,
		   char *err, size_t len)
{
	static struct fwd_table d, out;
	unsigned i, j;

	memset(&d, 0, sizeof(d));
	if (fwd_spec_parse(&d, spec, ns_side, err, len))
		return -EINVAL;
	if (!d.n && !d.auto_on) {
		snprintf(err, len, "no ports to delete");
		return -EINVAL;
	}
	if (d.auto_on && !t->auto_on) {
		snprintf(err, len, "'auto' is not on");
		return -EINVAL;
	}

	for (i = 0; i < d.n; i++) {
		const struct fwd_rule *dr = &d.rules[i];
		unsigned p;

		for (p = dr->first; p <= dr->last; p++) {
			for (j = 0; j < t->n; j++) {
				const struct fwd_rule *r = &t->rules[j];

				if (ctl_same_bind(r, dr) && p >= r->first &&
				    p <= r->last)
					break;
			}
			if (j == t->n) {
				snprintf(err, len, "port %u is not forwarded "
					 "(for that address)", p);
				return -EINVAL;
			}
		}
	}

	out = *t;
	for (i = 0; i < d.n; i++) {
		const struct fwd_rule *dr = &d.rules[i];
		static struct fwd_rule keep[CONF_MAX_FWD_RULES];
		unsigned n = 0;

		for (j = 0; j < out.n; j++) {
			const struct fwd_rule *r = &out.rules[j];
			struct fwd_rule piece;

			if (!ctl_same_bind(r, dr) || dr->last < r->first ||
			    dr->first > r->last) {
				if (n >= CONF_MAX_FWD_RULES)
					goto full;
				keep[n++] = *r;
				continue;
			}
			if (r->first < dr->first) {	/* left of the hole */
				piece = *r;
				piece.last = dr->first - 1;
				if (n >= CONF_MAX_FWD_RULES)
					goto full;
				keep[n++] = piece;
			}
			if (r->last > dr->last) {	/* right of it */
				piece = *r;
				piece.first = dr->last + 1;
				piece.to = (uint16_t)(r->to +
						      (piece.first - r->first));
				if (n >= CONF_MAX_FWD_RULES)
					goto full;
				keep[n++] = piece;
			}
		}
		memcpy(out.rules, keep, n * sizeof(keep[0]));
		out.n = n;
	}
	if (d.auto_on && d.auto_nonly && out.auto_nonly) {
		/* "PORTS,auto": those ports only, "auto" stays for others */
		static struct fwd_excl keep[CONF_MAX_FWD_RULES];
		unsigned n = 0, k;

		for (j = 0; j < out.auto_nonly; j++) {
			struct fwd_excl r = out.auto_only[j];

			for (k = 0; k < d.auto_nonly && r.first <= r.last;
			     k++) {
				const struct fwd_excl *x = &d.auto_only[k];

				if (x->last < r.first || x->first > r.last)
					continue;
				if (x->first > r.first) {
					if (n >= ARRAY_SIZE(keep))
						goto full;
					keep[n++] = (struct fwd_excl){
						r.first, x->first - 1 };
				}
				if (x->last >= r.last)
					r.first = 1, r.last = 0; /* empty */
				else
					r.first = x->last + 1;
			}
			if (r.first <= r.last) {
				if (n >= ARRAY_SIZE(keep))
					goto full;
				keep[n++] = r;
			}
		}
		memcpy(out.auto_only, keep, n * sizeof(keep[0]));
		out.auto_nonly = n;
		if (!n) {
			out.auto_on = false;
			out.auto_nexc = 0;
		}
	} else if (d.auto_on && d.auto_nonly) {
		snprintf(err, len, "'auto' is on for every port: delete 'auto' "
			 "itself");
		return -EINVAL;
	} else if (d.auto_on) {
		out.auto_on = false;
		out.auto_nexc = 0;
		out.auto_nonly = 0;
	}
	*t = out;
	return 0;
full:
	snprintf(err, len, "too many forwarding rules after the deletion (at "
		 "most %d)", CONF_MAX_FWD_RULES);
	return -EINVAL;
}

/**
 * ctl_op() - Apply one line of a request to the copies of the tables
 * @c:		Configuration (mode, disabled protocols)
 * @tbls:	Copies of the tables, FWD_TBLS of them
 * @line:	The line, NUL-terminated, no newline
 * @err:	Error message buffer
 * @len:	Its size
 *
 * Return: 1 for "show", 0 for a change, -EINVAL with a message in @err
 */
static int ctl_op(const struct conf *c, struct fwd_table *tbls, char *line,
		  char *err, size_t len)
{
	char *cmd = line, *arg, *spec;
	unsigned i;

	arg = strchr(cmd, ' ');
	if (arg)
		*arg++ = '\0';
	if (!strcmp(cmd, "show") && !arg)
		return 1;

	if (!strcmp(cmd, "clear")) {
		unsigned from, to;

		/* upstream's pif names: HOST, SPLICE */
		if (arg && !strcasecmp(arg, "host")) {
			from = FWD_TBL_T;
			to = FWD_TBL_U;
		} else if (arg && (!strcmp(arg, "ns") ||
				   !strcasecmp(arg, "splice")) &&
			   c->mode == MODE_PASTA) {
			from = FWD_TBL_TNS;
			to = FWD_TBL_UNS;
		} else {
			snprintf(err, len, "unknown pif '%.32s' (accepted: "
				 "host or HOST%s)", arg ? arg : "",
				 c->mode == MODE_PASTA ? ", ns or SPLICE" : "");
			return -EINVAL;
		}
		for (i = from; i <= to; i++)
			memset(&tbls[i], 0, sizeof(tbls[i]));
		return 0;
	}

	if (strcmp(cmd, "set") && strcmp(cmd, "add") && strcmp(cmd, "del")) {
		snprintf(err, len, "unknown operation '%.32s' (accepted: show, "
			 "set, add, del, clear)", cmd);
		return -EINVAL;
	}
	spec = arg ? strchr(arg, ' ') : NULL;
	if (!spec) {
		snprintf(err, len, "%.8s: missing option or spec (accepted: "
			 "%.8s OPT SPEC)", cmd, cmd);
		return -EINVAL;
	}
	*spec++ = '\0';
	for (i = 0; i < FWD_TBLS; i++) {
		if (arg[0] == ctl_opt[i] && !arg[1])
			break;
	}
	if (i == FWD_TBLS || !ctl_table_usable(c, i)) {
		snprintf(err, len, "option '%.8s' can't be changed here "
			 "(accepted: t, u%s, enabled)", arg,
			 c->mode == MODE_PASTA ? ", T, U" : "");
		return -EINVAL;
	}

	if (!strcmp(cmd, "del"))
		return ctl_del(&tbls[i], spec, i >= FWD_TBL_TNS, err, len);

	if (!strcmp(cmd, "set"))
		memset(&tbls[i], 0, sizeof(tbls[i]));
	if (fwd_spec_parse(&tbls[i], spec, i >= FWD_TBL_TNS, err, len))
		return -EINVAL;
	return 0;
}

/**
 * ctl_parse() - Apply the lines of a request to copies of the tables
 * @c:		Configuration (mode, disabled protocols)
 * @req:	Request, NUL-terminated; lines are cut in place
 * @tbls:	Copies of the four tables (enum fwd_tbl order), changed
 * @show:	Set if a line is "show"
 * @change:	Set if a line changes something
 * @err:	Error message buffer: "line N: reason"
 * @len:	Its size
 *
 * Empty lines are skipped.  On error, @tbls are half-changed: the caller
 * throws them away.
 *
 * Return: 0, or -EINVAL with a message in @err
 */
int ctl_parse(const struct conf *c, char *req, struct fwd_table *tbls,
	      bool *show, bool *change, char *err, size_t len)
{
	char why[200], *line, *next;
	unsigned n = 0;
	int rc;

	for (line = req; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n++;
		if (!*line)
			continue;
		rc = ctl_op(c, tbls, line, why, sizeof(why));
		if (rc < 0) {
			snprintf(err, len, "line %u: %s", n, why);
			return rc;
		}
		if (rc)
			*show = true;
		else
			*change = true;
	}
	return 0;
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
 * ctl_commit() - Make the new tables real: sockets moved, opened, closed
 * @ctx:	Context
 * @err:	Error message buffer
 * @len:	Its size
 *
 * Return: 0, or -errno of a port that can't be bound (nothing changed,
 *	   message in @err)
 */
static int ctl_commit(struct ctx *ctx, char *err, size_t len)
{
	struct conf *c = &ctx->c;
	unsigned i, j, k, m;
	int ret = 0;

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

	/* New ports */
	for (i = 0; i < FWD_TBLS && !ret; i++) {
		bool udp = i == FWD_TBL_U || i == FWD_TBL_UNS;
		bool ns = i >= FWD_TBL_TNS;

		if (!ctl_table_usable(c, i))
			continue;
		for (j = 0; j < ctl_new[i].n && !ret; j++) {
			const struct fwd_rule *r = &ctl_new[i].rules[j];
			struct fwd_socks *l = &ctl_reg[i][j];
			unsigned p;

			memset(ctl_have, 0, sizeof(ctl_have));
			for (m = 0; m < l->n; m++)
				ctl_have[l->s[m].port / 64] |=
					1ULL << (l->s[m].port % 64);

			for (p = r->first; p <= r->last; p++) {
				int rc;

				if (ctl_have[p / 64] & (1ULL << (p % 64)))
					continue;
				fwd_auto_drop_port(ctx, ctl_table(c, i),
						   (uint16_t)p);
				rc = fwd_listen_port(ctx, udp ? IPPROTO_UDP :
						     IPPROTO_TCP, r, j,
						     (uint16_t)p, ns, ns, l);
				if (rc < 0 && !r->weak) {
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
		/* ...but "auto" ports given up for new rules above: back now,
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

				ref.fd = (uint32_t)l->s[m].fd;
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
		*t = ctl_new[i];
	}
	return 0;
}

/**
 * ctl_run() - Carry out the pending request, fill the reply
 * @ctx:	Context
 */
static void ctl_run(struct ctx *ctx)
{
	struct conf *c = &ctx->c;
	bool show = false, change = false;
	char err[256];
	unsigned i;

	ctl_rep_len = 0;
	for (i = 0; i < FWD_TBLS; i++)
		ctl_new[i] = *ctl_table(c, i);

	if ((size_t)ctl_req_len > CTL_REQ_MAX) {
		ctl_out("error\nrequest of %zd bytes, at most %d are accepted\n",
			ctl_req_len, CTL_REQ_MAX);
		return;
	}
	ctl_req[ctl_req_len] = '\0';
	if (memchr(ctl_req, '\0', (size_t)ctl_req_len)) {
		ctl_out("error\nrequest with a NUL byte\n");
		return;
	}

	if (ctl_parse(c, ctl_req, ctl_new, &show, &change, err, sizeof(err))) {
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
	if (show) {
		fwd_auto_scan(ctx);	/* "auto" as of now, not of the last tick */
		ctl_show(c);
	}
}

/**
 * ctl_process() - Carry out a request read in this batch of events
 * @ctx:	Context
 *
 * Context: main loop, after the batch of epoll events
 * #syscalls sendto
 */
void ctl_process(struct ctx *ctx)
{
	if (ctl_req_len < 0)
		return;
	ctl_run(ctx);
	ctl_req_len = -1;
	if (ctl_conn_fd >= 0 &&
	    send(ctl_conn_fd, ctl_rep, ctl_rep_len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		debug_perror("-c: reply");
}

/**
 * ctl_conn_close() - Close the client connection
 * @ctx:	Context
 */
static void ctl_conn_close(struct ctx *ctx)
{
	if (ctl_conn_fd < 0)
		return;
	epoll_ctl(ctx->epollfd, EPOLL_CTL_DEL, ctl_conn_fd, NULL);
	close(ctl_conn_fd);
	ctl_conn_fd = -1;
	ctl_req_len = -1;
}

/**
 * ctl_handler() - A request, or the end of the connection
 * @ctx:	Context
 * @events:	epoll events
 *
 * #syscalls recvfrom
 */
void ctl_handler(struct ctx *ctx, uint32_t events)
{
	ssize_t n;

	if (ctl_conn_fd < 0)
		return;
	if (events & EPOLLIN) {
		n = recv(ctl_conn_fd, ctl_req, CTL_REQ_MAX,
			 MSG_TRUNC | MSG_DONTWAIT);
		if (n > 0) {
			ctl_req_len = n;
			return;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
	}
	ctl_conn_close(ctx);
}

/**
 * ctl_listen_handler() - A client connects: check its UID
 * @ctx:	Context
 *
 * Out of descriptors, the client is taken off the queue and its connection
 * closed (limits_accept_refuse()), as for forwarded TCP ports.
 *
 * #syscalls accept4 getsockopt epoll_ctl close sendto
 */
void ctl_listen_handler(struct ctx *ctx)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CTL };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	struct ucred cred;
	socklen_t sl = sizeof(cred);
	int s;

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
		static const char msg[] = "error\nnot the owner of this "
					  "instance\n";

		send(s, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		warn("-c: refused a client with UID %u (not %u)",
		     (unsigned)cred.uid, (unsigned)ctl_owner);
		close(s);
		return;
	}
	if (ctl_conn_fd >= 0) {
		static const char msg[] = "error\nanother client is "
					  "connected\n";

		send(s, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(s);
		return;
	}
	ref.fd = (uint32_t)s;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev)) {
		close(s);
		return;
	}
	ctl_conn_fd = s;
}

/**
 * ctl_init() - -c: bind and listen on the configuration socket
 * @ctx:	Context
 *
 * A socket file nobody listens on any more is taken over.  The file is
 * created with mode 0600 (umask around bind()); started as root, it
 * belongs to the user we switch to, but only root may use it
 * (SO_PEERCRED).  Nothing touches the path after bind(), and the file is
 * removed at exit by a helper (passt/sockfile.c).
 *
 * Context: set-up, before isolation; dies if the path can't be bound
 */
void ctl_init(struct ctx *ctx)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_CTL_LISTEN };
	struct epoll_event ev = { .events = EPOLLIN };
	const struct conf *c = &ctx->c;
	bool give = isolate_root_in_init_userns() && c->uid;
	int s;

	if (!*c->conf_path)
		return;
	ctl_owner = geteuid();
	s = sockfile_listen(c->conf_path, SOCK_SEQPACKET, 4, 0177,
			    give ? c->uid : SOCKFILE_NO_CHOWN, c->gid);
	if (s < 0) {
		errno = -s;
		die_perror("-c %s: can't bind", c->conf_path);
	}

	ref.fd = (uint32_t)s;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev))
		die_perror("-c: epoll_ctl");
	ctl_listen_fd = s;
	info("-c: configuration socket at %s", c->conf_path);
}
