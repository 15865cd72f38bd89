// SPDX-License-Identifier: GPL-2.0-or-later
/* pesto/pesto.c - Show and change the port forwarding of a running passt or
 * pasta (-c/--conf-path), see pesto.1
 *
 *	pesto [-d] [-s] [-A|-D] [-C PIF] [-t|-u|-T|-U SPEC]... PATH
 *
 * Options are taken in order.  Specs given before any -A or -D replace the
 * rules of their option (the first one for each option; later ones add to
 * it); after -A they are added, after -D deleted.  Everything given goes
 * in one request, applied all or nothing (passt/ctl.h).  With nothing to
 * change, or with -s (before and after the change), the tables are shown.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "../passt/ctl.h"

#define PESTO_TIMEOUT_S	10	/* for the reply */

static char pesto_req[CTL_REQ_MAX * 2];
static size_t pesto_req_len;
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
		"Without -A or -D, a spec replaces what its option had.  "
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
}

/**
 * request() - Send one request, print the reply
 * @path:	Socket path
 * @req:	Request text
 * @len:	Its length
 * @title:	Printed before the text of a good reply, or NULL
 *
 * Return: 0 if the reply is "ok", 1 otherwise (message on stderr)
 */
static int request(const char *path, const char *req, size_t len,
		   const char *title)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = PESTO_TIMEOUT_S };
	static char rep[CTL_REP_MAX + 1];
	const char *text;
	ssize_t n;
	int s;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "pesto: %s: path longer than %zu characters\n",
			path, sizeof(sa.sun_path) - 1);
		return 1;
	}
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "pesto: %s: %s\n", path, strerror(errno));
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (pesto_debug)
		fprintf(stderr, "pesto: request:\n%.*s", (int)len, req);
	if (send(s, req, len, MSG_NOSIGNAL) < 0) {
		int e = errno;

		/* refused at once: its reason may be queued for us */
		n = recv(s, rep, CTL_REP_MAX, MSG_DONTWAIT);
		if (n <= 0) {
			fprintf(stderr, "pesto: sending to %s: %s\n", path,
				strerror(e));
			close(s);
			return 1;
		}
	} else {
		n = recv(s, rep, CTL_REP_MAX, 0);
	}
	close(s);
	if (n <= 0) {
		fprintf(stderr, "pesto: no reply from %s%s%s\n", path,
			n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
		return 1;
	}
	rep[n] = '\0';
	text = strchr(rep, '\n');
	text = text ? text + 1 : "";
	if (strncmp(rep, "ok\n", 3)) {
		fprintf(stderr, "pesto: %s", *text ? text : "error\n");
		return 1;
	}
	if (title && *text)
		printf("%s", title);
	fputs(text, stdout);
	return 0;
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
	bool show = false, replaced[128] = { false };
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
			req_add("clear %s\n", optarg);
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
			if (mode == DEL) {
				req_add("del %c %s\n", opt, optarg);
			} else if (mode == REPLACE && !replaced[opt]) {
				replaced[opt] = true;
				req_add("set %c %s\n", opt, optarg);
			} else {
				req_add("add %c %s\n", opt, optarg);
			}
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

	if (!pesto_req_len)
		return request(path, "show\n", 5, NULL);
	if (show && request(path, "show\n", 5, "before:\n"))
		return 1;
	rc = request(path, pesto_req, pesto_req_len, NULL);
	if (rc)
		return rc;
	if (show)
		return request(path, "show\n", 5, "after:\n");
	return 0;
}
