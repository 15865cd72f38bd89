// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/ports.c - Parse port forwarding specifications into rule tables
 *
 * A specification is what follows -t, -u, -T or -U (upstream's grammar,
 * passt(1) and pesto(1) as of 2026):
 *
 *	none
 *	[BIND/]ELEM[,ELEM]...
 *
 * where BIND is ADDR, [ADDR], * (both families, the default), each with an
 * optional %IF, or %IF alone; ADDR is an IPv4 or IPv6 address (brackets
 * are optional, but an IPv6 address ending a spec is easier to read in
 * them: [::]/8080).  ELEM is one of
 *
 *	P | A-B		forward these ports to the same ports
 *	P:Q | A-B:C-D	forward A..B to C..D (both ranges equally long);
 *			A-B:C is accepted as A-B:C-(C+B-A)
 *	P:TADDR/Q, A-B:TADDR/C-D, P:TADDR
 *			as above, to address TADDR on the other side
 *			instead of the guest's or namespace's own address
 *			(-t and -u only; TADDR of the family of BIND, which
 *			defaults to that family's wildcard then)
 *	~P | ~A-B	exclude these ports from the other elements
 *	all[:TADDR]	every port outside the ephemeral range
 *	auto		(pasta) forward the ports of the spec only while
 *			something listens on them on the other side, found
 *			at run time (passt/fwd_auto.c): "auto" alone, with
 *			"all" or with exclusions only, any port; with ports
 *			and ranges, only those
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
#include "../lib/inany.h"
#include "../lib/visible.h"

VISIBLE_IF_UNIT
const char *fwd_ephemeral_path = FWD_EPHEMERAL_PATH;

#define FWD_MAX_ELEMS	CONF_MAX_FWD_RULES	/* includes, or excludes */

/**
 * struct fwd_range - One include or exclude element of a spec
 * @first:	First port, host order
 * @last:	Last port (inclusive)
 * @to:		Target port for @first (includes only)
 * @tset:	@taddr is given (includes only)
 * @taddr:	Target address on the other side
 */
struct fwd_range {
	uint16_t first;
	uint16_t last;
	uint16_t to;
	bool tset;
	union inany taddr;
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
 * fwd_addr_parse() - Parse an IPv4 or IPv6 address, in brackets or not
 * @s:		Start of the text
 * @end:	End of the text (exclusive)
 * @a:		Result, IPv4-mapped for IPv4, network order
 *
 * Return: AF_INET or AF_INET6, or -EINVAL if the text is no address
 */
static int fwd_addr_parse(const char *s, const char *end, union inany *a)
{
	char buf[INET6_ADDRSTRLEN + 1];
	size_t len = (size_t)(end - s);
	struct in_addr a4;

	if (len >= 2 && s[0] == '[' && end[-1] == ']') {
		s++;
		len -= 2;
	}
	if (!len || len >= sizeof(buf) || memchr(s, '[', len) ||
	    memchr(s, ']', len))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET, buf, &a4) == 1) {
		inany_from_v4(a, a4);
		return AF_INET;
	}
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET6, buf, &a->a6) == 1)
		return AF_INET6;
	return -EINVAL;
}

/**
 * fwd_prefix_parse() - Parse the bind address and interface before '/'
 * @s:		Start of the prefix
 * @end:	The '/' ending it
 * @tmpl:	Rule template: @af, @addr and @ifname are set
 * @star:	Set if the address is "*", the explicit wildcard of both
 *		families
 * @err:	Error message buffer
 * @errlen:	Size of @err
 *
 * Accepted: ADDR, [ADDR], * or nothing, then optionally %IF.  "[*]" is
 * not "*" (upstream dropped it again).
 *
 * Return: 0 on success, -EINVAL with a message in @err
 */
static int fwd_prefix_parse(const char *s, const char *end,
			    struct fwd_rule *tmpl, bool *star, char *err,
			    size_t errlen)
{
	const char *close = s < end && *s == '[' ?
			    memchr(s, ']', (size_t)(end - s)) : NULL;
	const char *pct = memchr(close ? close : s, '%',
				 (size_t)(end - (close ? close : s)));
	const char *aend = pct ? pct : end;
	size_t alen = (size_t)(aend - s);
	int af;

	if (pct) {
		size_t iflen = (size_t)(end - pct - 1);
		const char *p;

		if (!iflen || iflen >= IFNAMSIZ)
			return fwd_err(err, errlen,
				       "invalid interface name '%.*s' (accepted: 1-%d characters)",
				       (int)MIN(iflen, (size_t)64), pct + 1,
				       IFNAMSIZ - 1);
		for (p = pct + 1; p < end; p++) {
			if (*p <= ' ' || *p == '%' || *p > '~')
				return fwd_err(err, errlen,
					       "invalid interface name '%.*s'",
					       (int)iflen, pct + 1);
		}
		if ((iflen == 1 && pct[1] == '.') ||
		    (iflen == 2 && pct[1] == '.' && pct[2] == '.'))
			return fwd_err(err, errlen,
				       "invalid interface name '%.*s'",
				       (int)iflen, pct + 1);
		memcpy(tmpl->ifname, pct + 1, iflen);
		tmpl->ifname[iflen] = '\0';
	}

	if (!alen) {
		if (!pct)
			return fwd_err(err, errlen,
				       "empty bind address before '/' (accepted: ADDR/, [ADDR]/, */, ADDR%%IF/ or %%IF/)");
		tmpl->af = AF_UNSPEC;
		return 0;
	}
	if (alen == 1 && *s == '*') {
		tmpl->af = AF_UNSPEC;
		*star = true;
		return 0;
	}
	if (alen == 3 && !memcmp(s, "[*]", 3))
		return fwd_err(err, errlen,
			       "invalid bind address '[*]' (accepted: * for both families, 0.0.0.0 or [::] for one)");

	af = fwd_addr_parse(s, aend, &tmpl->addr);
	if (af < 0)
		return fwd_err(err, errlen,
			       "invalid bind address '%.*s' (accepted: IPv4 address, IPv6 address in brackets or not, or *)",
			       (int)MIN(alen, (size_t)64), s);
	tmpl->af = (sa_family_t)af;
	return 0;
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
	if (inc->tset) {
		r->tset = true;
		r->taddr = inc->taddr;
	}
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
 * fwd_target_parse() - Parse what follows ':' in an include element
 * @s:		Start of the target
 * @end:	End of the element (exclusive)
 * @r:		Include range: @to, @tset and @taddr are set
 * @err:	Error message buffer
 * @errlen:	Size of @err
 *
 * Accepted: PORT[-PORT], TADDR/PORT[-PORT] or TADDR (same ports), where
 * TADDR is an IPv4 or IPv6 address, in brackets or not.  An unspecified
 * TADDR (0.0.0.0, ::) means none.
 *
 * Return: 0 on success, -EINVAL with a message in @err
 */
static int fwd_target_parse(const char *s, const char *end,
			    struct fwd_range *r, char *err, size_t errlen)
{
	const char *slash = NULL, *p;
	int len = (int)MIN((size_t)(end - s), (size_t)64);
	struct fwd_range to;
	char why[160];

	for (p = s; p < end; p++) {
		if (*p == '/')
			slash = p;
	}
	if (slash || fwd_range_parse(s, end, &to, NULL, 0)) {
		const char *aend = slash ? slash : end;

		if (fwd_addr_parse(s, aend, &r->taddr) < 0)
			return fwd_err(err, errlen,
				       "invalid target '%.*s' (accepted: PORT[-PORT], ADDR/PORT[-PORT] or ADDR)",
				       len, s);
		r->tset = !inany_is_unspecified(&r->taddr);
		if (!slash) {
			to.first = r->first;
			to.last = r->last;
		} else if (fwd_range_parse(slash + 1, end, &to, why,
					   sizeof(why))) {
			return fwd_err(err, errlen, "target '%.*s': %s", len,
				       s, why);
		}
	}

	if (to.first == to.last && r->first != r->last) {
		/* A-B:C: shift the whole range to start at C */
		if ((unsigned)to.first + (r->last - r->first) > 65535)
			return fwd_err(err, errlen,
				       "'%.*s': target range ends beyond port 65535",
				       len, s);
	} else if (to.last - to.first != r->last - r->first) {
		return fwd_err(err, errlen,
			       "port ranges differ in length (%u and %u ports)",
			       r->last - r->first + 1U,
			       to.last - to.first + 1U);
	}
	r->to = to.first;
	return 0;
}

/**
 * struct fwd_elems - What the elements of one spec say
 * @inc:	Include ranges
 * @ninc:	Their number
 * @exc:	Exclude ranges
 * @nexc:	Their number
 * @all:	"all" is given
 * @all_tset:	"all:TADDR" is given
 * @all_taddr:	Its address
 * @autop:	"auto" is given
 */
struct fwd_elems {
	struct fwd_range inc[FWD_MAX_ELEMS];
	unsigned ninc;
	struct fwd_range exc[FWD_MAX_ELEMS];
	unsigned nexc;
	bool all;
	bool all_tset;
	union inany all_taddr;
	bool autop;
};

/**
 * fwd_elem_parse() - Parse one comma-separated element into @e
 * @s:		Start of the element
 * @end:	End of the element (exclusive)
 * @e:		Elements so far, updated
 * @err:	Error message buffer
 * @errlen:	Size of @err
 *
 * Return: 0 on success, -EINVAL with a message in @err
 */
static int fwd_elem_parse(const char *s, const char *end, struct fwd_elems *e,
			  char *err, size_t errlen)
{
	size_t len = (size_t)(end - s);
	int shown = (int)MIN(len, (size_t)64);
	const char *colon;
	struct fwd_range r;
	int rc;

	if (!len)
		return fwd_err(err, errlen,
			       "empty element (accepted: comma-separated ports, ranges or exclusions)");

	if (len >= 3 && !memcmp(s, "all", 3) && (len == 3 || s[3] == ':')) {
		if (e->all)
			return fwd_err(err, errlen, "'all' given twice");
		e->all = true;
		if (len == 3)
			return 0;
		if (fwd_addr_parse(s + 4, end, &e->all_taddr) < 0)
			return fwd_err(err, errlen,
				       "'%.*s': invalid target address (accepted: all:ADDR)",
				       shown, s);
		e->all_tset = !inany_is_unspecified(&e->all_taddr);
		return 0;
	}
	if (len == 4 && !memcmp(s, "auto", 4)) {
		e->autop = true;	/* twice is once, as upstream */
		return 0;
	}
	if (len == 4 && !memcmp(s, "none", 4))
		return fwd_err(err, errlen,
			       "'none' can't be combined with other ports");

	if (*s == '~') {
		if (memchr(s, ':', len))
			return fwd_err(err, errlen,
				       "exclusion '%.*s' can't have a target",
				       shown, s);
		rc = fwd_range_parse(s + 1, end, &r, err, errlen);
		if (rc)
			return rc;
		if (e->nexc >= FWD_MAX_ELEMS)
			return fwd_err(err, errlen,
				       "too many exclusions (at most %d)",
				       FWD_MAX_ELEMS);
		e->exc[e->nexc++] = r;
		return 0;
	}

	/* A word that is no keyword: say every form, not just the port's */
	if (*s < '0' || *s > '9')
		return fwd_err(err, errlen,
			       "unknown element '%.*s' (accepted: PORT, FIRST-LAST, PORTS:TO, ~PORTS, all, all:ADDR, auto, none)",
			       shown, s);

	memset(&r, 0, sizeof(r));
	colon = memchr(s, ':', len);
	rc = fwd_range_parse(s, colon ? colon : end, &r, err, errlen);
	if (rc)
		return rc;
	r.to = r.first;

	if (colon) {
		char why[200];

		if (fwd_target_parse(colon + 1, end, &r, why, sizeof(why)))
			return fwd_err(err, errlen, "'%.*s': %s", shown, s,
				       why);
	}

	if (e->ninc >= FWD_MAX_ELEMS)
		return fwd_err(err, errlen, "too many port ranges (at most %d)",
			       FWD_MAX_ELEMS);
	e->inc[e->ninc++] = r;
	return 0;
}

/**
 * fwd_split_prefix() - Find the bind prefix of a spec, if it has one
 * @spec:	Spec
 * @tmpl:	Rule template, bind address and interface set if found
 * @star:	Set if the bind address is "*"
 * @list:	Result: start of the list of elements
 * @err:	Error message buffer
 * @errlen:	Size of @err
 *
 * The text up to the first '/' is a bind prefix if it reads as one; if it
 * doesn't, and holds a ':' or ',' outside brackets, the '/' belongs to a
 * target address (5000:192.0.2.5/6000) and there's no prefix.
 *
 * Return: 0, or -EINVAL with a message in @err
 */
static int fwd_split_prefix(const char *spec, struct fwd_rule *tmpl,
			    bool *star, const char **list, char *err,
			    size_t errlen)
{
	const char *slash = strchr(spec, '/');
	struct fwd_rule try = *tmpl;
	bool try_star = false;
	const char *p;
	int rc;

	*list = spec;
	if (!slash)
		return 0;
	rc = fwd_prefix_parse(spec, slash, &try, &try_star, err, errlen);
	if (!rc) {
		*tmpl = try;
		*star = try_star;
		*list = slash + 1;
		if (!**list)
			return fwd_err(err, errlen,
				       "no ports after '/' (accepted: ADDR/PORTS)");
		return 0;
	}
	if (*spec == '[')
		return rc;
	for (p = spec; p < slash; p++) {
		if (*p == ':' || *p == ',') {
			if (err && errlen)
				err[0] = '\0';
			return 0;	/* a target address: no prefix */
		}
	}
	return rc;
}

/**
 * fwd_auto_set() - Record "auto" in a table, or add to the ranges of an
 *		    earlier "RANGES,auto"
 * @t:		Table
 * @tmpl:	Bind address and interface
 * @exc:	Exclusions of the spec, sorted, merged
 * @nexc:	Their number
 * @only:	Ranges "auto" is limited to, exclusions taken out
 * @nonly:	Their number, 0 for any port
 * @err:	Error message buffer
 * @errlen:	Size of @err
 *
 * Return: 0, or -EINVAL with a message in @err (nothing changed)
 */
static int fwd_auto_set(struct fwd_table *t, const struct fwd_rule *tmpl,
			const struct fwd_range *exc, unsigned nexc,
			const struct fwd_rule *only, unsigned nonly,
			char *err, size_t errlen)
{
	unsigned i, j, n;

	if (t->auto_on) {
		/* "-t 80,auto -t 8000-8010,auto": one more set of ranges */
		if (!t->auto_nonly || !nonly ||
		    !fwd_rule_same_bind(&t->auto_bind, tmpl))
			return fwd_err(err, errlen,
				       "'auto' is already given by an earlier option (a second one may only add ports to an earlier PORTS,auto with the same address)");
		if (t->auto_nonly + nonly > CONF_MAX_FWD_RULES)
			return fwd_err(err, errlen,
				       "too many 'auto' ranges (at most %d)",
				       CONF_MAX_FWD_RULES);
		for (i = 0; i < nonly; i++) {
			for (j = 0; j < t->auto_nonly; j++) {
				const struct fwd_excl *o = &t->auto_only[j];
				unsigned ti = only[i].to, tj = o->to;

				if (only[i].first <= o->last &&
				    o->first <= only[i].last)
					return fwd_err(err, errlen,
						       "port %u is already given with 'auto' by an earlier option",
						       MAX(only[i].first,
							   o->first));
				if (ti <= tj + (o->last - o->first) &&
				    tj <= ti + (only[i].last - only[i].first))
					return fwd_err(err, errlen,
						       "target port %u is already given with 'auto' by an earlier option",
						       MAX(ti, tj));
			}
		}
		n = t->auto_nonly;
		for (i = 0; i < nonly; i++) {
			/* insertion, keeping the list sorted */
			for (j = n; j && t->auto_only[j - 1].first >
					 only[i].first; j--)
				t->auto_only[j] = t->auto_only[j - 1];
			t->auto_only[j] = (struct fwd_excl){ only[i].first,
							     only[i].last,
							     only[i].to };
			n++;
		}
		t->auto_nonly = n;
		return 0;
	}

	t->auto_on = true;
	t->auto_bind = *tmpl;
	t->auto_bind.weak = true;
	t->auto_nexc = nexc;
	for (i = 0; i < nexc; i++)
		t->auto_exc[i] = (struct fwd_excl){ exc[i].first, exc[i].last,
						    exc[i].first };
	t->auto_nonly = nonly;
	for (i = 0; i < nonly; i++)
		t->auto_only[i] = (struct fwd_excl){ only[i].first,
						     only[i].last,
						     only[i].to };
	return 0;
}

/**
 * fwd_rule_same() - Are two rules the same, bind, ports and target?
 * @a:		First rule
 * @b:		Second rule
 *
 * Return: true if so: adding @b again changes nothing
 */
static bool fwd_rule_same(const struct fwd_rule *a, const struct fwd_rule *b)
{
	if (!fwd_rule_same_bind(a, b) || a->first != b->first ||
	    a->last != b->last || a->to != b->to || a->tset != b->tset ||
	    a->weak != b->weak)
		return false;
	return !a->tset || inany_equals(&a->taddr, &b->taddr);
}

/**
 * fwd_spec_parse() - Parse one port forwarding spec and add its rules
 * @t:		Table to append to (unchanged on error)
 * @spec:	Option argument, see the syntax at the top of this file
 * @ns_side:	The ports are bound in the target namespace (-T, -U), not on
 *		the host: target addresses are refused
 * @err:	Buffer for a one-line reason on error (no option name, no
 *		newline), may be NULL
 * @errlen:	Size of @err
 *
 * "none" adds nothing and succeeds: refusing "none" next to other specs
 * for the same table is up to the caller.  "all" and exclusion-only specs
 * cover 1-65535 minus the ephemeral range (fwd_ephemeral_load()), as weak
 * rules.  "auto" sets @t->auto_on, @t->auto_bind, the exclusions
 * (@t->auto_exc) and, with ports or ranges, the only ports it may
 * forward (@t->auto_only): those become no rules.  A rule equal to one
 * already in the table (bind address, ports, target) is not added again,
 * and is no error: adding is idempotent, as podman expects of pesto.
 *
 * Return: 0 on success, -EINVAL with a message in @err for malformed
 *	   specs, port 0 or > 65535, inverted ranges, remapping with
 *	   ranges of different lengths, ports already forwarded for the
 *	   same bind address and interface, more than CONF_MAX_FWD_RULES
 *	   rules in the table, a target address on the namespace side, of
 *	   another family than the bind address, multicast, or with "*" or
 *	   "auto", a second "auto" for the table other than more ranges
 */
int fwd_spec_parse(struct fwd_table *t, const char *spec, bool ns_side,
		   char *err, size_t errlen)
{
	static struct fwd_rule out[CONF_MAX_FWD_RULES];
	static struct fwd_elems e;
	const char *none = "exclusions remove every port of the spec";
	unsigned nout = 0, nbase = 0, nsrc, nnew, i, j;
	const char *side = ns_side ? "namespace" : "host";
	struct fwd_rule tmpl = { .af = AF_UNSPEC };
	const struct fwd_range *src = e.inc;
	struct fwd_range base[2];
	const char *list, *p, *end;
	int tfam = AF_UNSPEC;
	bool star = false;
	size_t len;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!t || !spec || !*spec)
		return fwd_err(err, errlen,
			       "empty spec (accepted: none, all, auto, or ports like 22,80-90,2222:22)");
	len = strlen(spec);
	if (len > FWD_SPEC_MAX_LEN)
		return fwd_err(err, errlen, "spec longer than %d characters",
			       FWD_SPEC_MAX_LEN);
	if (!strcmp(spec, "none"))
		return 0;

	end = spec + len;
	rc = fwd_split_prefix(spec, &tmpl, &star, &list, err, errlen);
	if (rc)
		return rc;

	memset(&e, 0, sizeof(e));
	for (p = list; ; p++) {
		const char *comma = strchr(p, ',');
		const char *el = comma ? comma : end;

		rc = fwd_elem_parse(p, el, &e, err, errlen);
		if (rc)
			return rc;
		if (!comma)
			break;
		p = comma;
	}

	if (e.all && e.ninc)
		return fwd_err(err, errlen,
			       "'all' can't be combined with port ranges");
	if (e.all && e.autop && e.all_tset)
		return fwd_err(err, errlen,
			       "'auto' can't be combined with all:ADDR (accepted: all,auto)");

	/* Target addresses: all of one family, matching the bind address */
	for (i = 0; i <= e.ninc; i++) {
		const union inany *ta = i < e.ninc ? &e.inc[i].taddr :
						     &e.all_taddr;
		bool set = i < e.ninc ? e.inc[i].tset : e.all_tset;
		int af;

		if (!set)
			continue;
		if (ns_side)
			return fwd_err(err, errlen,
				       "target addresses are for -t and -u only (-T and -U connect to the host's loopback)");
		if (e.autop)
			return fwd_err(err, errlen,
				       "'auto' can't be combined with a target address");
		if (star)
			return fwd_err(err, errlen,
				       "a target address needs a bind address of its family, not * (accepted: 0.0.0.0/PORT:ADDR/PORT or [::]/PORT:ADDR/PORT)");
		if (inany_v4(ta) ? IN_MULTICAST(ntohl(inany_v4(ta)->s_addr)) :
				   IN6_IS_ADDR_MULTICAST(&ta->a6))
			return fwd_err(err, errlen,
				       "multicast target address");
		if (inany_v4(ta) ? (ntohl(inany_v4(ta)->s_addr) >> 24) ==
				   IN_LOOPBACKNET :
				   IN6_IS_ADDR_LOOPBACK(&ta->a6))
			return fwd_err(err, errlen,
				       "loopback target address: the guest drops frames to it from outside (RFC 1122 3.2.1.3 (g)); without a target address, connections from the host's loopback reach the namespace's loopback");
		af = inany_af(ta);
		if (tfam != AF_UNSPEC && af != tfam)
			return fwd_err(err, errlen,
				       "target addresses of both families in one spec (accepted: one spec per family)");
		tfam = af;
		if (tmpl.af != AF_UNSPEC && tmpl.af != af)
			return fwd_err(err, errlen,
				       "%s bind address with an %s target address (accepted: both of one family)",
				       tmpl.af == AF_INET ? "IPv4" : "IPv6",
				       af == AF_INET ? "IPv4" : "IPv6");
	}
	if (tfam != AF_UNSPEC && tmpl.af == AF_UNSPEC) {
		/* 5000:192.0.2.5/6000: the wildcard of the target's family */
		struct in_addr any4 = { .s_addr = htonl(INADDR_ANY) };

		tmpl.af = (sa_family_t)tfam;
		if (tfam == AF_INET)
			inany_from_v4(&tmpl.addr, any4);
		else
			memset(&tmpl.addr, 0, sizeof(tmpl.addr));
	}

	/* Overlapping includes in one spec would make two listeners */
	for (i = 0; i < e.ninc; i++) {
		for (j = i + 1; j < e.ninc; j++) {
			unsigned ti = e.inc[i].to, tj = e.inc[j].to;

			if (e.inc[i].first <= e.inc[j].last &&
			    e.inc[j].first <= e.inc[i].last)
				return fwd_err(err, errlen,
					       "ranges %u-%u and %u-%u overlap",
					       e.inc[i].first, e.inc[i].last,
					       e.inc[j].first, e.inc[j].last);
			/* "auto" follows each target port to one port */
			if (e.autop &&
			    ti <= tj + (e.inc[j].last - e.inc[j].first) &&
			    tj <= ti + (e.inc[i].last - e.inc[i].first))
				return fwd_err(err, errlen,
					       "with 'auto', target ports %u and %u overlap",
					       ti, tj);
		}
	}

	/* Exclusions: sort and merge so that subtraction is one pass */
	fwd_range_sort(e.exc, e.nexc);
	for (i = 0, j = 0; i < e.nexc; i++) {
		if (j && e.exc[i].first <= e.exc[j - 1].last + 1U) {
			if (e.exc[i].last > e.exc[j - 1].last)
				e.exc[j - 1].last = e.exc[i].last;
			continue;
		}
		e.exc[j++] = e.exc[i];
	}
	e.nexc = j;

	/* The ranges to forward: given ones, less exclusions */
	nsrc = e.ninc;
	if (!e.ninc && !e.autop) {
		/* "all", or exclusions only: non-ephemeral ports, weak */
		uint16_t efirst, elast;

		if (!fwd_eph_loaded)	/* set-up: conf_parse() loads it */
			fwd_ephemeral_load();
		efirst = fwd_eph_cache[0];
		elast = fwd_eph_cache[1];
		if (efirst > 1)
			base[nbase++] = (struct fwd_range){ 1, efirst - 1, 1,
							    e.all_tset,
							    e.all_taddr };
		if (elast < 65535)
			base[nbase++] = (struct fwd_range){ elast + 1, 65535,
							    elast + 1,
							    e.all_tset,
							    e.all_taddr };
		tmpl.weak = true;
		src = base;
		nsrc = nbase;
		none = "no ports left to forward after exclusions";
	}
	for (i = 0; i < nsrc; i++) {
		rc = fwd_subtract(out, &nout, &tmpl, &src[i], e.exc, e.nexc,
				  err, errlen);
		if (rc)
			return rc;
	}
	if (!nout && (!e.autop || e.ninc))
		return fwd_err(err, errlen, "%s", none);

	if (e.autop) {
		/* "PORTS,auto": those ports, only while something listens
		 * on them on the other side; no rules of their own
		 */
		return fwd_auto_set(t, &tmpl, e.exc, e.nexc, out, nout, err,
				    errlen);
	}

	/* Against rules already in the table (earlier options) */
	for (i = 0, nnew = 0; i < nout; i++) {
		bool dup = false;

		for (j = 0; j < t->n; j++) {
			const struct fwd_rule *o = &t->rules[j];

			if (!fwd_rule_same_bind(o, &out[i]))
				continue;
			if (fwd_rule_same(o, &out[i])) {
				dup = true;
				break;
			}
			if (out[i].first <= o->last && o->first <= out[i].last)
				return fwd_err(err, errlen,
					       "%s port %u is already forwarded by an earlier option",
					       side, MAX(out[i].first, o->first));
		}
		if (!dup)
			out[nnew++] = out[i];
	}
	if (t->n + nnew > CONF_MAX_FWD_RULES)
		return fwd_err(err, errlen,
			       "too many forwarding rules (at most %d per protocol and direction)",
			       CONF_MAX_FWD_RULES);

	memcpy(&t->rules[t->n], out, nnew * sizeof(out[0]));
	t->n += nnew;
	return 0;
}

/**
 * fwd_auto_excluded() - Does the "auto" spec of a table leave a port out?
 * @t:		Table
 * @port:	Port, host order
 *
 * Return: true if an exclusion of the spec covers @port, or if the spec
 *	   gives ports ("8000-8010,auto") and @port is none of them
 */
VISIBLE_IF_UNIT
bool fwd_auto_excluded(const struct fwd_table *t, uint16_t port)
{
	unsigned i;

	if (t->auto_nonly) {
		/* sorted, exclusions already taken out */
		for (i = 0; i < t->auto_nonly; i++) {
			if (port < t->auto_only[i].first)
				return true;
			if (port <= t->auto_only[i].last)
				return false;
		}
		return true;
	}

	for (i = 0; i < t->auto_nexc; i++) {
		if (port < t->auto_exc[i].first)
			return false;	/* sorted */
		if (port <= t->auto_exc[i].last)
			return true;
	}
	return false;
}

/**
 * fwd_auto_map() - Which port "auto" listens on for a port of the other side
 * @t:		Table
 * @port:	Port that listens on the scanned side, host order
 * @lport:	Result: port to listen on, on this side, host order
 *
 * Without ports in the spec ("auto", "auto,~22"), @port itself unless
 * excluded; with ports ("8000-8010,auto", "2222:22,auto"), the port of
 * the range whose target @port is.
 *
 * Return: index of that range in @t->auto_only (0 without ports), or -1
 *	   if "auto" doesn't forward @port
 */
int fwd_auto_map(const struct fwd_table *t, uint16_t port, uint16_t *lport)
{
	unsigned i;

	if (!t->auto_nonly) {
		if (fwd_auto_excluded(t, port))
			return -1;
		*lport = port;
		return 0;
	}
	for (i = 0; i < t->auto_nonly; i++) {
		const struct fwd_excl *o = &t->auto_only[i];

		if (port >= o->to && port - o->to <= o->last - o->first) {
			*lport = (uint16_t)(o->first + (port - o->to));
			return (int)i;
		}
	}
	return -1;
}

/**
 * fwd_rule_fmt() - Describe a rule for logs, e.g. "[*]%eth0:22-80 => 32-90"
 *		    or "[0.0.0.0]:5000 => [192.0.2.5]:6000"
 * @r:		Rule
 * @buf:	Output buffer
 * @len:	Size of @buf
 *
 * Return: snprintf() result: characters needed, excluding the NUL
 */
int fwd_rule_fmt(const struct fwd_rule *r, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN] = "*", taddr[INET6_ADDRSTRLEN + 3] = "";
	char range[16], to[16];

	if (r->af != AF_UNSPEC)
		inany_ntop(&r->addr, addr);
	if (r->tset) {
		char a[INET6_ADDRSTRLEN];

		snprintf(taddr, sizeof(taddr), "[%s]:",
			 inany_ntop(&r->taddr, a));
	}
	if (r->first == r->last) {
		snprintf(range, sizeof(range), "%u", r->first);
		snprintf(to, sizeof(to), "%u", r->to);
	} else {
		snprintf(range, sizeof(range), "%u-%u", r->first, r->last);
		snprintf(to, sizeof(to), "%u-%u", r->to,
			 (unsigned)r->to + (r->last - r->first));
	}
	return snprintf(buf, len, "[%s]%s%s:%s => %s%s%s", addr,
			r->ifname[0] ? "%" : "", r->ifname, range, taddr, to,
			r->weak ? " (weak)" : "");
}
