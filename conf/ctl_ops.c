// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/ctl_ops.c - The operations of a -c text request on copies of the
 * forwarding tables (passt/ctl.h has the request syntax)
 *
 * Shared by the daemon (passt/ctl.c) and by pesto(1), which applies the
 * same operations itself to the tables of a server that only speaks
 * upstream's binary protocol (conf/wire.h).  No system call.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../lib/inany.h"
#include "ctl_ops.h"
#include "ports.h"

static const char ctl_opt[FWD_TBLS] = { 't', 'u', 'T', 'U' };

/**
 * ctl_table_usable() - Can a table be changed here?
 * @c:		Configuration
 * @i:		enum fwd_tbl
 *
 * Return: false for -T and -U in passt mode, and for a protocol disabled
 *	   with --no-tcp or --no-udp
 */
bool ctl_table_usable(const struct conf *c, unsigned i)
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
bool ctl_same_bind(const struct fwd_rule *a, const struct fwd_rule *b)
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
						r.first, x->first - 1, r.to };
				}
				if (x->last >= r.last) {
					r.first = 1, r.last = 0; /* empty */
				} else {	/* the target moves with it */
					r.to = (uint16_t)(r.to + (x->last + 1 -
								  r.first));
					r.first = x->last + 1;
				}
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
