// SPDX-License-Identifier: GPL-2.0-or-later
/* pesto/pesto.c - Show and change the port forwarding of a running passt or
 * pasta (-c/--conf-path), see pesto.1
 *
 *	pesto [-d] [-s] [-A|-D] [-C PIF] [-t|-u|-T|-U SPEC]... PATH
 *
 * Options are taken in order.  Before any -A or -D, the first spec of a
 * side (host: -t, -u; namespace: -T, -U) empties that side, TCP and UDP
 * together, as upstream's pesto does, and every spec adds to it; after -A
 * they are added, after -D deleted.  Everything given goes
 * in one request, applied all or nothing (passt/ctl.h).  With nothing to
 * change, or with -s (before and after the change), the tables are shown.
 *
 * The socket speaks upstream's protocol (conf/wire.h): the server's hello
 * and tables come first.  A server that offers our text requests
 * (WIRE_CAP_X_TEXT: ours) gets the request as text and says whether it
 * took it.  Any other (upstream's pasta) gets binary replacement tables:
 * we apply the request to its tables ourselves (conf/ctl_ops.c, the
 * daemon's own code), send them, and connect again to check that the
 * server now has them, as its protocol has no reply.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../lib/inany.h"
#include "../conf/ctl_ops.h"
#include "../conf/wire.h"
#include "../passt/ctl.h"

#define PESTO_TIMEOUT_S	10	/* for each read and write */

static char pesto_req[CTL_REQ_MAX * 2];
static size_t pesto_req_len;

#define PESTO_LINES_MAX	4096		/* request lines traced to options */

/**
 * struct pesto_line - The option a line of the request comes from
 * @opt:	Option character, 0 for none
 * @arg:	Its argument (argv storage)
 */
static struct pesto_line {
	char opt;
	const char *arg;
} pesto_lines[PESTO_LINES_MAX], pesto_cur;
static unsigned pesto_nlines;
static bool pesto_debug;

/**
 * usage() - Print how to call us, exit
 * @status:	Exit status: 0 for --help (stdout), 2 for errors (stderr)
 */
static void usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f,
		"Usage: pesto [OPTION]... PATH\n"
		"Show or change the port forwarding of the passt or pasta "
		"started with -c PATH.\n\n"
		"  -d, --debug            be verbose\n"
		"  -s, --show             show the tables before and after "
		"the change\n"
		"  -A, --add              add the specs that follow\n"
		"  -D, --delete           delete the specs that follow\n"
		"  -C, --clear PIF        clear the rules of a side: host "
		"(-t, -u) or ns (-T, -U)\n"
		"  -t, --tcp-ports SPEC   -t spec, as for pasta(1)\n"
		"  -u, --udp-ports SPEC   -u spec\n"
		"  -T, --tcp-ns SPEC      -T spec\n"
		"  -U, --udp-ns SPEC      -U spec\n"
		"  -h, --help             show this help and exit\n"
		"      --version          show the version and exit\n\n"
		"Without -A or -D, specs replace the rules of their side "
		"(-t and -u: TCP and UDP\nof the host side; -T and -U: of "
		"the namespace side).  "
		"See pesto(1).\n");
	exit(status);
}

/**
 * req_add() - Append a line to the request
 * @fmt:	printf() format, then its arguments
 */
__attribute__((format(printf, 1, 2)))
static void req_add(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(pesto_req + pesto_req_len,
		      sizeof(pesto_req) - pesto_req_len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(pesto_req) - pesto_req_len) {
		fprintf(stderr, "pesto: request longer than %zu bytes\n",
			sizeof(pesto_req));
		exit(1);
	}
	pesto_req_len += (size_t)n;
	if (pesto_nlines < PESTO_LINES_MAX)
		pesto_lines[pesto_nlines] = pesto_cur;
	pesto_nlines++;
}

/**
 * pesto_opt_name() - Short and long form of an option, for messages
 * @opt:	Option character
 *
 * Return: "-t/--tcp-ports" and the like, "" for others
 */
static const char *pesto_opt_name(char opt)
{
	switch (opt) {
	case 't':	return "-t/--tcp-ports";
	case 'u':	return "-u/--udp-ports";
	case 'T':	return "-T/--tcp-ns";
	case 'U':	return "-U/--udp-ns";
	case 'C':	return "-C/--clear";
	default:	return "";
	}
}

/**
 * pesto_error_print() - Print a server's error, naming our option
 * @text:	Error text of the reply, "line N: reason\n" for an error in
 *		a line of pesto_req
 *
 * The server numbers the lines of the request it got; the user wrote
 * options, which pesto_lines[] traces them to: "pesto: -t/--tcp-ports
 * 99999: invalid port ..." rather than "line 2: ...".
 */
static void pesto_error_print(const char *text)
{
	unsigned long n;
	char *end;

	if (!strncmp(text, "line ", 5)) {
		n = strtoul(text + 5, &end, 10);
		if (end != text + 5 && !strncmp(end, ": ", 2) && n >= 1 &&
		    n <= MIN(pesto_nlines, PESTO_LINES_MAX) &&
		    pesto_lines[n - 1].opt) {
			fprintf(stderr, "pesto: %s %s: %s",
				pesto_opt_name(pesto_lines[n - 1].opt),
				pesto_lines[n - 1].arg, end + 2);
			return;
		}
	}
	fprintf(stderr, "pesto: %s", text);
}

/**
 * struct pesto_srv - What a server told us when we connected
 * @fd:		Connected socket
 * @npifs:	Number of @pifs
 * @pifs:	Its tables
 * @text:	It takes our text requests (WIRE_CAP_X_TEXT)
 */
static struct pesto_srv {
	int fd;
	unsigned npifs;
	struct wire_pif pifs[WIRE_PIF_MAX];
	bool text;
} pesto_srv;

static uint8_t pesto_frame[WIRE_MAX_FRAME];

/**
 * pesto_connect() - Connect, read the hello and the server's tables
 * @path:	Socket path
 * @srv:	Filled; @srv->fd open on success
 *
 * Return: 0, or 1 with a message on stderr
 */
static int pesto_connect(const char *path, struct pesto_srv *srv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = PESTO_TIMEOUT_S };
	size_t len = 0;
	char err[200];
	ssize_t rc;
	unsigned i;
	int s;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "pesto: %s: path longer than %zu characters\n",
			path, sizeof(sa.sun_path) - 1);
		return 1;
	}
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "pesto: %s: %s\n", path, strerror(errno));
		if (s >= 0)
			close(s);
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));

	for (;;) {
		ssize_t n = recv(s, pesto_frame + len,
				 sizeof(pesto_frame) - len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "pesto: %s: %s before the server's "
				"tables (%zu bytes)%s\n", path,
				n ? strerror(errno) : "connection closed", len,
				n ? "" : ": not the user who started it?");
			close(s);
			return 1;
		}
		len += (size_t)n;
		if (len < WIRE_HELLO_LEN)
			continue;
		if (wire_hello_check(pesto_frame, err, sizeof(err))) {
			fprintf(stderr, "pesto: %s: %s\n", path, err);
			close(s);
			return 1;
		}
		rc = wire_frame_get(pesto_frame + WIRE_HELLO_LEN,
				    len - WIRE_HELLO_LEN, true, srv->pifs,
				    &srv->npifs, err, sizeof(err));
		if (rc > 0)
			break;
		if (rc < 0 || len == sizeof(pesto_frame)) {
			fprintf(stderr, "pesto: %s: bad tables from the "
				"server: %s\n", path,
				rc < 0 ? err : "too long");
			close(s);
			return 1;
		}
	}
	srv->fd = s;
	srv->text = false;
	for (i = 0; i < srv->npifs; i++) {
		if (srv->pifs[i].caps & WIRE_CAP_X_TEXT)
			srv->text = true;
	}
	if (pesto_debug)
		fprintf(stderr, "pesto: protocol %d, %u tables, %s\n",
			WIRE_VERSION, srv->npifs,
			srv->text ? "text requests offered" :
				    "binary tables only");
	return 0;
}

/**
 * pesto_send_all() - Write a whole buffer to the socket
 * @s:		Socket
 * @buf:	Data
 * @len:	Its length
 *
 * Return: 0, or -1 with errno set
 */
static int pesto_send_all(int s, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(s, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * request() - Send one text request on a connection, print the reply
 * @path:	Socket path, for messages
 * @srv:	Connection (closed here)
 * @req:	Request text
 * @len:	Its length
 * @title:	Printed before the text of a good reply, or NULL
 *
 * Return: 0 if the reply is "ok", 1 otherwise (message on stderr)
 */
static int request(const char *path, struct pesto_srv *srv, const char *req,
		   size_t len, const char *title)
{
	static char rep[CTL_REP_MAX + 1];
	size_t got = 0;
	const char *text;
	int s = srv->fd;

	if (pesto_debug)
		fprintf(stderr, "pesto: request:\n%.*s", (int)len, req);
	if (pesto_send_all(s, req, len) || shutdown(s, SHUT_WR)) {
		fprintf(stderr, "pesto: sending to %s: %s\n", path,
			strerror(errno));
		close(s);
		return 1;
	}
	for (;;) {
		ssize_t n = recv(s, rep + got, CTL_REP_MAX - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "pesto: no reply from %s: %s\n", path,
				strerror(errno));
			close(s);
			return 1;
		}
		if (!n || got + (size_t)n == CTL_REP_MAX) {
			got += (size_t)n;
			break;
		}
		got += (size_t)n;
	}
	close(s);
	if (!got) {
		fprintf(stderr, "pesto: no reply from %s\n", path);
		return 1;
	}
	rep[got] = '\0';
	text = strchr(rep, '\n');
	text = text ? text + 1 : "";
	if (strncmp(rep, "ok\n", 3)) {
		pesto_error_print(*text ? text : "error\n");
		return 1;
	}
	if (title && *text)
		printf("%s", title);
	fputs(text, stdout);
	return 0;
}

/**
 * pesto_rule_print() - Print one wire rule as an option and spec of ours
 * @pif:	pif id of its table
 * @r:		Rule
 */
static void pesto_rule_print(uint8_t pif, const struct wire_rule *r)
{
	bool udp = r->proto == IPPROTO_UDP, ns = pif == WIRE_PIF_SPLICE;
	bool lo = ns && !strcmp(r->ifname, "lo");
	char a[INET6_ADDRSTRLEN], t[INET6_ADDRSTRLEN];
	unsigned tolast = (unsigned)(r->to + (r->last - r->first));

	printf("-%c ", ns ? (udp ? 'U' : 'T') : (udp ? 'u' : 't'));
	if (!(r->flags & WIRE_F_DUAL_STACK_ANY)) {
		inany_ntop(&r->addr, a);
		printf(inany_v4(&r->addr) ? "%s" : "[%s]", a);
	}
	if (*r->ifname && !lo)
		printf("%s%%%s", r->flags & WIRE_F_DUAL_STACK_ANY ? "*" : "",
		       r->ifname);
	if (!(r->flags & WIRE_F_DUAL_STACK_ANY) || (*r->ifname && !lo))
		printf("/");
	printf("%u", r->first);
	if (r->last != r->first)
		printf("-%u", r->last);
	if (r->to != r->first || !inany_is_unspecified(&r->taddr)) {
		printf(":");
		if (!inany_is_unspecified(&r->taddr)) {
			inany_ntop(&r->taddr, t);
			printf("%s/", t);
		}
		printf("%u", r->to);
		if (r->last != r->first)
			printf("-%u", tolast);
	}
	printf("%s%s\n", r->flags & WIRE_F_SCAN ? ",auto" : "",
	       r->flags & WIRE_F_WEAK ? " (weak)" : "");
}

/**
 * pesto_pifs_print() - Print the tables of an upstream server
 * @title:	Printed first, or NULL
 * @pifs:	Tables
 * @npifs:	Their number
 */
static void pesto_pifs_print(const char *title, const struct wire_pif *pifs,
			     unsigned npifs)
{
	unsigned i, j;

	if (title)
		printf("%s", title);
	for (i = 0; i < npifs; i++) {
		printf("%s:%s\n", pifs[i].name, pifs[i].n ? "" : " none");
		for (j = 0; j < pifs[i].n; j++)
			pesto_rule_print(pifs[i].id, &pifs[i].rules[j]);
	}
}

/**
 * pesto_group_put() - The rules of one protocol of a new table
 * @old:	Rules of the pif the server sent
 * @dec:	Our table decoded from them
 * @nt:		Our table after the request
 * @proto:	Protocol
 * @ns_side:	SPLICE table
 * @out:	Rules written after @n
 * @n:		Rules in @out, updated
 *
 * A table the request left as it was goes back as the server sent it,
 * byte for byte.
 *
 * Return: 0, -1 if too many
 */
static int pesto_group_put(const struct wire_pif *old,
			   const struct fwd_table *dec,
			   const struct fwd_table *nt, uint8_t proto,
			   bool ns_side, struct wire_rule *out, unsigned *n)
{
	static struct wire_rule a[WIRE_MAX_RULES], b[WIRE_MAX_RULES];
	int na = wire_table_rules(dec, proto, ns_side, a, WIRE_MAX_RULES);
	int nb = wire_table_rules(nt, proto, ns_side, b, WIRE_MAX_RULES);
	unsigned i;

	if (na < 0 || nb < 0)
		return -1;
	if (na == nb && !memcmp(a, b, (size_t)na * sizeof(a[0]))) {
		for (i = 0; i < old->n; i++) {
			if (old->rules[i].proto != proto)
				continue;
			if (*n >= WIRE_MAX_RULES)
				return -1;
			out[(*n)++] = old->rules[i];
		}
		return 0;
	}
	if (*n + (unsigned)nb > WIRE_MAX_RULES)
		return -1;
	memcpy(out + *n, b, (size_t)nb * sizeof(b[0]));
	*n += (unsigned)nb;
	return 0;
}

/**
 * pesto_addr_match() - Do two bind addresses overlap, as upstream sees it?
 * @a:		Rule
 * @b:		Rule
 *
 * Both families (dual flag) overlaps anything; a wildcard address overlaps
 * the addresses of its family; others only themselves.
 *
 * Return: true if so
 */
static bool pesto_addr_match(const struct wire_rule *a,
			     const struct wire_rule *b)
{
	if ((a->flags | b->flags) & WIRE_F_DUAL_STACK_ANY)
		return true;
	if (inany_is_unspecified(&a->addr) || inany_is_unspecified(&b->addr))
		return !inany_v4(&a->addr) == !inany_v4(&b->addr);
	return inany_equals(&a->addr, &b->addr);
}

/**
 * pesto_conflict() - Rules of a table upstream's pasta would refuse
 * @p:		Table about to be sent
 * @err:	Buffer for the reason
 * @errlen:	Its size
 *
 * Upstream's pasta refuses two rules of one protocol whose bind addresses
 * overlap (pesto_addr_match()) and whose ports overlap, whatever their
 * interface; ours allows a rule next to "auto", for one.  Said before
 * sending, rather than after, as "didn't take the new tables".
 *
 * Return: true if @p has such rules, reason in @err
 */
static bool pesto_conflict(const struct wire_pif *p, char *err,
			   size_t errlen)
{
	unsigned i, j;

	for (i = 0; i < p->n; i++) {
		for (j = i + 1; j < p->n; j++) {
			const struct wire_rule *a = &p->rules[i];
			const struct wire_rule *b = &p->rules[j];

			if (a->proto != b->proto || a->last < b->first ||
			    b->last < a->first || !pesto_addr_match(a, b))
				continue;
			snprintf(err, errlen, "%s %s port %u: two rules (%u-%u%s "
				 "and %u-%u%s), which this server refuses",
				 p->name, a->proto == IPPROTO_UDP ? "UDP" :
								     "TCP",
				 (unsigned)(a->first > b->first ? a->first :
							  b->first),
				 a->first, a->last,
				 a->flags & WIRE_F_SCAN ? ", auto" : "",
				 b->first, b->last,
				 b->flags & WIRE_F_SCAN ? ", auto" : "");
			return true;
		}
	}
	return false;
}

/**
 * pesto_wire() - Carry out a request on a server without text requests
 * @path:	Socket path
 * @srv:	Connection, tables read (closed here)
 * @req:	Request text, NUL-terminated (cut in place), NULL to show
 * @show:	Print the tables before and after
 *
 * Return: 0 on success, 1 with a message on stderr
 */
static int pesto_wire(const char *path, struct pesto_srv *srv, char *req,
		      bool show)
{
	static struct fwd_table zero[4], dec[4], nt[4];
	static struct wire_pif sent[WIRE_PIF_MAX];
	static struct conf pc;
	bool pasta = false, sh = false, change = false;
	uint32_t caps = 0;
	size_t off = 0;
	char err[300];
	unsigned i, k;

	if (!req) {
		pesto_pifs_print(NULL, srv->pifs, srv->npifs);
		close(srv->fd);
		return 0;
	}
	for (i = 0; i < srv->npifs; i++) {
		if (srv->pifs[i].id == WIRE_PIF_SPLICE)
			pasta = true;
		caps |= srv->pifs[i].caps;
	}
	if (wire_pifs_apply(srv->pifs, srv->npifs, zero, dec, pasta, err,
			    sizeof(err))) {
		fprintf(stderr, "pesto: %s: tables we can't change: %s\n",
			path, err);
		close(srv->fd);
		return 1;
	}
	memcpy(nt, dec, sizeof(nt));
	pc.mode = pasta ? MODE_PASTA : MODE_PASST;
	pc.no_tcp = !(caps & WIRE_CAP_TCP);
	pc.no_udp = !(caps & WIRE_CAP_UDP);
	if (ctl_parse(&pc, req, nt, &sh, &change, err, sizeof(err))) {
		fprintf(stderr, "pesto: %s: nothing changed\n", err);
		close(srv->fd);
		return 1;
	}
	if (show)
		pesto_pifs_print("before:\n", srv->pifs, srv->npifs);

	/* The frame: every table the server has, as upstream's pesto */
	for (i = 0; i < srv->npifs; i++) {
		const struct wire_pif *p = &srv->pifs[i];
		unsigned base = p->id == WIRE_PIF_SPLICE ? 2 : 0, n = 0;

		sent[i] = *p;
		for (k = 0; k < 2; k++) {
			if (pesto_group_put(p, &dec[base + k], &nt[base + k],
					    k ? IPPROTO_UDP : IPPROTO_TCP,
					    base, sent[i].rules, &n)) {
				fprintf(stderr, "pesto: more than %d rules "
					"for %s: nothing changed\n",
					WIRE_MAX_RULES, p->name);
				close(srv->fd);
				return 1;
			}
		}
		if (n == p->n) {	/* unchanged: in the server's order */
			unsigned a = 0;

			for (k = 0; k < 2; k++) {
				struct fwd_table x = dec[base + k];

				a += !memcmp(&x, &nt[base + k], sizeof(x));
			}
			if (a == 2)
				sent[i] = *p;
		}
		sent[i].n = n;
		if (n > WIRE_PIF_RULES_MAX) {
			fprintf(stderr, "pesto: %s would have %u forwarding "
				"rules, TCP and UDP together (at most %d, as "
				"upstream's pasta): nothing changed\n",
				p->name, n, WIRE_PIF_RULES_MAX);
			close(srv->fd);
			return 1;
		}
		if (pesto_conflict(&sent[i], err, sizeof(err))) {
			fprintf(stderr, "pesto: %s: nothing changed\n", err);
			close(srv->fd);
			return 1;
		}
		pesto_frame[off++] = p->id;
		put_be32(pesto_frame + off, n);
		off += 4;
		for (k = 0; k < n; k++, off += WIRE_RULE_LEN)
			wire_rule_put(pesto_frame + off, &sent[i].rules[k]);
	}
	pesto_frame[off++] = WIRE_PIF_NONE;
	if (pesto_send_all(srv->fd, pesto_frame, off) ||
	    shutdown(srv->fd, SHUT_RDWR)) {
		fprintf(stderr, "pesto: sending to %s: %s\n", path,
			strerror(errno));
		close(srv->fd);
		return 1;
	}
	close(srv->fd);

	/* No reply in the protocol: see whether it has them now */
	if (pesto_connect(path, srv))
		return 1;
	close(srv->fd);
	for (i = 0; i < srv->npifs; i++) {
		if (srv->npifs != (unsigned)(pasta ? 2 : 1) ||
		    srv->pifs[i].n != sent[i].n ||
		    memcmp(srv->pifs[i].rules, sent[i].rules,
			   sent[i].n * sizeof(sent[i].rules[0]))) {
			fprintf(stderr, "pesto: %s didn't take the new "
				"tables (its log says why)\n", path);
			return 1;
		}
	}
	if (show)
		pesto_pifs_print("after:\n", srv->pifs, srv->npifs);
	return 0;
}

/**
 * pesto_run() - Connect and carry out a text request either way
 * @path:	Socket path
 * @req:	Request text
 * @len:	Its length
 * @title:	For text servers: printed before a good reply, or NULL
 *
 * Return: 0 on success, 1 with a message on stderr, 3 if the server takes
 *	   no text requests (connection closed)
 */
static int pesto_run(const char *path, const char *req, size_t len,
		     const char *title)
{
	if (pesto_connect(path, &pesto_srv))
		return 1;
	if (!pesto_srv.text) {
		close(pesto_srv.fd);
		return 3;
	}
	return request(path, &pesto_srv, req, len, title);
}

/**
 * main() - Entry point
 * @argc:	Argument count
 * @argv:	Options, see usage()
 *
 * Return: 0 on success, 1 if the request failed, 2 for usage errors
 */
int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "debug",	no_argument,		NULL, 'd' },
		{ "show",	no_argument,		NULL, 's' },
		{ "add",	no_argument,		NULL, 'A' },
		{ "delete",	no_argument,		NULL, 'D' },
		{ "clear",	required_argument,	NULL, 'C' },
		{ "tcp-ports",	required_argument,	NULL, 't' },
		{ "udp-ports",	required_argument,	NULL, 'u' },
		{ "tcp-ns",	required_argument,	NULL, 'T' },
		{ "udp-ns",	required_argument,	NULL, 'U' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ 0 },
	};
	enum { REPLACE, ADD, DEL } mode = REPLACE;
	bool show = false, cleared_host = false, cleared_ns = false;
	const char *path;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "+dsADC:t:u:T:U:h", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'd':
			pesto_debug = true;
			break;
		case 's':
			show = true;
			break;
		case 'A':
			mode = ADD;
			break;
		case 'D':
			mode = DEL;
			break;
		case 'C':
			/* A newline would start another line of the request */
			if (strchr(optarg, '\n')) {
				fprintf(stderr, "pesto: -C: PIF with a newline "
					"(accepted: host, ns, HOST, SPLICE)\n");
				return 2;
			}
			pesto_cur.opt = (char)opt;
			pesto_cur.arg = optarg;
			req_add("clear %s\n", optarg);
			if (!strcasecmp(optarg, "host"))
				cleared_host = true;
			else if (!strcmp(optarg, "ns") ||
				 !strcasecmp(optarg, "splice"))
				cleared_ns = true;
			break;
		case 't':
		case 'u':
		case 'T':
		case 'U':
			if (strchr(optarg, '\n')) {
				fprintf(stderr, "pesto: -%c: spec with a "
					"newline\n", opt);
				return 2;
			}
			pesto_cur.opt = (char)opt;
			pesto_cur.arg = optarg;
			if (mode == DEL) {
				req_add("del %c %s\n", opt, optarg);
				break;
			}
			/* As upstream's pesto: before -A, the first spec of
			 * a side empties that side, TCP and UDP together
			 */
			if (mode == REPLACE && (opt == 't' || opt == 'u') &&
			    !cleared_host) {
				cleared_host = true;
				req_add("clear host\n");
			} else if (mode == REPLACE && !cleared_ns &&
				   (opt == 'T' || opt == 'U')) {
				cleared_ns = true;
				req_add("clear ns\n");
			}
			req_add("add %c %s\n", opt, optarg);
			break;
		case 'h':
			usage(0);
			break;
		case 'V':
			printf("pesto " VERSION "\n");
			return 0;
		default:
			usage(2);
		}
	}
	if (optind != argc - 1)
		usage(2);
	path = argv[optind];

	if (pesto_connect(path, &pesto_srv))
		return 1;
	if (!pesto_srv.text) {
		/* Upstream's pasta: binary tables */
		if (!pesto_req_len)
			return pesto_wire(path, &pesto_srv, NULL, false);
		return pesto_wire(path, &pesto_srv, pesto_req, show);
	}
	close(pesto_srv.fd);

	if (!pesto_req_len)
		return pesto_run(path, "show\n", 5, NULL) ? 1 : 0;
	if (show && pesto_run(path, "show\n", 5, "before:\n"))
		return 1;
	rc = pesto_run(path, pesto_req, pesto_req_len, NULL);
	if (rc)
		return 1;
	if (show)
		return pesto_run(path, "show\n", 5, "after:\n") ? 1 : 0;
	return 0;
}
