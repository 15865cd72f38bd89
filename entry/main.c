// SPDX-License-Identifier: GPL-2.0-or-later
/* entry/main.c - Entry point: configuration, set-up, isolation, main loop
 *
 * The binary is installed once as "passt"; "pasta" is a link to it and the
 * mode comes from argv[0] (conf_parse()).  Set-up order: the flow types
 * registered, by name (flow_types_register()); closed standard
 * descriptors opened onto /dev/null; options and host
 * defaults; isolation stage 1 (stray fds, file descriptor limit,
 * capabilities); flow table; epoll; the devmem binding (--devmem); the
 * guest side (pasta: namespaces and tap; passt: an -F socket);
 * forwarded-port listeners (-T ones inside the namespace); pcap; pid file
 * opened; passt's UNIX socket; detaching (the parent writes the pid file);
 * the splice path (pools, namespace socket helper); signals; the helper
 * that removes socket files at exit (passt/sockfile.c); isolation
 * stages 2 and 3 (passt/isolation.c); READY=1 to a service manager
 * (passt/sdnotify.c); loop; STOPPING=1.  A listening socket passed by
 * systemd (passt/sdlisten.c) is taken before stray fds are closed, and
 * replaces passt's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../conf/conf.h"
#include "../lib/file.h"
#include "../lib/log.h"
#include "../tap/guest.h"
#include "../tap/pcap.h"
#include "../tap/tap.h"
#include "../passt/devmem.h"
#include "../passt/epoll_ref.h"
#include "../passt/flow.h"
#include "../passt/follow.h"
#include "../passt/ctl.h"
#include "../passt/fwd.h"
#include "../passt/fwd_auto.h"
#include "../passt/icmp.h"
#include "../passt/isolation.h"
#include "../passt/limits.h"
#include "../passt/passt.h"
#include "../passt/signals.h"
#include "../passt/pasta.h"
#include "../passt/repair.h"
#include "../passt/restart.h"
#include "../passt/sdlisten.h"
#include "../passt/sdnotify.h"
#include "../passt/sockfile.h"
#include "../passt/tcp.h"
#include "../passt/udp.h"
#include "../passt/udp_restart.h"
#include "../splice/splice.h"


#define PASST_SOCK_TRIES	64	/* /tmp/passt_1.socket to _64 (passt.1) */

static struct ctx ctx_main;
static char passt_sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

/**
 * passt_sock_open() - passt: bind and listen on the UNIX socket
 * @ctx:	Context
 *
 * With no -s, the first free /tmp/passt_N.socket, N from 1, is used.  A
 * socket file that nobody listens on any more is taken over (never a file
 * of another type).  Runs before daemonize(), so that a path that can't be
 * bound is an error the caller sees.
 *
 * Context: set-up (before the seccomp filter: no #syscalls needed)
 * Return: listening fd; dies if the path can't be bound
 */
static int passt_sock_open(struct ctx *ctx)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TAP_LISTEN };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN };
	bool give = isolate_root_in_init_userns() && ctx->c.uid;
	int s = -1, i;

	for (i = 1; i <= PASST_SOCK_TRIES; i++) {
		if (*ctx->c.sock_path)
			snprintf(sa.sun_path, sizeof(sa.sun_path), "%s",
				 ctx->c.sock_path);
		else
			snprintf(sa.sun_path, sizeof(sa.sun_path),
				 "/tmp/passt_%i.socket", i);

		/* Started as root: the file belongs to the user we'll run
		 * as, given without touching the path (passt/sockfile.c)
		 */
		s = sockfile_listen(sa.sun_path, SOCK_STREAM, 1,
				    SOCKFILE_UMASK_KEEP,
				    give ? ctx->c.uid : SOCKFILE_NO_CHOWN,
				    ctx->c.gid);
		if (s >= 0)
			break;
		if (*ctx->c.sock_path) {
			errno = -s;
			die_perror("-s %s: can't bind", ctx->c.sock_path);
		}
	}
	if (i > PASST_SOCK_TRIES)
		die("no free /tmp/passt_N.socket path");
	memcpy(passt_sock_path, sa.sun_path, sizeof(passt_sock_path));

	ref.fd = (uint32_t)s & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, s, &ev))
		die_perror("epoll_ctl");

	info("UNIX domain socket bound at %s", sa.sun_path);
	if (ctx->c.vhost_user) {
		info("connect QEMU with: -chardev socket,id=c,path=%s -netdev vhost-user,id=n0,chardev=c -device virtio-net-pci,netdev=n0 -object memory-backend-memfd,id=m,share=on,size=RAM -numa node,memdev=m",
		     sa.sun_path);
		info("  (RAM: the guest's -m size; QEMU 7.2 without KVM also needs vectors=0 on -device virtio-net-pci)");
	} else
		info("connect QEMU with: -netdev stream,id=n0,server=off,addr.type=unix,addr.path=%s -device virtio-net-pci,netdev=n0",
		     sa.sun_path);
	return s;
}

/**
 * pidfile_open() - Open (create, truncate) the -P file
 * @path:	File, "" for none
 *
 * Opened early, so that a path we can't write to is an error before
 * anything is bound, and written once the PID to report is known.  Never
 * through a symbolic link (file_open_safe()): we may run as root.
 *
 * Context: set-up (before the seccomp filter: no #syscalls needed)
 * Return: fd, or -1 if there is no pid file; dies if it can't be opened
 */
static int pidfile_open(const char *path)
{
	int fd;

	if (!*path)
		return -1;
	fd = file_open_safe(path, O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		die("--pid %s: %s", path, file_strerror(fd));
	return fd;
}

/**
 * pidfile_write() - Write a PID to the pid file and close it
 * @fd:		From pidfile_open(), -1 for none
 * @pid:	Process ID to write: ours, or the detached child's
 *
 * Context: set-up (before the seccomp filter: no #syscalls needed)
 */
static void pidfile_write(int fd, pid_t pid)
{
	char buf[32];
	int n;

	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	if (write(fd, buf, (size_t)n) != n)
		die_perror("--pid");
	close(fd);
}

/**
 * daemonize() - Detach from the terminal: fork, new session, stdio to null
 * @pidfd:	Pid file from pidfile_open(), or -1
 *
 * The parent writes the child's PID to the pid file before it exits, so
 * that whoever started us (libvirt, for one) finds it as soon as we return.
 *
 * Context: set-up (before the seccomp filter: no #syscalls needed)
 */
static void daemonize(int pidfd)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		die_perror("fork");
	if (pid) {
		pidfile_write(pidfd, pid);
		sdnotify_mainpid(pid);
		_exit(EXIT_SUCCESS);
	}
	if (pidfd >= 0)
		close(pidfd);
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
 * ready_notify() - READY=1 to the service manager, saying what is ready
 * @ctx:	Context, set-up complete
 *
 * Context: just before the main loop
 */
static void ready_notify(const struct ctx *ctx)
{
	const char *r6 = tcp_reader_name(AF_INET6);
	const char *r4 = tcp_reader_name(AF_INET);
	const struct conf *c = &ctx->c;
	char tcp[128];

	if (c->no_tcp)
		snprintf(tcp, sizeof(tcp), "TCP disabled");
	else if (!strcmp(r4, r6))
		snprintf(tcp, sizeof(tcp), "TCP reader: %s", r4);
	else
		snprintf(tcp, sizeof(tcp), "TCP reader: %s (IPv4), %s (IPv6)",
			 r4, r6);

	if (c->mode == MODE_PASTA)
		sdnotify_ready("namespace configured: %s, interface %s%s; %s",
			       *c->netns ? c->netns : "new namespace",
			       c->ifname_ns, c->config_net ?
			       " with addresses and routes" : "", tcp);
	else if (c->fd >= 0)
		sdnotify_ready("guest connected on -F %d; %s", c->fd, tcp);
	else
		sdnotify_ready("listening on %s; %s", sdlisten_fd() >= 0 ?
			       sdlisten_path() : passt_sock_path, tcp);
}

/**
 * stdio_ensure_open() - Open /dev/null onto whichever of fds 0, 1, 2 is closed
 *
 * A supervisor may start us with standard descriptors closed.  Then the
 * first files we open (the PID file, sockets, the epoll instance) would
 * take those numbers, and the log, written to STDERR_FILENO, would land
 * in them, or daemonize() would replace them with /dev/null.  POSIX
 * open() returns the lowest free descriptor (open(3p)), so opening
 * /dev/null while a lower one is closed fills exactly the gap.
 *
 * Context: first thing in main(), before anything opens a descriptor
 * (no #syscalls: before the seccomp filter).  Exits with status 1 if
 * /dev/null can't be opened: nothing can be reported then.
 */
static void stdio_ensure_open(void)
{
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int nfd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* no O_CLOEXEC: like a standard descriptor, it's inherited */
		nfd = open("/dev/null", O_RDWR);
		if (nfd < 0)
			_exit(EXIT_FAILURE);
		if (nfd != fd) {	/* can't happen: lower ones are open */
			if (dup2(nfd, fd) < 0)
				_exit(EXIT_FAILURE);
			close(nfd);
		}
	}
}

/**
 * flow_types_register() - Register the operations of every flow type
 *
 * The one place that names each module of the flow layer, the splice path
 * included, as the kernel's inet_init() calls proto_register() for each
 * protocol: no constructors, and the linker takes from libcore.a only the
 * objects something names.
 *
 * Context: start of main(), before anything reaches a flow type
 */
static void flow_types_register(void)
{
	tcp_flow_register();
	splice_flow_register();
	udp_flow_register();
	udp_restart_register();
	icmp_flow_register();
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
	int ret, tap, pidfd;

	flow_types_register();
	stdio_ensure_open();
	signals_block_early();
	conf_parse(c, argc, argv);
	tap_guest_init(c);	/* run-time state from here on */
	tap_uso_set_off(c->udp_offload_off);
	ctx->ns_fd = ctx->host_ns_fd = -1;

	if (c->debug)
		log_level = LOG_DEBUG;
	else if (c->quiet)
		log_level = LOG_WARNING;
	log_trace_on = c->trace;
	if (c->trace)
		log_level = LOG_DEBUG;

	/* A socket from systemd: isolate_initial() keeps it open */
	sdlisten_init(c);

	/* stray fds closed, RLIMIT_NOFILE sized (and the listening sockets'
	 * share of it), capabilities reduced
	 */
	isolate_initial(ctx);

	if (*c->log_file && (ret = log_open_file(c->log_file,
						     c->log_size)) < 0) {
		die("--log-file %s: %s", c->log_file, file_strerror(ret));
	}
	log_early_end();
	sdnotify_init();

	if (flow_init(c->flow_max))
		die("can't allocate the flow table (%u flows)", c->flow_max);

	ctx->epollfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->epollfd < 0)
		die_perror("epoll_create1");
	if ((ret = limits_reserve_init(ctx->epollfd)) < 0) {
		errno = -ret;
		die_perror("reserve file descriptor");
	}

	/* Before pasta may join a user namespace: BIND_RX needs
	 * CAP_NET_ADMIN in the initial one, and the NIC is in ours
	 */
	devmem_setup(c);

	if (*c->restart_from) {
		/* guest side and namespace: the old process's */
		restart_take(ctx);
		if (c->mode == MODE_PASTA)
			pasta_watch_add(ctx);
	} else if (c->mode == MODE_PASTA) {
		tap = pasta_setup(ctx);
		pasta_watch_add(ctx);
		if (tap >= 0) {		/* not with --splice-only */
			tap_init(TAP_DEV, tap, pasta_tap_vnet_hdr());
			if (passt_tap_add(ctx, tap))
				die_perror("epoll_ctl on the tap device");
		}
	} else if (c->fd >= 0) {
		int fl = fcntl(c->fd, F_GETFL);

		fcntl(c->fd, F_SETFL, fl | O_NONBLOCK);
		fcntl(c->fd, F_SETFD, FD_CLOEXEC);
		if (c->vhost_user) {
			if (passt_vhost_attach(ctx, c->fd))
				die_perror("epoll_ctl on -F %d", c->fd);
		} else {
			tap_init(TAP_STREAM, c->fd, false);
			if (passt_tap_add(ctx, c->fd))
				die_perror("epoll_ctl on -F %d", c->fd);
		}
	}

	tcp_init(ctx);
	udp_init(ctx);
	if (*c->restart_from) {
		/* listeners, flows, then the -c socket */
		ctl_adopt(ctx, restart_adopt(ctx));
	} else {
		if (!c->no_tcp &&
		    fwd_listen(ctx, IPPROTO_TCP, &c->tcp_in, false) < 0)
			die("-t: can't listen on a forwarded port");
		if (c->mode == MODE_PASTA && !c->no_tcp &&
		    pasta_listen_ns(ctx, IPPROTO_TCP, &c->tcp_out) < 0)
			die("-T: can't listen on a forwarded port in the "
			    "namespace");
	}
	fwd_auto_init(ctx);
	if (!*c->restart_from)
		ctl_init(ctx);

	if (*c->pcap_file) {
		if ((ret = pcap_open(c->pcap_file)) < 0)
			die("--pcap %s: %s", c->pcap_file, file_strerror(ret));
		tap_set_pcap(true);
	}

	pidfd = pidfile_open(c->pid_file);

	/* Last of what may fail: die() leaves no socket file behind */
	if (c->mode == MODE_PASST && c->fd < 0 && sdlisten_fd() >= 0) {
		if ((ret = sdlisten_adopt(ctx->epollfd)) < 0) {
			errno = -ret;
			die_perror("socket from LISTEN_FDS");
		}
	} else if (c->mode == MODE_PASST && c->fd < 0) {
		passt_sock_open(ctx);
	}
	if (c->mode == MODE_PASST && c->vhost_user)
		repair_open(ctx, c->fd < 0 && sdlisten_fd() < 0 ?
				 passt_sock_path : "");

	/* A command we spawned keeps the terminal: stay in the foreground */
	spawned = c->mode == MODE_PASTA && pasta_child_pid_get() > 0;
	if (!c->foreground && !spawned) {
		if (!*c->log_file)
			log_to_syslog(c->mode == MODE_PASTA ? "pasta" : "passt");
		daemonize(pidfd);
	} else {
		pidfile_write(pidfd, getpid());
	}
	/* The splice path forks the namespace socket helper: after
	 * daemonize(), while we may still enter the namespace
	 */
	flow_types_init(ctx);
	/* Host-side watches, and pasta's namespace configuration helper
	 * (another fork): in the host's namespace, before isolation
	 */
	follow_init(ctx);
	/* After the fork: a signalfd added to epoll before it would keep
	 * waiting on the parent's signal queue.  The signals are blocked
	 * since main() began (signals_block_early()): one that came during
	 * set-up is read from the signalfd now
	 */
	if ((ret = signals_init(ctx)) < 0) {
		errno = -ret;
		die_perror("signals");
	}
	/* The last fork() but the command's: the socket files' remover
	 * (passt/sockfile.c) takes the directory descriptors along
	 */
	sockfile_remover_start(c);
	/* socket bound, pid file written: switch user, drop capabilities */
	isolate_prefork(ctx);
	if (spawned)
		pasta_start_child();
	isolate_postfork(ctx);

	ready_notify(ctx);
	ret = passt_loop(ctx);
	sdnotify_stopping();	/* if the exit drain didn't already */
	if (c->stats)
		passt_stats_dump();
	return ret;
}
