// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/restart_wait.c - Hitless restart of a pasta that started its command
 *
 * DOC: Theory of Operation
 *
 * "pasta [OPTION]... -- COMMAND" forks the command (passt/pasta.c): it is
 * our child, with PR_SET_PDEATHSIG, and whoever started pasta (a shell, a
 * script, podman) waits for our PID and takes our exit status as the
 * command's.  A process can't hand its child to another one, so when a new
 * instance takes over (--restart-from, passt/restart.c) this process
 * doesn't exit: it becomes the command's waiter.
 *
 * At set-up, right after the command is forked, restart_wait_init() makes
 * a SOCK_SEQPACKET socket pair: one end stays here, the other is handed to
 * the new instance with everything else (RESTART_REC_WAITER, flag
 * RESTART_WAITER_STAYS).  Once the new instance has confirmed,
 * restart_wait_become() closes every descriptor but that end, the signalfd
 * and the log: the tap, the namespace, the listeners, every socket of a
 * flow (those handed over live on in the new instance; UDP and ICMP flows,
 * not handed over, end here), the helpers' sockets and pipes (so that they
 * end: the namespace socket helper, the host watch, the socket files'
 * remover), and last the -c connection of the hand-over, whose end tells
 * the new instance that nothing here reads any more.  What is left runs
 * under the filter the process already had (no new system call but
 * close_range).  It then waits, with poll(2), for:
 *  - SIGCHLD: the command ended (waitpid(2), helpers reaped alike): its
 *    status as pasta reports it (exit status, or 128 plus the signal
 *    number) goes to the instance (RESTART_WAIT_EXITED), which ends as
 *    pasta ends when its command does (the exit drain), and tells its own
 *    status back;
 *  - SIGTERM, SIGINT, SIGHUP, SIGUSR1: sent to the PID the user knows as
 *    pasta's, passed on (RESTART_WAIT_SIGNAL): the instance does what pasta
 *    does on them (drain and exit, a second one at once; the counters);
 *  - RESTART_WAIT_DONE from the instance: it exits with that status, and so
 *    does this process, as pasta would have: the command, if it still runs,
 *    is killed by its parent-death signal then, as before;
 *  - the end of the link without RESTART_WAIT_DONE: the instance died;
 *    this process exits 1 (the command with it, as when pasta dies).
 * If this process dies instead, the instance sees the end of its link:
 * the command went with it (SIGKILL, its parent-death signal), and the
 * instance ends as for a command killed by SIGKILL (status 137).
 *
 * A new instance that is replaced in turn hands the same end on
 * (RESTART_REC_WAITER without RESTART_WAITER_STAYS) and exits as any
 * replaced instance: the waiter always talks to whichever instance runs.
 * Messages sent while one instance hands over wait in the socket for the
 * next.  An instance of an older version doesn't know the record: it
 * refuses the stream, and this process goes on as if nothing happened.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/log.h"
#include "ctx.h"
#include "epoll_ref.h"
#include "restart_wait.h"
#include "signals.h"

static int restart_wait_own = -1;	/* the waiter's end: we forked the
					 * command */
static int restart_wait_link = -1;	/* the instance's end */
static pid_t restart_wait_pid;		/* the command */
static bool restart_wait_exited;	/* RESTART_WAIT_EXITED came */
static int restart_wait_status = -1;	/* ours, for restart_wait_atexit() */

/**
 * restart_wait_init() - pasta forked its command: the link, for a restart
 * @child:	PID of the command (of the process forked for it)
 *
 * Without the pair (no descriptor left), a hand-over is refused later.
 *
 * Context: set-up, before the helpers are forked (they close what they
 *	    don't need) and before isolation
 */
void restart_wait_init(pid_t child)
{
	int sv[2];

	restart_wait_pid = child;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		warn_perror("no link for a hitless restart (--restart-from)");
		return;
	}
	restart_wait_own = sv[0];
	restart_wait_link = sv[1];
}

/**
 * restart_wait_handover() - What a hand-over says of the command, if any
 * @w:		Filled: the command's PID, RESTART_WAITER_STAYS if we are its
 *		parent, and in @w->fd the descriptor of the link's end to hand
 *		over (not an index: the caller makes it one)
 *
 * Context: restart_give(), old process
 * Return: 1 if @w is to be sent, 0 if there is no command (nothing to
 *	   send), -1 if there is one but no link (refuse the hand-over)
 */
int restart_wait_handover(struct restart_waiter *w)
{
	if (!restart_wait_pid)
		return 0;
	if (restart_wait_link < 0)
		return -1;
	w->pid = (uint32_t)restart_wait_pid;
	w->flags = restart_wait_own >= 0 ? RESTART_WAITER_STAYS : 0;
	w->fd = (uint32_t)restart_wait_link;
	return 1;
}

/**
 * restart_wait_close_all() - Close every descriptor but stdio and @keep
 * @keep:	Descriptors to keep, ascending, all above STDERR_FILENO
 * @n:		Their count
 *
 * #syscalls:pasta close_range
 */
static void restart_wait_close_all(const int *keep, unsigned n)
{
	unsigned lo = STDERR_FILENO + 1, i;

	for (i = 0; i < n; i++) {
		if ((unsigned)keep[i] > lo)
			close_range(lo, (unsigned)keep[i] - 1, 0);
		lo = (unsigned)keep[i] + 1;
	}
	close_range(lo, ~0U, 0);
}

/**
 * restart_wait_send() - Waiter: one message to the instance
 * @type:	RESTART_WAIT_EXITED or RESTART_WAIT_SIGNAL
 * @value:	Status or signal number
 *
 * #syscalls:pasta sendto
 * Return: 0, or -1 if the instance is gone
 */
static int restart_wait_send(uint8_t type, uint8_t value)
{
	uint8_t m[2] = { type, value };

	if (send(restart_wait_own, m, 2, MSG_DONTWAIT | MSG_NOSIGNAL) == 2 ||
	    errno == EAGAIN)
		return 0;
	return -1;
}

/**
 * restart_wait_signals() - Waiter: read the signalfd, reap, pass on
 * @sigfd:	signalfd of the signals the loop handled
 * @status:	Set to pasta's status for the command once it has ended
 *
 * #syscalls:pasta read wait4
 * Return: 0, or -1 if the instance is gone
 */
static int restart_wait_signals(int sigfd, int *status)
{
	struct signalfd_siginfo si;
	int rc = 0;

	while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
		int st;
		pid_t p;

		if (si.ssi_signo != SIGCHLD) {
			if (restart_wait_send(RESTART_WAIT_SIGNAL,
					      (uint8_t)si.ssi_signo))
				rc = -1;
			continue;
		}
		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			if (p != restart_wait_pid)
				continue;	/* a helper of ours */
			*status = WIFEXITED(st) ? WEXITSTATUS(st) :
				  128 + WTERMSIG(st);
			info("restart: the command (PID %d) ended: status %d, "
			     "passed on", (int)p, *status);
			if (restart_wait_send(RESTART_WAIT_EXITED,
					      (uint8_t)*status))
				rc = -1;
		}
	}
	return rc;
}

/**
 * restart_wait_become() - Old process, hand-over confirmed: be the waiter
 * @s:		The -c connection of the hand-over, closed last
 *
 * Returns at once if we didn't fork the command (the caller exits 0, as
 * any replaced instance).  Otherwise never returns: see the DOC comment.
 *
 * Context: restart_give(), after the new instance's 'K'
 * #syscalls:pasta close poll ppoll recvfrom exit_group
 */
void restart_wait_become(int s)
{
	int keep[4] = { restart_wait_own, signals_fd(), log_file_fd_get(),
			s };
	int status = -1, sigfd = signals_fd();
	unsigned i, j, n = 0;

	if (restart_wait_own < 0)
		return;
	for (i = 0; i < 4; i++) {	/* ascending, without -1 */
		int v = keep[i];

		if (v <= STDERR_FILENO)
			continue;
		for (j = n; j > 0 && keep[j - 1] > v; j--)
			keep[j] = keep[j - 1];
		keep[j] = v;
		n++;
	}
	restart_wait_close_all(keep, n);
	close(s);
	info("restart: waiting for the command (PID %d), whose status the "
	     "new instance reports", (int)restart_wait_pid);

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = restart_wait_own, .events = POLLIN },
			{ .fd = sigfd, .events = POLLIN },
		};
		uint8_t m[2];
		ssize_t r;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(EXIT_FAILURE);
		}
		if (pfd[1].revents && restart_wait_signals(sigfd, &status))
			pfd[0].revents |= POLLHUP;
		if (!pfd[0].revents)
			continue;
		r = recv(restart_wait_own, m, sizeof(m), MSG_DONTWAIT);
		if (r == 2 && m[0] == RESTART_WAIT_DONE) {
			debug("restart: the instance exited with %u", m[1]);
			_exit(m[1]);
		}
		if (r > 0 || (r < 0 && errno == EAGAIN))
			continue;	/* unknown message: ignored */
		if (status >= 0)
			_exit(status);
		warn("restart: the instance that took over is gone: exiting");
		_exit(EXIT_FAILURE);
	}
}

/**
 * restart_wait_atexit() - New instance, at exit: tell the waiter our status
 *
 * Registered before the socket files' remover stops (atexit handlers run
 * in reverse order), so that the waiter, which whoever started pasta sees,
 * exits once the -c socket file is gone.  Nothing is sent if the status
 * isn't known (restart_wait_done() not called): the waiter sees the end
 * of the link and exits 1.
 *
 * #syscalls sendto
 */
static void restart_wait_atexit(void)
{
	uint8_t m[2] = { RESTART_WAIT_DONE, (uint8_t)restart_wait_status };

	if (restart_wait_link < 0 || restart_wait_status < 0)
		return;
	if (send(restart_wait_link, m, 2, MSG_DONTWAIT | MSG_NOSIGNAL) != 2)
		debug_perror("restart: status to the waiter");
}

/**
 * restart_wait_adopt() - New instance: the link to the command's waiter
 * @ctx:	Context
 * @w:		The record
 * @fd:		Our end of the link
 *
 * Context: set-up, restart_adopt()
 * #syscalls epoll_ctl
 */
void restart_wait_adopt(struct ctx *ctx, const struct restart_waiter *w,
			int fd)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_RESTART_WAIT };
	struct epoll_event ev = { .events = EPOLLIN };

	if (fd < 0)
		return;
	restart_wait_link = fd;
	restart_wait_pid = (pid_t)w->pid;
	atexit(restart_wait_atexit);
	ref.fd = (uint32_t)fd & EPOLL_REF_FD_MAX;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, fd, &ev))
		die_perror("restart: epoll_ctl on the link to the waiter");
	info("restart: the command (PID %d) is %s's child: its end comes "
	     "from there", (int)w->pid,
	     w->flags & RESTART_WAITER_STAYS ? "the old process" :
	     "the first process");
}

/**
 * restart_wait_handler() - New instance: a message from the waiter
 * @ctx:	Context: ->quit, ->quit_now and ->exit_status set here
 *
 * RESTART_WAIT_EXITED: as SIGCHLD for pasta's command; RESTART_WAIT_SIGNAL:
 * as that signal; the end of the link: the waiter died, and the command
 * with it (its parent-death signal, SIGKILL).
 *
 * #syscalls recvfrom epoll_ctl close
 * Return: how many SIGUSR1 came (the caller logs the counters as often)
 */
unsigned restart_wait_handler(struct ctx *ctx)
{
	unsigned usr1 = 0;

	while (restart_wait_link >= 0) {
		uint8_t m[2];
		ssize_t r = recv(restart_wait_link, m, sizeof(m),
				 MSG_DONTWAIT);

		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (r == 2 && m[0] == RESTART_WAIT_EXITED) {
			info("restart: the command (PID %d) ended: status %u",
			     (int)restart_wait_pid, m[1]);
			restart_wait_exited = true;
			ctx->quit = true;
			ctx->exit_status = m[1];
		} else if (r == 2 && m[0] == RESTART_WAIT_SIGNAL) {
			if (m[1] == SIGUSR1)
				usr1++;
			else if (m[1] == SIGTERM || m[1] == SIGINT ||
				 m[1] == SIGHUP)
				signals_quit(ctx);
		} else if (r <= 0) {
			warn("restart: the process that waits for the command "
			     "is gone, the command with it");
			if (!restart_wait_exited) {
				ctx->quit = true;
				ctx->exit_status = 128 + SIGKILL;
			}
			epoll_ctl(ctx->epollfd, EPOLL_CTL_DEL,
				  restart_wait_link, NULL);
			close(restart_wait_link);
			restart_wait_link = -1;
		}
	}
	return usr1;
}

/**
 * restart_wait_done() - New instance, leaving main(): our exit status
 * @status:	Exit status, 0 to 255
 *
 * The waiter exits with it (restart_wait_atexit()), as the pasta that
 * whoever started the command waits for.
 */
void restart_wait_done(int status)
{
	restart_wait_status = status & 0xff;
}
