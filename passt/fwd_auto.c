// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/fwd_auto.c - "auto" port forwarding: follow what listens on the
 * other side
 *
 * With -t auto (-u auto), a port that a program in the namespace listens on
 * gets a listener on the host, forwarding to the same port; with -T auto
 * (-U auto), a port that listens on the host gets one in the namespace
 * (127.0.0.1 and ::1, as -T).  Once a second (from the main loop's
 * housekeeping tick) the kernel's sock_diag interface (sock_diag(7),
 * SOCK_DIAG_BY_FAMILY with struct inet_diag_req_v2) is asked, through
 * libnl-idiag, for the sockets that listen there: TCP sockets in the LISTEN
 * state, and bound UDP sockets with no peer (state TCP_CLOSE, local port
 * not 0, outside the ephemeral range, where client sockets are).  Ports
 * that appear get listeners, ports that went away lose them: connections
 * accepted earlier go on (a listening socket's close doesn't touch them);
 * UDP flows that reply through the closed socket are closed with it.
 *
 * What is never forwarded:
 *  - ports left out by exclusions of the spec (-t auto,~22), and ports that
 *    rules of the same table forward already (-t auto,8080);
 *  - ports our own listeners of the other direction hold (-T ports when
 *    scanning the namespace, -t ports when scanning the host, by the port
 *    they listen on: 2222 for "-t 2222:22,auto"): forwarding them back
 *    would make a loop, and take the port from the other side's programs;
 *  - in the namespace, sockets bound to a loopback address: those are the
 *    namespace's private services; on the host, sockets bound to an
 *    address other than a loopback or the wildcard one, as -T and -U
 *    connect to the host's loopback.
 *
 * The sock_diag socket for the namespace is created inside it at set-up
 * (pasta_ns_call()), the host's one on the host: a netlink socket reports on
 * the namespace it was created in, and neither needs privileges to dump.
 * Listeners in the namespace come from the namespace socket helper
 * (passt/nsock.c), as the daemon can't enter it after set-up.  At most
 * CONF_FWD_AUTO_MAX ports per table, counted as weak ports in the table's
 * share of RLIMIT_NOFILE (passt/limits.c), and never beyond the listening
 * budget of that limit (fwd_listen_room()); a port that can't be bound
 * (in use on this side, say) is tried again only after it went away on the
 * other side.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <netlink/idiag/idiagnl.h>
#include <netlink/idiag/msg.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "../lib/log.h"
#include "../conf/ports.h"
#include "fwd.h"
#include "fwd_auto.h"
#include "limits.h"
#include "ctx.h"
#include "pasta.h"
#include "udp.h"

#define FWD_AUTO_WORDS	(65536 / 64)	/* a bitmap of all ports */

/**
 * struct fwd_auto_port - One forwarded "auto" port
 * @port:	Port that listens on the scanned side, host order
 * @lport:	Port we listen on, host order: @port, or mapped by a range
 *		("2222:22,auto", fwd_auto_map())
 * @idx:	Index of its range in auto_only (epoll reference), 0 for none
 * @socks:	Listening sockets for it, one or two (@fd[1] is -1 for one)
 * @fd:		The sockets
 */
struct fwd_auto_port {
	uint16_t port;
	uint16_t lport;
	unsigned idx;
	unsigned socks;
	int fd[2];
};

/**
 * struct fwd_auto_tbl - State of one table with "auto"
 * @t:		Table (struct conf)
 * @other:	Table of the opposite direction, same protocol: its ports are
 *		ours on the scanned side
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @ns:		Listeners live in the namespace (-T, -U); the host is scanned
 * @tbl:	Table for passt/limits.c
 * @opt:	"-t", "-u", "-T" or "-U", for messages
 * @n:		Ports forwarded now
 * @p:		The ports, unsorted
 * @failed:	Ports that couldn't be bound, not tried again until they
 *		stop listening on the scanned side
 * @full:	Warned that CONF_FWD_AUTO_MAX or the descriptor share is
 *		reached
 * @shared:	"auto" was on at start: its ports take from the table's
 *		descriptor share, where limits_listen_plan() counted them.
 *		Either way, a port opens only while the listening budget of
 *		RLIMIT_NOFILE has room (fwd_listen_room()), as for sockets
 *		opened at run time through -c (passt/ctl.c)
 */
struct fwd_auto_tbl {
	struct fwd_table *t;
	const struct fwd_table *other;
	uint8_t proto;
	bool ns;
	enum limits_tbl tbl;
	const char *opt;
	unsigned n;
	struct fwd_auto_port p[CONF_FWD_AUTO_MAX];
	uint64_t failed[FWD_AUTO_WORDS];
	bool full;
	bool shared;
};

static struct fwd_auto_tbl fwd_auto_tbls[4];
static unsigned fwd_auto_ntbls;
static struct nl_sock *fwd_auto_diag_ns;	/* created in the namespace */
static struct nl_sock *fwd_auto_diag_host;
static uint16_t fwd_auto_eph_ns[2] = { FWD_EPHEMERAL_FIRST,
				       FWD_EPHEMERAL_LAST };
static uint16_t fwd_auto_eph_host[2] = { FWD_EPHEMERAL_FIRST,
					 FWD_EPHEMERAL_LAST };

/* Scratch: what listens on the scanned side, for the table being scanned */
static uint64_t fwd_auto_seen[FWD_AUTO_WORDS];

/**
 * bit_get() - Test a port in a port bitmap
 * @map:	Bitmap of FWD_AUTO_WORDS words
 * @port:	Port
 *
 * Return: true if set
 */
static bool bit_get(const uint64_t *map, unsigned port)
{
	return map[port / 64] & (1ULL << (port % 64));
}

/**
 * bit_set() - Set or clear a port in a port bitmap
 * @map:	Bitmap of FWD_AUTO_WORDS words
 * @port:	Port
 * @on:		Set rather than clear
 */
static void bit_set(uint64_t *map, unsigned port, bool on)
{
	if (on)
		map[port / 64] |= 1ULL << (port % 64);
	else
		map[port / 64] &= ~(1ULL << (port % 64));
}

/**
 * fwd_auto_diag_open() - Open and connect a sock_diag netlink socket
 *
 * Context: set-up; in the namespace for fwd_auto_diag_ns (pasta_ns_call())
 * Return: socket, or NULL
 */
static struct nl_sock *fwd_auto_diag_open(void)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (!sk)
		return NULL;
	if (idiagnl_connect(sk) < 0) {
		nl_socket_free(sk);
		return NULL;
	}
	nl_socket_disable_seq_check(sk);
	return sk;
}

/**
 * fwd_auto_ns_init() - In the namespace: sock_diag socket, ephemeral range
 * @arg:	Unused
 *
 * Context: pasta_ns_call() child (files under /proc/sys/net are those of the
 *	    namespace of the reader)
 * Return: 0, or -ENOMEM if the socket can't be had
 */
static int fwd_auto_ns_init(void *arg)
{
	(void)arg;
	fwd_ephemeral_range(&fwd_auto_eph_ns[0], &fwd_auto_eph_ns[1]);
	fwd_auto_diag_ns = fwd_auto_diag_open();
	return fwd_auto_diag_ns ? 0 : -ENOMEM;
}

/**
 * struct fwd_auto_dump_arg - What the dump callback needs
 * @seen:	Bitmap to mark ports in
 * @skip_lo:	Leave out sockets bound to a loopback address (namespace)
 * @lo_only:	Leave out sockets bound to addresses that are neither
 *		loopback nor wildcard ones (host: -T/-U reach its loopback)
 * @udp:	UDP: leave out sockets with a peer, and ephemeral ports
 * @eph:	Ephemeral range of the scanned side
 */
struct fwd_auto_dump_arg {
	uint64_t *seen;
	bool skip_lo;
	bool lo_only;
	bool udp;
	const uint16_t *eph;
};

/**
 * fwd_auto_addr_is_any() - Is a socket's local address the wildcard one?
 * @a:		Local address from sock_diag (nl_addr), NULL if none
 *
 * Return: true for none, 0.0.0.0 and ::
 */
static bool fwd_auto_addr_is_any(struct nl_addr *a)
{
	const uint8_t *b;
	unsigned len, i;

	if (!a)
		return true;
	b = nl_addr_get_binary_addr(a);
	len = nl_addr_get_len(a);
	for (i = 0; i < len; i++) {
		if (b[i])
			return false;
	}
	return true;
}

/**
 * fwd_auto_addr_is_lo() - Is a socket's local address a loopback one?
 * @a:		Local address from sock_diag (nl_addr)
 *
 * Return: true for 127.0.0.0/8, ::1 and IPv4-mapped 127.0.0.0/8
 */
static bool fwd_auto_addr_is_lo(struct nl_addr *a)
{
	const uint8_t *b;
	unsigned len;

	if (!a)
		return false;
	b = nl_addr_get_binary_addr(a);
	len = nl_addr_get_len(a);
	if (nl_addr_get_family(a) == AF_INET && len >= 4)
		return b[0] == 127;
	if (nl_addr_get_family(a) == AF_INET6 && len >= 16) {
		static const uint8_t lo6[16] = { [15] = 1 };
		static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

		return !memcmp(b, lo6, 16) ||
		       (!memcmp(b, mapped, 12) && b[12] == 127);
	}
	return false;
}

/**
 * fwd_auto_dump_cb() - One socket of a sock_diag dump
 * @msg:	Netlink message, struct inet_diag_msg
 * @p:		struct fwd_auto_dump_arg
 *
 * Return: NL_OK
 */
static int fwd_auto_dump_cb(struct nl_msg *msg, void *p)
{
	struct fwd_auto_dump_arg *a = p;
	struct idiagnl_msg *m = NULL;
	uint16_t port;

	if (idiagnl_msg_parse(nlmsg_hdr(msg), &m) < 0 || !m)
		return NL_OK;
	/* libnl keeps the ports as the kernel gives them: network order */
	port = ntohs(idiagnl_msg_get_sport(m));
	if (!port)
		goto out;
	if (a->udp && (idiagnl_msg_get_dport(m) ||
		       (port >= a->eph[0] && port <= a->eph[1])))
		goto out;
	if (a->skip_lo && fwd_auto_addr_is_lo(idiagnl_msg_get_src(m)))
		goto out;
	if (a->lo_only && !fwd_auto_addr_is_lo(idiagnl_msg_get_src(m)) &&
	    !fwd_auto_addr_is_any(idiagnl_msg_get_src(m)))
		goto out;
	bit_set(a->seen, port, true);
out:
	idiagnl_msg_put(m);
	return NL_OK;
}

/**
 * fwd_auto_dump() - Mark the ports that listen on one side
 * @sk:		sock_diag socket of that side
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @a:		Callback arguments, @seen cleared by the caller
 *
 * #syscalls sendmsg recvmsg sendto recvfrom
 * Return: 0, or a negative libnl error code
 */
static int fwd_auto_dump(struct nl_sock *sk, uint8_t proto,
			 struct fwd_auto_dump_arg *a)
{
	static const int afs[] = { AF_INET, AF_INET6 };
	unsigned i;
	int rc;

	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, fwd_auto_dump_cb, a);
	for (i = 0; i < ARRAY_SIZE(afs); i++) {
		struct inet_diag_req_v2 req = {
			.sdiag_family = (uint8_t)afs[i],
			.sdiag_protocol = proto,
			.idiag_states = proto == IPPROTO_TCP ?
					1U << TCP_LISTEN : 1U << TCP_CLOSE,
		};
		struct nl_msg *msg;

		msg = nlmsg_alloc_simple(SOCK_DIAG_BY_FAMILY,
					 NLM_F_REQUEST | NLM_F_DUMP);
		if (!msg)
			return -NLE_NOMEM;
		rc = nlmsg_append(msg, &req, sizeof(req), NLMSG_ALIGNTO);
		if (rc >= 0)
			rc = nl_send_auto(sk, msg);
		nlmsg_free(msg);
		if (rc < 0)
			return rc;
		if ((rc = nl_recvmsgs_default(sk)) < 0)
			return rc;
	}
	return 0;
}

/**
 * fwd_auto_static() - Is a port a listening port of a rule of a table?
 * @t:		Table
 * @port:	Port
 *
 * Return: true if so
 */
static bool fwd_auto_static(const struct fwd_table *t, uint16_t port)
{
	unsigned i;

	for (i = 0; i < t->n; i++) {
		if (port >= t->rules[i].first && port <= t->rules[i].last)
			return true;
	}
	return false;
}

/**
 * fwd_auto_tbl_of() - State of the "auto" table for a table, if any
 * @t:		Table
 *
 * Return: state, or NULL if @t has no "auto" (or it is off)
 */
static struct fwd_auto_tbl *fwd_auto_tbl_of(const struct fwd_table *t)
{
	unsigned i;

	for (i = 0; i < fwd_auto_ntbls; i++) {
		if (fwd_auto_tbls[i].t == t)
			return &fwd_auto_tbls[i];
	}
	return NULL;
}

/**
 * fwd_auto_ours() - Is a port one that we listen on, on the scanned side?
 * @a:		Table being scanned for
 * @port:	Port that listens on the scanned side
 *
 * The opposite table listens on the side we scan: by its rules (their
 * first to last ports are the listening ones), and by its "auto" ports,
 * on their listening port (@lport), which differs from the port they
 * follow with a mapped range ("-t 2222:22,auto" listens on the host's
 * 2222 for the namespace's 22: the -T scan of the host must leave 2222
 * alone).
 *
 * Return: true if the opposite table listens on @port, by a rule or "auto"
 */
static bool fwd_auto_ours(const struct fwd_auto_tbl *a, uint16_t port)
{
	const struct fwd_auto_tbl *o = fwd_auto_tbl_of(a->other);
	unsigned i;

	if (fwd_auto_static(a->other, port))
		return true;
	if (!o)
		return false;
	for (i = 0; i < o->n; i++) {
		if (o->p[i].lport == port)
			return true;
	}
	return false;
}

/**
 * fwd_auto_close() - Stop forwarding one "auto" port
 * @ctx:	Context
 * @a:		Table state
 * @i:		Index in @a->p, replaced by the last entry
 */
static void fwd_auto_close(struct ctx *ctx, struct fwd_auto_tbl *a,
			   unsigned i)
{
	struct fwd_auto_port *p = &a->p[i];
	unsigned k;

	debug("%s auto: port %u no longer listens (or is no longer given), "
	      "%u closed", a->opt, p->port, p->lport);
	for (k = 0; k < p->socks; k++) {
		if (a->proto == IPPROTO_UDP)
			udp_listen_closing(ctx, p->fd[k]);
		close(p->fd[k]);
	}
	if (a->shared)
		limits_listen_put(a->tbl, true, p->socks);
	*p = a->p[--a->n];
}

/**
 * fwd_auto_close_all() - Close the listening sockets of every "auto" port
 * @ctx:	Context
 *
 * At exit, before the drain (passt/passt.c): no scan runs after it.
 */
void fwd_auto_close_all(struct ctx *ctx)
{
	unsigned i;

	for (i = 0; i < fwd_auto_ntbls; i++) {
		while (fwd_auto_tbls[i].n)
			fwd_auto_close(ctx, &fwd_auto_tbls[i], 0);
	}
}

/**
 * fwd_auto_open() - Start forwarding one "auto" port
 * @ctx:	Context
 * @a:		Table state
 * @port:	Port that listens on the scanned side
 * @lport:	Port to listen on (fwd_auto_map())
 * @idx:	Its range in the table's auto_only, 0 for none
 */
static void fwd_auto_open(struct ctx *ctx, struct fwd_auto_tbl *a,
			  uint16_t port, uint16_t lport, unsigned idx)
{
	const struct fwd_rule *r = &a->t->auto_bind;
	unsigned want = a->ns && r->af == AF_UNSPEC ? 2 : 1;
	struct fwd_auto_port *p;
	int fds[2], ret;

	if (a->n >= CONF_FWD_AUTO_MAX ||
	    fwd_listen_room(&ctx->c) < want ||
	    (a->shared && !limits_listen_take(a->tbl, true, want))) {
		if (!a->full)
			warn("%s auto: no room for more ports (%u forwarded, "
			     "RLIMIT_NOFILE %lu): port %u and later ones are "
			     "not forwarded", a->opt, a->n, limits_nofile(),
			     port);
		a->full = true;
		bit_set(a->failed, port, true);
		return;
	}

	ret = fwd_listen_dyn(ctx, a->proto, r, lport, idx, a->ns, fds);
	if (ret < 0) {
		if (a->shared)
			limits_listen_put(a->tbl, true, want);
		debug("%s auto: port %u can't be forwarded: %s", a->opt, lport,
		      strerror(-ret));
		bit_set(a->failed, port, true);
		return;
	}
	if ((unsigned)ret < want && a->shared)
		limits_listen_put(a->tbl, true, want - (unsigned)ret);

	p = &a->p[a->n++];
	p->port = port;
	p->lport = lport;
	p->idx = idx;
	p->socks = (unsigned)ret;
	p->fd[0] = fds[0];
	p->fd[1] = fds[1];
	if (lport == port)
		debug("%s auto: forwarding port %u", a->opt, port);
	else
		debug("%s auto: forwarding port %u to %u", a->opt, lport, port);
}

/**
 * fwd_auto_drop_port() - Stop forwarding a port by "auto" now (a rule takes
 *			  it over)
 * @ctx:	Context
 * @t:		Table
 * @port:	Port
 *
 * Context: main loop (passt/ctl.c)
 */
void fwd_auto_drop_port(struct ctx *ctx, const struct fwd_table *t,
			uint16_t port)
{
	struct fwd_auto_tbl *a = fwd_auto_tbl_of(t);
	unsigned i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++) {
		if (a->p[i].lport == port) {
			fwd_auto_close(ctx, a, i);
			return;
		}
	}
}

/**
 * fwd_auto_ports() - Ports "auto" forwards now, for pesto(1)
 * @t:		Table
 * @ports:	Result, unsorted
 * @max:	Room in @ports
 *
 * Return: number of ports written
 */
unsigned fwd_auto_ports(const struct fwd_table *t, uint16_t *ports,
			unsigned max)
{
	const struct fwd_auto_tbl *a = fwd_auto_tbl_of(t);
	unsigned i;

	if (!a)
		return 0;
	for (i = 0; i < a->n && i < max; i++)
		ports[i] = a->p[i].lport;
	return i;
}

/**
 * fwd_auto_socks() - Listening sockets of "auto" ports open now
 * @t:		Table, NULL for all of them
 *
 * Return: number of sockets
 */
unsigned long fwd_auto_socks(const struct fwd_table *t)
{
	unsigned long n = 0;
	unsigned i, j;

	for (i = 0; i < fwd_auto_ntbls; i++) {
		const struct fwd_auto_tbl *a = &fwd_auto_tbls[i];

		if (t && a->t != t)
			continue;
		for (j = 0; j < a->n; j++)
			n += a->p[j].socks;
	}
	return n;
}

/**
 * fwd_auto_headroom() - Sockets "auto" of a table may still open
 * @t:		Table
 *
 * As limits_table_socks() counts "auto" at start-up: CONF_FWD_AUTO_MAX
 * ports, two sockets each on the namespace side without an address.
 *
 * Return: sockets, 0 if "auto" is off for @t (or can't run there)
 */
unsigned long fwd_auto_headroom(const struct fwd_table *t)
{
	const struct fwd_auto_tbl *a = fwd_auto_tbl_of(t);
	unsigned long max, n;

	if (!a || !t->auto_on)
		return 0;
	max = a->ns && t->auto_bind.af == AF_UNSPEC ? CONF_FWD_AUTO_MAX * 2 :
						      CONF_FWD_AUTO_MAX;
	n = fwd_auto_socks(t);
	return max > n ? max - n : 0;
}

/**
 * fwd_auto_scan_tbl() - Follow the listening ports for one table
 * @ctx:	Context
 * @a:		Table state
 */
static void fwd_auto_scan_tbl(struct ctx *ctx, struct fwd_auto_tbl *a)
{
	struct fwd_auto_dump_arg arg = {
		/* --host-lo-to-ns-lo: a namespace server on its loopback
		 * is reachable from the host's, as with trixie's passt
		 */
		.seen = fwd_auto_seen,
		.skip_lo = !a->ns && !ctx->c.host_lo_to_ns_lo,
		.lo_only = a->ns,
		.udp = a->proto == IPPROTO_UDP,
		.eph = a->ns ? fwd_auto_eph_host : fwd_auto_eph_ns,
	};
	struct nl_sock *sk = a->ns ? fwd_auto_diag_host : fwd_auto_diag_ns;
	unsigned i, w;
	int rc;

	if (!a->t->auto_on) {		/* turned off through -c */
		while (a->n)
			fwd_auto_close(ctx, a, 0);
		memset(a->failed, 0, sizeof(a->failed));
		return;
	}
	if (!sk)
		return;
	memset(fwd_auto_seen, 0, sizeof(fwd_auto_seen));
	if ((rc = fwd_auto_dump(sk, a->proto, &arg)) < 0) {
		debug("%s auto: sock_diag dump failed: %s", a->opt,
		      nl_geterror(rc));
		return;
	}

	/* Ports that can't be had stay out until they go away */
	for (w = 0; w < FWD_AUTO_WORDS; w++)
		a->failed[w] &= fwd_auto_seen[w];

	for (i = 0; i < a->n; ) {
		uint16_t port = a->p[i].port, lport;

		/* gone there, or no longer given (changed through -c) */
		if (!bit_get(fwd_auto_seen, port) ||
		    fwd_auto_map(a->t, port, &lport) != (int)a->p[i].idx ||
		    lport != a->p[i].lport) {
			fwd_auto_close(ctx, a, i);
			continue;
		}
		bit_set(fwd_auto_seen, port, false);	/* forwarded already */
		i++;
	}
	if (a->full && a->n < CONF_FWD_AUTO_MAX / 2)
		a->full = false;

	for (w = 0; w < FWD_AUTO_WORDS; w++) {
		uint64_t bits = fwd_auto_seen[w] & ~a->failed[w];

		while (bits) {
			unsigned port = w * 64 + (unsigned)__builtin_ctzll(bits);

			uint16_t lport;
			int idx;

			bits &= bits - 1;
			idx = fwd_auto_map(a->t, (uint16_t)port, &lport);
			if (idx < 0 || fwd_auto_static(a->t, lport) ||
			    fwd_auto_ours(a, (uint16_t)port))
				continue;
			fwd_auto_open(ctx, a, (uint16_t)port, lport,
				      (unsigned)idx);
		}
	}
}

/**
 * fwd_auto_scan() - Follow the listening ports of every "auto" table
 * @ctx:	Context
 *
 * Context: main loop, housekeeping (once a second)
 */
void fwd_auto_scan(struct ctx *ctx)
{
	unsigned i;

	for (i = 0; i < fwd_auto_ntbls; i++)
		fwd_auto_scan_tbl(ctx, &fwd_auto_tbls[i]);
}

/**
 * fwd_auto_init() - Set up "auto" forwarding: sock_diag sockets, tables
 * @ctx:	Context, namespace set up (pasta_setup())
 *
 * Context: set-up, before isolation (pasta_ns_call() enters the namespace)
 */
void fwd_auto_init(struct ctx *ctx)
{
	struct conf *c = &ctx->c;
	struct {
		struct fwd_table *t, *other;
		uint8_t proto;
		bool ns, off;
		enum limits_tbl tbl;
		const char *opt;
	} tbls[] = {
		{ &c->tcp_in, &c->tcp_out, IPPROTO_TCP, false, c->no_tcp,
		  LIMITS_TBL_T, "-t" },
		{ &c->udp_in, &c->udp_out, IPPROTO_UDP, false, c->no_udp,
		  LIMITS_TBL_U, "-u" },
		{ &c->tcp_out, &c->tcp_in, IPPROTO_TCP, true, c->no_tcp,
		  LIMITS_TBL_TNS, "-T" },
		{ &c->udp_out, &c->udp_in, IPPROTO_UDP, true, c->no_udp,
		  LIMITS_TBL_UNS, "-U" },
	};
	bool want_ns = false, want_host = false;
	unsigned i;
	int ret;

	if (c->mode != MODE_PASTA || ctx->ns_fd < 0)
		return;

	for (i = 0; i < ARRAY_SIZE(tbls); i++) {
		struct fwd_auto_tbl *a;

		/* With -c, "auto" may come later (passt/ctl.c) */
		if ((!tbls[i].t->auto_on && !*c->conf_path) || tbls[i].off)
			continue;
		a = &fwd_auto_tbls[fwd_auto_ntbls++];
		a->t = tbls[i].t;
		a->other = tbls[i].other;
		a->proto = tbls[i].proto;
		a->ns = tbls[i].ns;
		a->tbl = tbls[i].tbl;
		a->opt = tbls[i].opt;
		a->shared = tbls[i].t->auto_on;
		if (a->ns)
			want_host = true;
		else
			want_ns = true;
	}

	if (want_ns) {
		ret = pasta_ns_call(ctx->ns_fd, fwd_auto_ns_init, NULL);
		if (ret < 0)
			warn("-t/-u auto: can't watch the namespace's ports "
			     "(sock_diag: %s): nothing is forwarded by auto",
			     strerror(-ret));
	}
	if (want_host) {
		fwd_ephemeral_range(&fwd_auto_eph_host[0],
				    &fwd_auto_eph_host[1]);
		fwd_auto_diag_host = fwd_auto_diag_open();
		if (!fwd_auto_diag_host)
			warn("-T/-U auto: can't watch the host's ports "
			     "(sock_diag): nothing is forwarded by auto");
	}
}
