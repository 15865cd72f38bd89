// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/signals.c - The signals the daemon handles, through a signalfd
 *
 * SIGTERM, SIGINT and SIGHUP ask the main loop to quit (a second one: at
 * once), SIGCHLD reaps pasta's command (its exit status becomes ours),
 * SIGUSR1 asks for the counters, SIGUSR2 (hidden --seccomp-selftest) makes
 * a forbidden system call.  They are blocked from the start of main()
 * (signals_block_early()), so one that comes during set-up waits for the
 * loop, and read from a signalfd in the loop (signals_init(),
 * signals_handler()); forked children unblock them (signals_unblock_child()).
 * signal(7), signalfd(2).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctx.h"
#include "epoll_ref.h"
#include "isolation.h"
#include "signals.h"

static int signals_sigfd = -1;	/* the loop's signalfd */

/**
 * signals_quit() - SIGTERM, SIGINT or SIGHUP: quit, or at once if again
 * @ctx:	Context: ->quit, ->quit_now and ->exit_status set here
 *
 * Also for these signals sent to the waiter of pasta's command after a
 * hitless restart (passt/restart_wait.c)
 */
void signals_quit(struct ctx *ctx)
{
	if (ctx->quit) {
		/* A second one: no more waiting */
		ctx->quit_now = true;
		return;
	}
	ctx->quit = true;
	ctx->exit_status = 0;
}

/**
 * signals_fd() - The signalfd signals_init() made
 *
 * Return: its descriptor, -1 before signals_init()
 */
int signals_fd(void)
{
	return signals_sigfd;
}

/**
 * signals_handler() - Read the signalfd: quit requests, the command's exit
 * @ctx:	Context: ->quit, ->quit_now and ->exit_status set here
 * @fd:		signalfd
 * @child:	pasta: pid of the command we spawned (its exit ends us with
 *		its status), else 0 or less
 *
 * Return: how many SIGUSR1 came (the caller logs the counters as often)
 *
 * #syscalls read wait4
 */
unsigned signals_handler(struct ctx *ctx, int fd, pid_t child)
{
	struct signalfd_siginfo si;
	unsigned usr1 = 0;

	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD: {
			int status;

			while (child > 0) {
				pid_t p = waitpid(-1, &status, WNOHANG);

				if (p <= 0)
					break;
				if (p != child)
					continue;
				ctx->quit = true;
				ctx->exit_status = WIFEXITED(status) ?
						   WEXITSTATUS(status) :
						   128 + WTERMSIG(status);
			}
			break;
		}
		case SIGUSR1:
			usr1++;
			break;
		case SIGUSR2:	/* only with the hidden --seccomp-selftest */
			isolate_forbidden_syscall();
			break;
		default:	/* SIGTERM, SIGINT, SIGHUP */
			signals_quit(ctx);
			break;
		}
	}
	return usr1;
}

/**
 * signals_set() - The signals the main loop handles
 * @set:	Result
 * @selftest:	Include SIGUSR2 (hidden --seccomp-selftest)
 */
static void signals_set(sigset_t *set, bool selftest)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGUSR1);
	if (selftest)
		sigaddset(set, SIGUSR2);
}

/**
 * signals_block_early() - Hold the signals we handle until the loop runs
 *
 * From the first instruction on: a SIGTERM (or SIGUSR1) that arrives
 * during set-up then waits for signals_init() and ends the daemon cleanly
 * (socket file removed), instead of killing it half set up.  Children that
 * run other code restore an empty mask (signals_unblock_child()).
 */
void signals_block_early(void)
{
	sigset_t set;

	signals_set(&set, false);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/**
 * signals_unblock_child() - In a forked child: no signal blocked
 *
 * Context: the spawned command, the namespace socket helper
 */
void signals_unblock_child(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/**
 * signals_init() - Block the signals we handle and route them to epoll
 * @ctx:	Context
 *
 * Return: 0 or -errno
 */
int signals_init(struct ctx *ctx)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_SIGNAL };
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t set;
	int fd;

	signals_set(&set, ctx->c.seccomp_selftest);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN);

	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ref.fd = (uint32_t)fd & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	signals_sigfd = fd;
	return 0;
}
