// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/wire.c - pesto's wire protocol: frames, and our tables as its rules
 *
 * The frame layout is in conf/wire.h.  Our four tables (-t, -u, -T, -U, in
 * enum fwd_tbl order: TCP host, UDP host, TCP namespace, UDP namespace)
 * become two tables of the protocol: HOST holds the -t then the -u rules,
 * SPLICE (pasta only) the -T then the -U ones, each rule naming its
 * protocol.  Per rule:
 *  - a bind address of both families (ours: AF_UNSPEC) is :: with
 *    WIRE_F_DUAL_STACK_ANY, a bind address of one family is that address
 *    (IPv4-mapped for IPv4), even a wildcard one;
 *  - -T and -U rules bind the namespace's loopback: on the wire, interface
 *    "lo" with the dual flag, as upstream writes them;
 *  - "weak" rules ("all", exclusion-only specs) have WIRE_F_WEAK;
 *  - a target address (tset) is the target address field, else zero.
 * "auto" becomes WIRE_F_SCAN rules at its bind address: "auto" for any port
 * (less exclusions) as weak ranges covering 1-65535 less the exclusions,
 * to the same ports; "RANGES,auto" as its ranges, not weak, with their
 * target ports.  Decoding reverses this, so a table read and sent back
 * unchanged is the same table; rules that no spec of ours can give (two
 * "auto" bind addresses in one table, say) are refused with a reason.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../lib/inany.h"
#include "../lib/visible.h"
#include "wire.h"

#define WIRE_TBLS	4	/* t, u, T, U: enum fwd_tbl order */

/**
 * wire_err() - Write a reason into an error buffer
 * @err:	Buffer, may be NULL
 * @errlen:	Its size
 * @fmt:	printf() format, then its arguments
 *
 * Return: -EINVAL
 */
__attribute__((format(printf, 3, 4)))
static int wire_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/**
 * wire_hello_put() - Write the server's hello
 * @buf:	Buffer of at least WIRE_HELLO_LEN bytes
 *
 * Return: WIRE_HELLO_LEN
 */
VISIBLE_IF_UNIT
size_t wire_hello_put(uint8_t *buf)
{
	memcpy(buf, WIRE_MAGIC, WIRE_MAGIC_LEN);	/* NUL included */
	put_be32(buf + 8, WIRE_VERSION);
	put_be32(buf + 12, WIRE_PIF_NAME_SIZE);
	put_be32(buf + 16, WIRE_IFNAMSIZ);
	return WIRE_HELLO_LEN;
}

/**
 * wire_hello_check() - Is a server's hello one we speak?
 * @buf:	WIRE_HELLO_LEN bytes
 * @err:	Buffer for the reason
 * @errlen:	Its size
 *
 * Return: 0, or -EINVAL for another magic, a version other than 2 (0 is
 *	   upstream's experimental one, 1 had no target addresses and isn't
 *	   compatible), or other name sizes
 */
int wire_hello_check(const uint8_t *buf, char *err, size_t errlen)
{
	uint32_t v = get_be32(buf + 8);

	if (memcmp(buf, WIRE_MAGIC, WIRE_MAGIC_LEN))
		return wire_err(err, errlen,
				"not a pesto control socket (bad magic)");
	if (v != WIRE_VERSION)
		return wire_err(err, errlen,
				"server speaks protocol version %u, we speak %u",
				v, WIRE_VERSION);
	if (get_be32(buf + 12) != WIRE_PIF_NAME_SIZE ||
	    get_be32(buf + 16) != WIRE_IFNAMSIZ)
		return wire_err(err, errlen,
				"server has name sizes %u and %u, not %u and %u",
				get_be32(buf + 12), get_be32(buf + 16),
				WIRE_PIF_NAME_SIZE, WIRE_IFNAMSIZ);
	return 0;
}

/**
 * wire_rule_put() - Write one rule
 * @p:		WIRE_RULE_LEN bytes
 * @r:		Rule
 */
void wire_rule_put(uint8_t *p, const struct wire_rule *r)
{
	memcpy(p, &r->addr, 16);
	memcpy(p + 16, &r->taddr, 16);
	memcpy(p + 32, r->ifname, WIRE_IFNAMSIZ);
	put_be16(p + 48, r->first);
	put_be16(p + 50, r->last);
	put_be16(p + 52, r->to);
	p[54] = r->proto;
	p[55] = r->flags;
}

/**
 * wire_rule_get() - Read and check one rule
 * @p:		WIRE_RULE_LEN bytes
 * @r:		Decoded rule
 * @err:	Buffer for the reason
 * @errlen:	Its size
 *
 * Return: 0, or -EINVAL for an interface name without NUL, unknown flags
 *	   or protocol, port 0, an inverted range, a target range past
 *	   65535, a dual-stack rule with an address other than ::
 */
static int wire_rule_get(const uint8_t *p, struct wire_rule *r, char *err,
			 size_t errlen)
{
	static const union inany any6;

	memset(r, 0, sizeof(*r));
	memcpy(&r->addr, p, 16);
	memcpy(&r->taddr, p + 16, 16);
	memcpy(r->ifname, p + 32, WIRE_IFNAMSIZ);
	r->first = get_be16(p + 48);
	r->last = get_be16(p + 50);
	r->to = get_be16(p + 52);
	r->proto = p[54];
	r->flags = p[55];

	if (r->ifname[WIRE_IFNAMSIZ - 1])
		return wire_err(err, errlen,
				"interface name not NUL-terminated");
	if (r->flags & ~WIRE_F_ALL)
		return wire_err(err, errlen, "unknown rule flags 0x%x",
				r->flags & ~WIRE_F_ALL);
	if (r->proto != IPPROTO_TCP && r->proto != IPPROTO_UDP)
		return wire_err(err, errlen, "protocol %u (accepted: 6, 17)",
				r->proto);
	if (!r->first || r->first > r->last)
		return wire_err(err, errlen, "port range %u-%u", r->first,
				r->last);
	if (!r->to || (unsigned)r->to + (r->last - r->first) > 65535)
		return wire_err(err, errlen, "target ports %u-%u",
				r->to, (unsigned)r->to + (r->last - r->first));
	if ((r->flags & WIRE_F_DUAL_STACK_ANY) &&
	    !inany_equals(&r->addr, &any6))
		return wire_err(err, errlen,
				"dual-stack rule with an address other than ::");
	return 0;
}

/**
 * wire_frame_get() - Read a frame: tables of a server or of a client
 * @buf:	Bytes received so far (without the hello for server frames)
 * @len:	Their number
 * @server:	Server frame (ids with name, capabilities and count), else
 *		a client's (ids with count)
 * @pifs:	Tables read, WIRE_PIF_MAX of them, or NULL to only find out
 *		whether the frame is complete (rules not checked: a few header
 *		bytes looked at, however long the frame)
 * @npifs:	Number of @pifs filled (with @pifs)
 * @err:	Buffer for the reason
 * @errlen:	Its size
 *
 * Return: length of the frame if @buf holds all of it, 0 if more bytes are
 *	   needed, -EINVAL for a pif id above WIRE_PIF_MAX, one given twice,
 *	   more than WIRE_MAX_RULES rules, a name without NUL, a bad rule
 */
ssize_t wire_frame_get(const uint8_t *buf, size_t len, bool server,
		       struct wire_pif *pifs, unsigned *npifs, char *err,
		       size_t errlen)
{
	size_t hdr = server ? 1 + WIRE_INFO_LEN : 1 + 4, off = 0;
	bool seen[WIRE_PIF_MAX + 1] = { false };
	unsigned n = 0, i;

	for (;;) {
		uint32_t count;
		uint8_t id;

		if (off >= len)
			return 0;
		id = buf[off];
		if (id == WIRE_PIF_NONE)
			break;
		if (id > WIRE_PIF_MAX)
			return wire_err(err, errlen, "unknown pif id %u", id);
		if (seen[id])
			return wire_err(err, errlen, "pif id %u given twice",
					id);
		seen[id] = true;
		if (len - off < hdr)
			return 0;
		count = get_be32(buf + off + hdr - 4);
		if (count > WIRE_MAX_RULES)
			return wire_err(err, errlen,
					"%u rules for pif %u (at most %u)",
					count, id, WIRE_MAX_RULES);
		if (len - off - hdr < (size_t)count * WIRE_RULE_LEN)
			return 0;

		if (pifs) {
			struct wire_pif *p = &pifs[n];

			memset(p->name, 0, sizeof(p->name));
			p->id = id;
			p->caps = 0;
			if (server) {
				memcpy(p->name, buf + off + 1,
				       WIRE_PIF_NAME_SIZE);
				if (p->name[WIRE_PIF_NAME_SIZE - 1])
					return wire_err(err, errlen,
							"pif name not NUL-terminated");
				p->caps = get_be32(buf + off + 1 +
						   WIRE_PIF_NAME_SIZE);
			}
			p->n = count;
			for (i = 0; i < count; i++) {
				char why[120];

				if (wire_rule_get(buf + off + hdr +
						  (size_t)i * WIRE_RULE_LEN,
						  &p->rules[i], why,
						  sizeof(why)))
					return wire_err(err, errlen,
							"pif %u, rule %u: %s",
							id, i + 1, why);
			}
		}
		n++;
		off += hdr + (size_t)count * WIRE_RULE_LEN;
	}
	if (npifs)
		*npifs = n;
	return (ssize_t)off + 1;
}

/**
 * wire_rule_bind() - Bind address, interface, flags of one of our rules
 * @r:		Our rule
 * @ns_side:	-T or -U: the namespace's loopback, "lo" on the wire
 * @w:		Wire rule, address, interface and dual flag set
 */
static void wire_rule_bind(const struct fwd_rule *r, bool ns_side,
			   struct wire_rule *w)
{
	if (r->af == AF_UNSPEC) {
		memset(&w->addr, 0, sizeof(w->addr));
		w->flags |= WIRE_F_DUAL_STACK_ANY;
	} else {
		w->addr = r->addr;
	}
	if (ns_side && r->af == AF_UNSPEC && !*r->ifname)
		strcpy(w->ifname, "lo");
	else
		memcpy(w->ifname, r->ifname, WIRE_IFNAMSIZ);
	w->ifname[WIRE_IFNAMSIZ - 1] = '\0';
}

/**
 * wire_table_rules() - Our table as wire rules
 * @t:		Table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP, written into each rule
 * @ns_side:	-T or -U table
 * @out:	Rules written: the table's rules in order, then "auto"
 * @max:	Room in @out
 *
 * Return: number of rules, -ENOSPC if @max is too small
 */
int wire_table_rules(const struct fwd_table *t, uint8_t proto, bool ns_side,
		     struct wire_rule *out, unsigned max)
{
	unsigned n = 0, i;

	for (i = 0; i < t->n; i++) {
		const struct fwd_rule *r = &t->rules[i];
		struct wire_rule *w = &out[n];

		if (n >= max)
			return -ENOSPC;
		memset(w, 0, sizeof(*w));
		wire_rule_bind(r, ns_side, w);
		if (r->tset)
			w->taddr = r->taddr;
		w->first = r->first;
		w->last = r->last;
		w->to = r->to;
		w->proto = proto;
		if (r->weak)
			w->flags |= WIRE_F_WEAK;
		n++;
	}
	if (!t->auto_on)
		return (int)n;

	if (t->auto_nonly) {
		for (i = 0; i < t->auto_nonly; i++) {
			const struct fwd_excl *e = &t->auto_only[i];
			struct wire_rule *w = &out[n];

			if (n >= max)
				return -ENOSPC;
			memset(w, 0, sizeof(*w));
			wire_rule_bind(&t->auto_bind, ns_side, w);
			w->first = e->first;
			w->last = e->last;
			w->to = e->to;
			w->proto = proto;
			w->flags |= WIRE_F_SCAN;
			n++;
		}
		return (int)n;
	}

	/* Any port, less the exclusions (sorted, not overlapping) */
	{
		unsigned next = 1;

		for (i = 0; i <= t->auto_nexc; i++) {
			unsigned end = i < t->auto_nexc ?
				       t->auto_exc[i].first : 65536U;
			struct wire_rule *w = &out[n];

			if (end > next) {
				if (n >= max)
					return -ENOSPC;
				memset(w, 0, sizeof(*w));
				wire_rule_bind(&t->auto_bind, ns_side, w);
				w->first = (uint16_t)next;
				w->last = (uint16_t)(end - 1);
				w->to = w->first;
				w->proto = proto;
				w->flags |= WIRE_F_SCAN | WIRE_F_WEAK;
				n++;
			}
			if (i < t->auto_nexc)
				next = t->auto_exc[i].last + 1U;
		}
	}
	return (int)n;
}

/**
 * wire_our_rule() - A wire rule as one of ours, bind and target part
 * @w:		Wire rule (checked by wire_rule_get())
 * @ns_side:	-T or -U table
 * @r:		Our rule: af, addr, ifname, tset, taddr, ports
 * @err:	Buffer for the reason
 * @errlen:	Its size
 *
 * Return: 0, or -EINVAL for what our tables can't hold: on the namespace
 *	   side, a bind address or interface other than the loopback ones,
 *	   or a target address; a target address with the dual flag, of
 *	   another family than the bind address, or multicast
 */
static int wire_our_rule(const struct wire_rule *w, bool ns_side,
			 struct fwd_rule *r, char *err, size_t errlen)
{
	bool dual = w->flags & WIRE_F_DUAL_STACK_ANY;

	memset(r, 0, sizeof(*r));
	if (ns_side) {
		if (!dual || (*w->ifname && strcmp(w->ifname, "lo")))
			return wire_err(err, errlen,
					"SPLICE rules bind the namespace's loopback: bind address or interface not supported (accepted: ::, dual-stack, interface lo)");
		if (!inany_is_unspecified(&w->taddr))
			return wire_err(err, errlen,
					"SPLICE rules can't have a target address");
		r->af = AF_UNSPEC;
	} else {
		r->af = dual ? AF_UNSPEC : (sa_family_t)inany_af(&w->addr);
		if (!dual)
			r->addr = w->addr;
		memcpy(r->ifname, w->ifname, sizeof(r->ifname));
		r->ifname[sizeof(r->ifname) - 1] = '\0';
	}
	if (!inany_is_unspecified(&w->taddr)) {
		const struct in_addr *a4 = inany_v4(&w->taddr);

		if (dual)
			return wire_err(err, errlen,
					"dual-stack rule with a target address (accepted: a bind address of the target's family)");
		if (inany_af(&w->taddr) != r->af)
			return wire_err(err, errlen,
					"bind and target address of different families");
		if (a4 ? IN_MULTICAST(ntohl(a4->s_addr)) :
			 IN6_IS_ADDR_MULTICAST(&w->taddr.a6))
			return wire_err(err, errlen,
					"multicast target address");
		if (a4 ? (ntohl(a4->s_addr) >> 24) == IN_LOOPBACKNET :
			 IN6_IS_ADDR_LOOPBACK(&w->taddr.a6))
			return wire_err(err, errlen,
					"loopback target address (RFC 1122 3.2.1.3 (g): never reachable over the tap)");
		r->tset = true;
		r->taddr = w->taddr;
	}
	r->first = w->first;
	r->last = w->last;
	r->to = w->to;
	r->weak = w->flags & WIRE_F_WEAK;
	return 0;
}

/**
 * wire_same_bind() - Same bind address and interface?
 * @a:		Rule
 * @b:		Rule
 *
 * Return: true if so
 */
static bool wire_same_bind(const struct fwd_rule *a, const struct fwd_rule *b)
{
	if (a->af != b->af || strcmp(a->ifname, b->ifname))
		return false;
	return a->af == AF_UNSPEC || inany_equals(&a->addr, &b->addr);
}

/**
 * wire_rules_table() - Wire rules of one protocol as our table
 * @r:		Rules of a pif (any protocol: others are skipped)
 * @n:		Their number
 * @proto:	IPPROTO_TCP or IPPROTO_UDP: the rules taken
 * @ns_side:	-T or -U table
 * @t:		Table, written (unchanged on error)
 * @err:	Buffer for the reason
 * @errlen:	Its size
 *
 * Return: 0, or -EINVAL for rules our tables can't hold (wire_our_rule()),
 *	   overlapping ports for one bind address, more than
 *	   CONF_MAX_FWD_RULES rules, "auto" (scan) rules with different
 *	   bind addresses, a target address or overlapping ports
 */
static int wire_rules_table(const struct wire_rule *r, unsigned n,
			    uint8_t proto, bool ns_side, struct fwd_table *t, char *err,
			    size_t errlen)
{
	static struct fwd_table out;
	static struct fwd_excl scan[CONF_MAX_FWD_RULES];
	unsigned i, j, nscan = 0;
	bool all_weak = true;

	memset(&out, 0, sizeof(out));
	for (i = 0; i < n; i++) {
		struct fwd_rule fr;

		if (r[i].proto != proto)
			continue;
		if (wire_our_rule(&r[i], ns_side, &fr, err, errlen))
			return -EINVAL;

		if (r[i].flags & WIRE_F_SCAN) {
			if (fr.tset)
				return wire_err(err, errlen,
						"'auto' rule with a target address");
			fr.weak = true;
			if (!out.auto_on) {
				out.auto_on = true;
				out.auto_bind = fr;
			} else if (!wire_same_bind(&out.auto_bind, &fr)) {
				return wire_err(err, errlen,
						"'auto' rules with different bind addresses in one table");
			}
			if (nscan >= CONF_MAX_FWD_RULES)
				return wire_err(err, errlen,
						"more than %d 'auto' ranges",
						CONF_MAX_FWD_RULES);
			if (!(r[i].flags & WIRE_F_WEAK) || r[i].to != r[i].first)
				all_weak = false;
			/* insertion, sorted by first port */
			for (j = nscan; j && scan[j - 1].first > fr.first; j--)
				scan[j] = scan[j - 1];
			scan[j] = (struct fwd_excl){ fr.first, fr.last, fr.to };
			nscan++;
			continue;
		}

		for (j = 0; j < out.n; j++) {
			const struct fwd_rule *o = &out.rules[j];

			if (wire_same_bind(o, &fr) && fr.first <= o->last &&
			    o->first <= fr.last)
				return wire_err(err, errlen,
						"port %u forwarded twice for one bind address",
						fr.first > o->first ? fr.first :
								      o->first);
		}
		if (out.n >= CONF_MAX_FWD_RULES)
			return wire_err(err, errlen,
					"more than %d rules for one protocol and side",
					CONF_MAX_FWD_RULES);
		out.rules[out.n++] = fr;
	}

	for (i = 1; i < nscan; i++) {
		const struct fwd_excl *a = &scan[i - 1], *b = &scan[i];

		if (b->first <= a->last)
			return wire_err(err, errlen,
					"'auto' ranges overlap at port %u",
					b->first);
	}
	if (nscan && all_weak) {
		/* Any port less exclusions: the gaps are the exclusions */
		unsigned next = 1;

		for (i = 0; i <= nscan; i++) {
			unsigned end = i < nscan ? scan[i].first : 65536U;

			if (end > next) {
				if (out.auto_nexc >= CONF_MAX_FWD_RULES)
					return wire_err(err, errlen,
							"too many 'auto' exclusions");
				out.auto_exc[out.auto_nexc++] =
					(struct fwd_excl){ (uint16_t)next,
							   (uint16_t)(end - 1),
							   (uint16_t)next };
			}
			if (i < nscan)
				next = scan[i].last + 1U;
		}
	} else if (nscan) {
		for (i = 0; i < nscan; i++) {
			for (j = 0; j < i; j++) {
				unsigned ti = scan[i].to, tj = scan[j].to;

				if (ti <= tj + (scan[j].last - scan[j].first) &&
				    tj <= ti + (scan[i].last - scan[i].first))
					return wire_err(err, errlen,
							"'auto' target ports overlap at %u",
							ti > tj ? ti : tj);
			}
			out.auto_only[i] = scan[i];
		}
		out.auto_nonly = nscan;
	}
	*t = out;
	return 0;
}

/**
 * wire_tables_fit() - Do our tables fit in upstream's pifs?
 * @tbls:	Tables, WIRE_TBLS of them, enum fwd_tbl order
 * @pasta:	Pasta mode: SPLICE too (-T, -U), else HOST only
 * @err:	Buffer for the reason
 * @errlen:	Its size
 *
 * Upstream's pasta and pesto hold at most WIRE_PIF_RULES_MAX rules per pif,
 * TCP and UDP together, as they go on the wire (one per range, exclusions
 * split, "auto" one more): its pesto refuses to read more, its pasta to
 * start with or take more.  We keep to the same limit, so that either
 * pesto can always read and change our tables.
 *
 * Return: 0, or -ENOSPC with a message naming the pif in @err
 */
int wire_tables_fit(const struct fwd_table *tbls, bool pasta, char *err,
		    size_t errlen)
{
	static struct wire_rule rules[WIRE_MAX_RULES];
	unsigned p;

	for (p = 0; p < (pasta ? 2U : 1U); p++) {
		int tcp = wire_table_rules(&tbls[2 * p], IPPROTO_TCP, p,
					   rules, WIRE_MAX_RULES);
		int udp = wire_table_rules(&tbls[2 * p + 1], IPPROTO_UDP, p,
					   rules, WIRE_MAX_RULES);

		if (tcp < 0 || udp < 0 || tcp + udp > WIRE_PIF_RULES_MAX) {
			snprintf(err, errlen, "%s (%s) would have %s%d "
				 "forwarding rules, TCP and UDP together "
				 "(at most %d, as upstream's pasta)",
				 p ? "SPLICE" : "HOST",
				 p ? "-T, -U" : "-t, -u",
				 tcp < 0 || udp < 0 ? "more than " : "",
				 tcp < 0 || udp < 0 ? WIRE_MAX_RULES :
				 tcp + udp, WIRE_PIF_RULES_MAX);
			return -ENOSPC;
		}
	}
	return 0;
}

/**
 * wire_tables_put() - Our tables as a frame
 * @buf:	Buffer
 * @size:	Its size (WIRE_MAX_FRAME is always enough)
 * @tbls:	Tables, WIRE_TBLS of them, enum fwd_tbl order
 * @pasta:	Pasta mode: SPLICE too (-T, -U), else HOST only
 * @server:	Server frame (hello, names, capabilities), else a client's
 * @caps:	Capabilities of both tables (server frames)
 *
 * Return: frame length, -ENOSPC if @size is too small
 */
ssize_t wire_tables_put(uint8_t *buf, size_t size,
			const struct fwd_table *tbls, bool pasta,
			bool server, uint32_t caps)
{
	static struct wire_rule rules[2 * WIRE_MAX_RULES];
	size_t off = 0;
	unsigned p;

	if (server) {
		if (size < WIRE_HELLO_LEN)
			return -ENOSPC;
		off = wire_hello_put(buf);
	}
	for (p = 0; p < (pasta ? 2U : 1U); p++) {
		const char *name = p ? "SPLICE" : "HOST";
		unsigned i, n = 0;
		int k;

		for (k = 0; k < 2; k++) {
			int m = wire_table_rules(&tbls[2 * p + (unsigned)k],
						 k ? IPPROTO_UDP : IPPROTO_TCP,
						 p, rules + n,
						 WIRE_MAX_RULES - n);

			if (m < 0)
				return -ENOSPC;
			n += (unsigned)m;
		}
		if (size - off < 1 + (server ? WIRE_INFO_LEN : 4U) +
				 (size_t)n * WIRE_RULE_LEN)
			return -ENOSPC;
		buf[off++] = p ? WIRE_PIF_SPLICE : WIRE_PIF_HOST;
		if (server) {
			memset(buf + off, 0, WIRE_PIF_NAME_SIZE);
			memcpy(buf + off, name, strlen(name));
			off += WIRE_PIF_NAME_SIZE;
			put_be32(buf + off, caps);
			off += 4;
		}
		put_be32(buf + off, n);
		off += 4;
		for (i = 0; i < n; i++, off += WIRE_RULE_LEN)
			wire_rule_put(buf + off, &rules[i]);
	}
	if (size - off < 1)
		return -ENOSPC;
	buf[off++] = WIRE_PIF_NONE;
	return (ssize_t)off;
}

/**
 * wire_group_same() - Are the rules of one protocol what a table encodes to?
 * @r:		Wire rules of a pif
 * @n:		Their number
 * @proto:	Protocol of the rules compared
 * @t:		Table
 * @ns_side:	-T or -U table
 *
 * Return: true if the rules of @proto, in order, are those of @t
 */
static bool wire_group_same(const struct wire_rule *r, unsigned n,
			    uint8_t proto, const struct fwd_table *t,
			    bool ns_side)
{
	static struct wire_rule enc[WIRE_MAX_RULES];
	int m = wire_table_rules(t, proto, ns_side, enc, WIRE_MAX_RULES);
	unsigned i, k = 0;

	if (m < 0)
		return false;
	for (i = 0; i < n; i++) {
		if (r[i].proto != proto)
			continue;
		if (k >= (unsigned)m || memcmp(&r[i], &enc[k], sizeof(enc[k])))
			return false;
		k++;
	}
	return k == (unsigned)m;
}

/**
 * wire_pifs_apply() - Tables of a client's frame as our four tables
 * @pifs:	Tables of the frame (wire_frame_get())
 * @npifs:	Their number
 * @cur:	Current tables, WIRE_TBLS, enum fwd_tbl order
 * @out:	New tables, WIRE_TBLS, written (half-written on error)
 * @pasta:	Pasta mode (SPLICE exists)
 * @err:	Buffer for the reason
 * @errlen:	Its size
 *
 * As upstream, the frame replaces every table: one the client left out is
 * emptied.  Rules of one protocol and pif that are what @cur encodes to
 * keep @cur's table as it is ("auto" with its exclusions, say).
 *
 * Return: 0, or -EINVAL for a TAP table, a SPLICE one in passt mode, rules
 *	   our tables can't hold (wire_rules_table())
 */
int wire_pifs_apply(const struct wire_pif *pifs, unsigned npifs,
		    const struct fwd_table *cur, struct fwd_table *out,
		    bool pasta, char *err, size_t errlen)
{
	unsigned i, k;

	for (i = 0; i < WIRE_TBLS; i++)
		memset(&out[i], 0, sizeof(out[i]));
	for (i = 0; i < npifs; i++) {
		const struct wire_pif *p = &pifs[i];
		unsigned base;

		if (p->id == WIRE_PIF_HOST)
			base = 0;
		else if (p->id == WIRE_PIF_SPLICE && pasta)
			base = 2;
		else
			return wire_err(err, errlen,
					"no table for pif %u (accepted: 1 HOST%s)",
					p->id, pasta ? ", 3 SPLICE" : "");
		for (k = 0; k < 2; k++) {
			uint8_t proto = k ? IPPROTO_UDP : IPPROTO_TCP;
			char why[160];

			if (wire_group_same(p->rules, p->n, proto,
					    &cur[base + k], base)) {
				out[base + k] = cur[base + k];
				continue;
			}
			if (wire_rules_table(p->rules, p->n, proto, base,
					     &out[base + k], why, sizeof(why)))
				return wire_err(err, errlen, "%s %s rules: %s",
						base ? "SPLICE" : "HOST",
						k ? "UDP" : "TCP", why);
		}
	}
	return 0;
}
