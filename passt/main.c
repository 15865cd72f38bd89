// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/main.c - Entry point: configuration, set-up, isolation, main loop
 *
 * The binary is installed once as "passt"; "pasta" is a link to it and the
 * mode comes from argv[0] (conf_parse()).  Set-up order: options and host
 * defaults; file descriptor limit; flow table; epoll and signals; the
 * devmem binding (--devmem); the guest side (pasta: namespaces and tap;
 * passt: the UNIX socket); forwarded-port
 * listeners; pcap; detaching; isolation; loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../conf/conf.h"
#include "../conf/log.h"
#include "../tap/pcap.h"
#include "../tap/tap.h"
#include "devmem.h"
#include "epoll_ref.h"
#include "flow.h"
#include "fwd.h"
#include "isolation.h"
#include "passt.h"
#include "pasta.h"
#include "tcp.h"
#include "udp.h"

int passt_tap_add(struct ctx *ctx, int fd);
int signals_init(struct ctx *ctx);
int passt_loop(struct ctx *ctx);

static struct ctx ctx_main;
static char passt_sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

/**
 * raise_nofile() - Raise RLIMIT_NOFILE's soft limit to the hard limit
 *
 * Every flow needs one or two fds (spliced: two sockets and four pipe ends),
 * and forwarded-port listeners one per port.
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/**
 * passt_sock_remove() - Remove the UNIX socket file (atexit)
 */
static void passt_sock_remove(void)
{
	if (*passt_sock_path)
		unlink(passt_sock_path);
}

/**
 * passt_sock_open() - passt: bind and listen on the UNIX socket
 * @ctx:	Context
 *
 * With no -s, the first free /tmp/passt_N.socket, N from 1, is used; a file
 * that nobody listens on any more is taken over.
 *
 * Return: listening fd; dies if the path can't be bound
 */
static int passt_sock_open(struct ctx *ctx)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TAP_LISTEN };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN };
	int s, i;

	for (i = 1; i < 100; i++) {
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (s < 0)
			die_perror("UNIX socket");

		if (*ctx->c.sock_path)
			snprintf(sa.sun_path, sizeof(sa.sun_path), "%s",
				 ctx->c.sock_path);
		else
			snprintf(sa.sun_path, sizeof(sa.sun_path),
				 "/tmp/passt_%i.socket", i);

		if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;

		if (errno == EADDRINUSE) {
			/* Stale file (nobody listening)?  Take it over */
			int p = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

			if (p >= 0 && connect(p, (struct sockaddr *)&sa,
					      sizeof(sa)) < 0 &&
			    errno == ECONNREFUSED) {
				close(p);
				unlink(sa.sun_path);
				if (bind(s, (struct sockaddr *)&sa,
					 sizeof(sa)) == 0)
					break;
			} else if (p >= 0) {
				close(p);
			}
		}
		if (*ctx->c.sock_path)
			die_perror("-s %s: can't bind", ctx->c.sock_path);
		close(s);
	}
	if (i == 100)
		die("no free /tmp/passt_N.socket path");

	if (listen(s, 1))
		die_perror("listen() on %s", sa.sun_path);

	memcpy(passt_sock_path, sa.sun_path, sizeof(passt_sock_path));
	atexit(passt_sock_remove);

	ref.fd = (uint32_t)s;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev))
		die_perror("epoll_ctl");

	info("UNIX domain socket bound at %s", sa.sun_path);
	info("connect QEMU with: -netdev stream,id=n0,server=off,addr.type=unix,addr.path=%s -device virtio-net-pci,netdev=n0",
	     sa.sun_path);
	return s;
}

/**
 * write_pidfile() - Write our PID to the -P file
 * @path:	File, "" for none
 */
static void write_pidfile(const char *path)
{
	char buf[32];
	int fd, n;

	if (!*path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die_perror("--pid %s", path);
	n = snprintf(buf, sizeof(buf), "%d\n", getpid());
	if (write(fd, buf, (size_t)n) != n)
		die_perror("--pid %s", path);
	close(fd);
}

/**
 * daemonize() - Detach from the terminal: fork, new session, stdio to null
 */
static void daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		die_perror("fork");
	if (pid)
		_exit(EXIT_SUCCESS);
	setsid();
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	log_stderr_off();
}

/**
 * main() - Entry point
 * @argc:	Argument count
 * @argv:	Options, see passt.1
 *
 * Return: 0, 1 on configuration errors, or the spawned command's status
 */
int main(int argc, char **argv)
{
	struct ctx *ctx = &ctx_main;
	struct conf *c = &ctx->c;
	bool spawned = false;
	int ret, tap;

	conf_parse(c, argc, argv);
	ctx->ns_fd = ctx->host_ns_fd = -1;

	if (c->debug)
		log_level = LOG_DEBUG;
	else if (c->quiet)
		log_level = LOG_WARNING;
	log_trace_on = c->trace;
	if (c->trace)
		log_level = LOG_DEBUG;
	if (*c->log_file && (ret = log_open_file(c->log_file)) < 0) {
		errno = -ret;
		die_perror("--log-file %s", c->log_file);
	}

	raise_nofile();
	if (flow_init(c->flow_max))
		die("can't allocate the flow table (%u flows)", c->flow_max);

	ctx->epollfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->epollfd < 0)
		die_perror("epoll_create1");
	if ((ret = signals_init(ctx)) < 0) {
		errno = -ret;
		die_perror("signals");
	}

	isolate_initial(ctx);

	/* Before pasta may join a user namespace: BIND_RX needs
	 * CAP_NET_ADMIN in the initial one, and the NIC is in ours
	 */
	devmem_setup(c);

	if (c->mode == MODE_PASTA) {
		tap = pasta_setup(ctx);
		tap_init(TAP_DEV, tap, true);
		if (passt_tap_add(ctx, tap))
			die_perror("epoll_ctl on the tap device");
	} else if (c->fd >= 0) {
		int fl = fcntl(c->fd, F_GETFL);

		fcntl(c->fd, F_SETFL, fl | O_NONBLOCK);
		fcntl(c->fd, F_SETFD, FD_CLOEXEC);
		tap_init(TAP_STREAM, c->fd, false);
		if (passt_tap_add(ctx, c->fd))
			die_perror("epoll_ctl on -F %d", c->fd);
	} else {
		passt_sock_open(ctx);
	}

	tcp_init(ctx);
	udp_init(ctx);
	if (!c->no_tcp && fwd_listen(ctx, IPPROTO_TCP, &c->tcp_in, false) < 0)
		die("-t: can't listen on a forwarded port");

	if (*c->pcap_file) {
		if ((ret = pcap_open(c->pcap_file)) < 0) {
			errno = -ret;
			die_perror("--pcap %s", c->pcap_file);
		}
		tap_set_pcap(true);
	}

	/* A command we spawned keeps the terminal: stay in the foreground */
	spawned = c->mode == MODE_PASTA && pasta_child_pid_get() > 0;
	if (!c->foreground && !spawned) {
		if (!*c->log_file)
			log_to_syslog(c->mode == MODE_PASTA ? "pasta" : "passt");
		daemonize();
	}
	write_pidfile(c->pid_file);

	isolate_prefork(ctx);
	if (spawned)
		pasta_start_child();
	isolate_postfork(ctx);

	ret = passt_loop(ctx);
	if (c->stats)
		stats_dump();
	return ret;
}
