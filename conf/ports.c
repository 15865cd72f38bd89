// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/ports.c - Parse port forwarding specifications into rule tables
 *
 * A specification is what follows -t, -u, -T or -U:
 *
 *	none
 *	[ADDR[%IF]/ | %IF/]ELEM[,ELEM]...
 *
 * where ELEM is one of
 *
 *	P | A-B		forward these ports to the same ports
 *	P:Q | A-B:C-D	forward A..B to C..D (both ranges equally long);
 *			A-B:C is accepted as A-B:C-(C+B-A)
 *	~P | ~A-B	exclude these ports from the other elements
 *	all		every port outside the ephemeral range
 *	auto		(pasta) the ports that listen on the other side, found
 *			at run time (passt/fwd_auto.c); exclusions apply to
 *			them, and given ports are forwarded as well
 *
 * A specification made of exclusions only means "all, except these".  Rules
 * derived from "all" are weak: the daemon skips ports it can't bind.
 *
 * Exclusions split the ranges they cut, so a table only ever holds plain,
 * non-overlapping ranges with one target offset each; the daemon never
 * needs to know about exclusions.  A failed parse leaves the table as it
 * was.  Parsing uses static scratch space: not reentrant.  It also runs
 * for -c requests (passt/ctl.c), under the seccomp filter: it makes no
 * system call (the ephemeral range is read at set-up, fwd_ephemeral_load(),
 * and exclusions are sorted without qsort(), fwd_range_sort()).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ports.h"

const char *fwd_ephemeral_path = FWD_EPHEMERAL_PATH;

#define FWD_MAX_ELEMS	CONF_MAX_FWD_RULES	/* includes, or excludes */

/**
 * struct fwd_range - One include or exclude element of a spec
 * @first:	First port, host order
 * @last:	Last port (inclusive)
 * @to:		Target port for @first (includes only)
 */
struct fwd_range {
	uint16_t first;
	uint16_t last;
	uint16_t to;
};

/**
 * fwd_err() - Format an error message for the caller, printable and one line
 * @err:	Buffer, may be NULL
 * @errlen:	Size of @err
 * @fmt:	printf() format, then its arguments
 *
 * Return: -EINVAL, always
 */
__attribute__((format(printf, 3, 4)))
static int fwd_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		/* parts of the spec are quoted: keep the message one line */
		for (p = err; *p; p++) {
			if (*p < ' ' || *p > '~')
				*p = '?';
		}
	}
	return -EINVAL;
}

/**
 * fwd_port_parse() - Parse one decimal port number
 * @s:		Start of the number
 * @end:	End of the number (exclusive)
 * @port:	Result, 1..65535
 *
 * Return: 0 on success, -EINVAL if empty, not all digits, 0 or > 65535
 */
static int fwd_port_parse(const char *s, const char *end, uint16_t *port)
{
	unsigned long v = 0;
	const char *p;

	if (s == end)
		return -EINVAL;
	for (p = s; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 65535)
			return -EINVAL;
	}
	if (!v)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

/**
 * fwd_range_parse() - Parse "P" or "A-B"
 * @s:		Start of the text
 * @end:	End of the text (exclusive)
 * @r:		Result: @first and @last set
 * @err:	Error message buffer
 * @errlen:	Size of @err
 *
 * Return: 0 on success, -EINVAL with a message in @err
 */
static int fwd_range_parse(const char *s, const char *end,
			   struct fwd_range *r, char *err, size_t errlen)
{
	const char *dash = memchr(s, '-', (size_t)(end - s));
	int len = (int)(end - s);

	if (!dash) {
		if (fwd_port_parse(s, end, &r->first))
			return fwd_err(err, errlen,
				       "invalid port '%.*s' (accepted: 1-65535)",
				       len, s);
		r->last = r->first;
		return 0;
	}

	if (fwd_port_parse(s, dash, &r->first) ||
	    fwd_port_parse(dash + 1, end, &r->last))
		return fwd_err(err, errlen,
			       "invalid port range '%.*s' (accepted: FIRST-LAST, 1-65535)",
			       len, s);
	if (r->first > r->last)
		return fwd_err(err, errlen,
			       "inverted port range '%.*s' (first port must not exceed last)",
			       len, s);
	return 0;
}

/**
 * fwd_prefix_parse() - Parse the "ADDR", "ADDR%IF" or "%IF" before '/'
 * @s:		Start of the prefix
 * @end:	The '/' ending it
 * @tmpl:	Rule template: @af, @addr and @ifname are set
 * @err:	Error message buffer
 * @errlen:	Size of @err
 *
 * Return: 0 on success, -EINVAL with a message in @err
 */
static int fwd_prefix_parse(const char *s, const char *end,
			    struct fwd_rule *tmpl, char *err, size_t errlen)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *pct = memchr(s, '%', (size_t)(end - s));
	const char *aend = pct ? pct : end;
	size_t alen = (size_t)(aend - s);
	struct in_addr a4;

	if (pct) {
		size_t iflen = (size_t)(end - pct - 1);
		const char *p;

		if (!iflen || iflen >= IFNAMSIZ)
			return fwd_err(err, errlen,
				       "invalid interface name '%.*s' (accepted: 1-%d characters)",
				       (int)iflen, pct + 1, IFNAMSIZ - 1);
		for (p = pct + 1; p < end; p++) {
			if (*p <= ' ' || *p == '%' || *p > '~')
				return fwd_err(err, errlen,
					       "invalid interface name '%.*s'",
					       (int)iflen, pct + 1);
		}
		memcpy(tmpl->ifname, pct + 1, iflen);
		tmpl->ifname[iflen] = '\0';
	}

	if (!alen) {
		if (!pct)
			return fwd_err(err, errlen,
				       "empty bind address before '/' (accepted: ADDR/, ADDR%%IF/ or %%IF/)");
		tmpl->af = AF_UNSPEC;
		return 0;
	}
	if (alen >= sizeof(addr))
		return fwd_err(err, errlen, "invalid bind address '%.*s'",
			       (int)MIN(alen, (size_t)64), s);
	memcpy(addr, s, alen);
	addr[alen] = '\0';

	if (inet_pton(AF_INET, addr, &a4) == 1) {
		tmpl->af = AF_INET;
		inany_from_v4(&tmpl->addr, a4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &tmpl->addr.a6) == 1) {
		tmpl->af = AF_INET6;
		return 0;
	}
	return fwd_err(err, errlen,
		       "invalid bind address '%s' (accepted: IPv4 or IPv6 address)",
		       addr);
}

/**
 * fwd_ephemeral_range() - Ephemeral port range of the current namespace
 * @first:	First ephemeral port
 * @last:	Last ephemeral port
 *
 * Reads fwd_ephemeral_path (net.ipv4.ip_local_port_range, which applies to
 * IPv6 too).  If it can't be read or makes no sense, the kernel's default
 * 32768-60999 (Documentation/networking/ip-sysctl.rst) is used.
 *
 * Context: set-up only (opens a file: see fwd_ephemeral_load())
 */
void fwd_ephemeral_range(uint16_t *first, uint16_t *last)
{
	unsigned lo, hi;
	FILE *f;
	int n;

	*first = FWD_EPHEMERAL_FIRST;
	*last = FWD_EPHEMERAL_LAST;

	f = fopen(fwd_ephemeral_path, "re");
	if (!f)
		return;
	n = fscanf(f, "%u %u", &lo, &hi);
	fclose(f);
	if (n != 2 || !lo || lo > hi || hi > 65535)
		return;
	*first = (uint16_t)lo;
	*last = (uint16_t)hi;
}

static uint16_t fwd_eph_cache[2];	/* what fwd_spec_parse() uses */
static bool fwd_eph_loaded;

/**
 * fwd_ephemeral_load() - Read the ephemeral range for fwd_spec_parse()
 *
 * "all" and exclusion-only specs also come at run time (-c, pesto(1)),
 * when the seccomp filter allows no file to be opened (openat() there
 * kills the daemon) and the file system is gone: the range is read once,
 * here, and kept.  A later call reads it again (tests).
 *
 * Context: set-up, before isolation (conf_parse() calls it)
 */
void fwd_ephemeral_load(void)
{
	fwd_ephemeral_range(&fwd_eph_cache[0], &fwd_eph_cache[1]);
	fwd_eph_loaded = true;
}

/**
 * fwd_rule_same_bind() - Do two rules listen on the same address and device?
 * @a:		First rule
 * @b:		Second rule
 *
 * Return: true if @af, @addr (when relevant) and @ifname match
 */
static bool fwd_rule_same_bind(const struct fwd_rule *a,
			       const struct fwd_rule *b)
{
	if (a->af != b->af || strcmp(a->ifname, b->ifname))
		return false;
	return a->af == AF_UNSPEC || inany_equals(&a->addr, &b->addr);
}

/**
 * fwd_add_piece() - Append one piece to the pending rule list
 * @out:	Pending rules
 * @n:		Pending rule count, updated
 * @tmpl:	Template with bind address, interface and @weak
 * @inc:	Include range the piece comes from
 * @first:	First port of the piece (within @inc)
 * @last:	Last port of the piece
 * @err:	Error message buffer
 * @errlen:	Size of @err
 *
 * Return: 0, or -EINVAL if there are more than CONF_MAX_FWD_RULES pieces
 */
static int fwd_add_piece(struct fwd_rule *out, unsigned *n,
			 const struct fwd_rule *tmpl,
			 const struct fwd_range *inc,
			 unsigned first, unsigned last,
			 char *err, size_t errlen)
{
	struct fwd_rule *r;

	if (*n >= CONF_MAX_FWD_RULES)
		return fwd_err(err, errlen,
			       "too many port ranges after exclusions (at most %d per option)",
			       CONF_MAX_FWD_RULES);
	r = &out[(*n)++];
	*r = *tmpl;
	r->first = (uint16_t)first;
	r->last = (uint16_t)last;
	r->to = (uint16_t)(inc->to + (first - inc->first));
	return 0;
}

/**
 * fwd_subtract() - Split an include range around the exclusions
 * @out:	Pending rules, pieces are appended
 * @n:		Pending rule count, updated
 * @tmpl:	Rule template
 * @inc:	Include range
 * @exc:	Exclusions, sorted by @first, non-overlapping
 * @nexc:	Number of exclusions
 * @err:	Error message buffer
 * @errlen:	Size of @err
 *
 * Return: 0, or -EINVAL if there are too many pieces
 */
static int fwd_subtract(struct fwd_rule *out, unsigned *n,
			const struct fwd_rule *tmpl,
			const struct fwd_range *inc,
			const struct fwd_range *exc, unsigned nexc,
			char *err, size_t errlen)
{
	unsigned start = inc->first, i;
	int rc;

	for (i = 0; i < nexc && start <= inc->last; i++) {
		if (exc[i].last < start)
			continue;
		if (exc[i].first > inc->last)
			break;
		if (exc[i].first > start) {
			rc = fwd_add_piece(out, n, tmpl, inc, start,
					   exc[i].first - 1U, err, errlen);
			if (rc)
				return rc;
		}
		start = exc[i].last + 1U;
	}
	if (start <= inc->last)
		return fwd_add_piece(out, n, tmpl, inc, start, inc->last,
				     err, errlen);
	return 0;
}

/**
 * fwd_range_sort() - Sort ranges by first port, in place
 * @r:		Ranges
 * @n:		Number of ranges, at most FWD_MAX_ELEMS
 *
 * An insertion sort: at most FWD_MAX_ELEMS^2 / 2 (32768) moves.  Not
 * qsort(): glibc's allocates a buffer for more than 1 KiB of elements and
 * asks sysinfo() how much memory there is first, a system call the seccomp
 * filter doesn't allow (fwd_spec_parse() runs at run time, for -c).
 */
static void fwd_range_sort(struct fwd_range *r, unsigned n)
{
	unsigned i, j;

	for (i = 1; i < n; i++) {
		struct fwd_range v = r[i];

		for (j = i; j && r[j - 1].first > v.first; j--)
			r[j] = r[j - 1];
		r[j] = v;
	}
}

/**
 * fwd_elem_parse() - Parse one comma-separated element into @inc or @exc
 * @s:		Start of the element
 * @end:	End of the element (exclusive)
 * @inc:	Include ranges, appended to
 * @ninc:	Include count, updated
 * @exc:	Exclude ranges, appended to
 * @nexc:	Exclude count, updated
 * @all:	Set if the element is "all"
 * @autop:	Set if the element is "auto"
 * @err:	Error message buffer
 * @errlen:	Size of @err
 *
 * Return: 0 on success, -EINVAL with a message in @err
 */
static int fwd_elem_parse(const char *s, const char *end,
			  struct fwd_range *inc, unsigned *ninc,
			  struct fwd_range *exc, unsigned *nexc,
			  bool *all, bool *autop, char *err, size_t errlen)
{
	size_t len = (size_t)(end - s);
	struct fwd_range r, to;
	const char *colon;
	int rc;

	if (!len)
		return fwd_err(err, errlen,
			       "empty element (accepted: comma-separated ports, ranges or exclusions)");

	if (len == 3 && !memcmp(s, "all", 3)) {
		if (*all)
			return fwd_err(err, errlen, "'all' given twice");
		*all = true;
		return 0;
	}
	if (len >= 4 && !memcmp(s, "all:", 4))
		return fwd_err(err, errlen,
			       "'%.*s': a target address for 'all' is not supported",
			       (int)MIN(len, (size_t)64), s);
	if (len == 4 && !memcmp(s, "auto", 4)) {
		if (*autop)
			return fwd_err(err, errlen, "'auto' given twice");
		*autop = true;
		return 0;
	}
	if (len == 4 && !memcmp(s, "none", 4))
		return fwd_err(err, errlen,
			       "'none' can't be combined with other ports");

	if (*s == '~') {
		if (memchr(s, ':', len))
			return fwd_err(err, errlen,
				       "exclusion '%.*s' can't have a target port",
				       (int)MIN(len, (size_t)64), s);
		rc = fwd_range_parse(s + 1, end, &r, err, errlen);
		if (rc)
			return rc;
		if (*nexc >= FWD_MAX_ELEMS)
			return fwd_err(err, errlen,
				       "too many exclusions (at most %d)",
				       FWD_MAX_ELEMS);
		exc[(*nexc)++] = r;
		return 0;
	}

	colon = memchr(s, ':', len);
	rc = fwd_range_parse(s, colon ? colon : end, &r, err, errlen);
	if (rc)
		return rc;
	r.to = r.first;

	if (colon) {
		if (memchr(colon + 1, ':', (size_t)(end - colon - 1)))
			return fwd_err(err, errlen,
				       "'%.*s': more than one ':' (accepted: FIRST[-LAST]:TOFIRST[-TOLAST])",
				       (int)MIN(len, (size_t)64), s);
		rc = fwd_range_parse(colon + 1, end, &to, err, errlen);
		if (rc)
			return rc;
		if (to.first == to.last && r.first != r.last) {
			/* A-B:C: shift the whole range to start at C */
			if ((unsigned)to.first + (r.last - r.first) > 65535)
				return fwd_err(err, errlen,
					       "'%.*s': target range ends beyond port 65535",
					       (int)MIN(len, (size_t)64), s);
		} else if (to.last - to.first != r.last - r.first) {
			return fwd_err(err, errlen,
				       "'%.*s': port ranges differ in length (%u and %u ports)",
				       (int)MIN(len, (size_t)64), s,
				       r.last - r.first + 1U,
				       to.last - to.first + 1U);
		}
		r.to = to.first;
	}

	if (*ninc >= FWD_MAX_ELEMS)
		return fwd_err(err, errlen, "too many port ranges (at most %d)",
			       FWD_MAX_ELEMS);
	inc[(*ninc)++] = r;
	return 0;
}

/**
 * fwd_spec_parse() - Parse one port forwarding spec and add its rules
 * @t:		Table to append to (unchanged on error)
 * @spec:	Option argument, see the syntax at the top of this file
 * @ns_side:	The ports are bound in the target namespace (-T, -U), not on
 *		the host; only changes the wording of error messages
 * @err:	Buffer for a one-line reason on error (no option name, no
 *		newline), may be NULL
 * @errlen:	Size of @err
 *
 * "none" adds nothing and succeeds: refusing "none" next to other specs
 * for the same table is up to the caller.  "all" and exclusion-only specs
 * cover 1-65535 minus the ephemeral range (fwd_ephemeral_load()), as weak
 * rules.  "auto" sets @t->auto_on, @t->auto_bind and the exclusions
 * (@t->auto_exc); ports given with it become rules as usual.
 *
 * Return: 0 on success, -EINVAL with a message in @err for malformed
 *	   specs, port 0 or > 65535, inverted ranges, remapping with
 *	   ranges of different lengths, ports already forwarded for the
 *	   same bind address and interface, more than CONF_MAX_FWD_RULES
 *	   rules in the table, "auto" with "all" or twice for the table
 */
int fwd_spec_parse(struct fwd_table *t, const char *spec, bool ns_side,
		   char *err, size_t errlen)
{
	static struct fwd_range inc[FWD_MAX_ELEMS], exc[FWD_MAX_ELEMS];
	static struct fwd_rule out[CONF_MAX_FWD_RULES];
	const char *none = "exclusions remove every port of the spec";
	unsigned ninc = 0, nexc = 0, nout = 0, nbase = 0, nsrc, i, j;
	const char *side = ns_side ? "namespace" : "host";
	struct fwd_rule tmpl = { .af = AF_UNSPEC };
	const char *list, *p, *slash, *end;
	const struct fwd_range *src = inc;
	struct fwd_range base[2];
	bool all = false, autop = false;
	size_t len;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!t || !spec || !*spec)
		return fwd_err(err, errlen,
			       "empty spec (accepted: none, all, or ports like 22,80-90,2222:22)");
	len = strlen(spec);
	if (len > FWD_SPEC_MAX_LEN)
		return fwd_err(err, errlen, "spec longer than %d characters",
			       FWD_SPEC_MAX_LEN);
	if (!strcmp(spec, "none"))
		return 0;

	end = spec + len;
	list = spec;
	slash = strchr(spec, '/');
	if (slash) {
		rc = fwd_prefix_parse(spec, slash, &tmpl, err, errlen);
		if (rc)
			return rc;
		list = slash + 1;
		if (strchr(list, '/'))
			return fwd_err(err, errlen,
				       "target addresses (PORT:ADDR/PORT) are not supported");
		if (!*list)
			return fwd_err(err, errlen,
				       "no ports after '/' (accepted: ADDR/PORTS)");
	}

	for (p = list; ; p++) {
		const char *comma = strchr(p, ',');
		const char *e = comma ? comma : end;

		rc = fwd_elem_parse(p, e, inc, &ninc, exc, &nexc, &all,
				    &autop, err, errlen);
		if (rc)
			return rc;
		if (!comma)
			break;
		p = comma;
	}

	if (all && ninc)
		return fwd_err(err, errlen,
			       "'all' can't be combined with port ranges");
	if (all && autop)
		return fwd_err(err, errlen, "'all' can't be combined with 'auto'");
	if (autop && t->auto_on)
		return fwd_err(err, errlen,
			       "'auto' is already given by an earlier option");

	/* Overlapping includes in one spec would make two listeners */
	for (i = 0; i < ninc; i++) {
		for (j = i + 1; j < ninc; j++) {
			if (inc[i].first <= inc[j].last &&
			    inc[j].first <= inc[i].last)
				return fwd_err(err, errlen,
					       "ranges %u-%u and %u-%u overlap",
					       inc[i].first, inc[i].last,
					       inc[j].first, inc[j].last);
		}
	}

	/* Exclusions: sort and merge so that subtraction is one pass */
	fwd_range_sort(exc, nexc);
	for (i = 0, j = 0; i < nexc; i++) {
		if (j && exc[i].first <= exc[j - 1].last + 1U) {
			if (exc[i].last > exc[j - 1].last)
				exc[j - 1].last = exc[i].last;
			continue;
		}
		exc[j++] = exc[i];
	}
	nexc = j;

	/* The ranges to forward: given ones, less exclusions */
	nsrc = ninc;
	if (!ninc && !autop) {
		/* "all", or exclusions only: non-ephemeral ports, weak */
		uint16_t efirst, elast;

		if (!fwd_eph_loaded)	/* set-up: conf_parse() loads it */
			fwd_ephemeral_load();
		efirst = fwd_eph_cache[0];
		elast = fwd_eph_cache[1];
		if (efirst > 1)
			base[nbase++] = (struct fwd_range){ 1, efirst - 1, 1 };
		if (elast < 65535)
			base[nbase++] = (struct fwd_range){ elast + 1, 65535,
							    elast + 1 };
		tmpl.weak = true;
		src = base;
		nsrc = nbase;
		none = "no ports left to forward after exclusions";
	}
	for (i = 0; i < nsrc; i++) {
		rc = fwd_subtract(out, &nout, &tmpl, &src[i], exc, nexc, err,
				  errlen);
		if (rc)
			return rc;
	}
	if (!nout && !autop)
		return fwd_err(err, errlen, "%s", none);

	/* Against rules already in the table (earlier options) */
	for (i = 0; i < nout; i++) {
		for (j = 0; j < t->n; j++) {
			const struct fwd_rule *o = &t->rules[j];

			if (!fwd_rule_same_bind(o, &out[i]))
				continue;
			if (out[i].first <= o->last && o->first <= out[i].last)
				return fwd_err(err, errlen,
					       "%s port %u is already forwarded by an earlier option",
					       side, MAX(out[i].first, o->first));
		}
	}
	if (t->n + nout > CONF_MAX_FWD_RULES)
		return fwd_err(err, errlen,
			       "too many forwarding rules (at most %d per protocol and direction)",
			       CONF_MAX_FWD_RULES);

	memcpy(&t->rules[t->n], out, nout * sizeof(out[0]));
	t->n += nout;
	if (autop) {
		t->auto_on = true;
		t->auto_bind = tmpl;
		t->auto_bind.weak = true;
		t->auto_nexc = nexc;
		for (i = 0; i < nexc; i++)
			t->auto_exc[i] = (struct fwd_excl){ exc[i].first,
							    exc[i].last };
	}
	return 0;
}

/**
 * fwd_auto_excluded() - Does the "auto" spec of a table leave a port out?
 * @t:		Table
 * @port:	Port, host order
 *
 * Return: true if an exclusion of the spec covers @port
 */
bool fwd_auto_excluded(const struct fwd_table *t, uint16_t port)
{
	unsigned i;

	for (i = 0; i < t->auto_nexc; i++) {
		if (port < t->auto_exc[i].first)
			return false;	/* sorted */
		if (port <= t->auto_exc[i].last)
			return true;
	}
	return false;
}

/**
 * fwd_rule_fmt() - Describe a rule for logs, e.g. "[*]%eth0:22-80 => 32-90"
 * @r:		Rule
 * @buf:	Output buffer
 * @len:	Size of @buf
 *
 * Return: snprintf() result: characters needed, excluding the NUL
 */
int fwd_rule_fmt(const struct fwd_rule *r, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN] = "*";
	char range[16], to[16];

	if (r->af != AF_UNSPEC)
		inany_ntop(&r->addr, addr);
	if (r->first == r->last) {
		snprintf(range, sizeof(range), "%u", r->first);
		snprintf(to, sizeof(to), "%u", r->to);
	} else {
		snprintf(range, sizeof(range), "%u-%u", r->first, r->last);
		snprintf(to, sizeof(to), "%u-%u", r->to,
			 (unsigned)r->to + (r->last - r->first));
	}
	return snprintf(buf, len, "[%s]%s%s:%s => %s%s", addr,
			r->ifname[0] ? "%" : "", r->ifname, range, to,
			r->weak ? " (weak)" : "");
}
