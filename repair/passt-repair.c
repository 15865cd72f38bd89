// SPDX-License-Identifier: GPL-2.0-or-later
/* repair/passt-repair.c - Switch TCP_REPAIR on sockets passt sends us
 *
 * Moving a TCP connection (live migration of a passt --vhost-user guest)
 * takes TCP_REPAIR on its socket, which needs CAP_NET_ADMIN
 * (Documentation/networking/tcp-repair, tcp(7)); passt never has it.  This
 * helper has it, and nothing else to do: it connects to passt's repair
 * socket (--repair-path), and for each message, one signed byte (1
 * TCP_REPAIR_ON, 0 TCP_REPAIR_OFF, -1 TCP_REPAIR_OFF_NO_WP: the values of
 * <linux/tcp.h>) with 1 to 253 descriptors (SCM_RIGHTS, unix(7); 253 is
 * the kernel's SCM_MAX_FD), it sets TCP_REPAIR to that value on every
 * descriptor, closes its copies, and echoes the byte back.  Anything else
 * (another byte, no descriptors, a descriptor that isn't a TCP socket, a
 * truncated list) ends it with status 1 and a message, closing the
 * connection, which passt takes as a failure.  passt closing the
 * connection ends it with status 0.  This is upstream passt's protocol
 * (passt-repair(1)), so either side may be upstream's.
 *
 * PATH may be a directory: then the helper waits (inotify(7)) for a file
 * whose name ends in ".repair" to appear in it, and connects to that one.
 *
 * Once connected, a seccomp filter (libseccomp) allows only what the loop
 * needs: recvmsg, setsockopt, close, sendto/send, write for messages, and
 * exit (sanitizer builds: also the calls their runtime makes at exit).
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef TCP_REPAIR_OFF_NO_WP
#define TCP_REPAIR_OFF_NO_WP	-1	/* <linux/tcp.h>, Linux 4.19 */
#endif
#define REPAIR_FDS_MAX		253	/* SCM_MAX_FD, include/net/scm.h */
#define REPAIR_SUFFIX		".repair"

/**
 * usage() - Print the usage line and exit with status 2
 * @prog:	argv[0]
 */
static void usage(const char *prog)
{
	fprintf(stderr, "Usage: %s PATH\n"
		"  PATH: passt's --repair-path socket, or a directory to wait "
		"in for a file named *" REPAIR_SUFFIX "\n", prog);
	exit(2);
}

/**
 * repair_wait_dir() - Wait in a directory for a *.repair file
 * @dir:	Directory
 * @sun:	Filled with its path
 *
 * Return: 0, or -1 (message printed)
 */
static int repair_wait_dir(const char *dir, struct sockaddr_un *sun)
{
	char buf[sizeof(struct inotify_event) + NAME_MAX + 1]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	size_t sl = strlen(REPAIR_SUFFIX);
	int fd = inotify_init1(IN_CLOEXEC);

	if (fd < 0 || inotify_add_watch(fd, dir, IN_CREATE | IN_MOVED_TO) < 0) {
		fprintf(stderr, "passt-repair: inotify on %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		size_t off = 0;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "passt-repair: inotify read: %s\n",
				strerror(errno));
			return -1;
		}
		while (off + sizeof(struct inotify_event) <= (size_t)n) {
			const struct inotify_event *ev =
				(const struct inotify_event *)(buf + off);
			size_t len;

			off += sizeof(*ev) + ev->len;
			if (off > (size_t)n || !ev->len)
				break;
			len = strnlen(ev->name, ev->len);
			if (len < sl || strcmp(ev->name + len - sl, REPAIR_SUFFIX))
				continue;
			if (snprintf(sun->sun_path, sizeof(sun->sun_path), "%s/%s",
				     dir, ev->name) >= (int)sizeof(sun->sun_path)) {
				fprintf(stderr, "passt-repair: %s/%s: path too "
					"long\n", dir, ev->name);
				return -1;
			}
			close(fd);
			return 0;
		}
	}
}

/**
 * repair_seccomp() - Allow only what the command loop needs
 *
 * Return: 0, or -1 (message printed)
 */
static int repair_seccomp(void)
{
	static const int allow[] = {
		SCMP_SYS(recvmsg), SCMP_SYS(recvfrom), SCMP_SYS(setsockopt),
		SCMP_SYS(close), SCMP_SYS(sendto), SCMP_SYS(sendmsg),
		SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(exit),
		SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn),
#ifdef SANITIZER_BUILD
		/* The sanitizer runtime's own, at exit */
		SCMP_SYS(sigaltstack), SCMP_SYS(mmap), SCMP_SYS(munmap),
		SCMP_SYS(madvise),
#endif
	};
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_KILL_PROCESS);
	unsigned i;
	int rc = 0;

	if (!f)
		return -1;
	for (i = 0; i < sizeof(allow) / sizeof(allow[0]) && !rc; i++)
		rc = seccomp_rule_add(f, SCMP_ACT_ALLOW, allow[i], 0);
	if (!rc)
		rc = seccomp_load(f);
	seccomp_release(f);
	if (rc)
		fprintf(stderr, "passt-repair: seccomp: %s\n", strerror(-rc));
	return rc ? -1 : 0;
}

/**
 * repair_one() - Take one command and carry it out
 * @s:		Connection to passt
 *
 * Return: 1 to go on, 0 if passt closed the connection, -1 on error
 *	   (message printed; descriptors received are closed)
 */
static int repair_one(int s)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * REPAIR_FDS_MAX)];
		struct cmsghdr align;
	} u;
	int fds[REPAIR_FDS_MAX], n = 0, i, op, rc = 1;
	int8_t cmd = 0;
	struct iovec iov = { &cmd, sizeof(cmd) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t r;

	do
		r = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == ECONNRESET)
		r = 0;
	if (r < 0) {
		fprintf(stderr, "passt-repair: recvmsg: %s\n", strerror(errno));
		return -1;
	}
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < (int)k && n < REPAIR_FDS_MAX; i++)
			memcpy(&fds[n++], CMSG_DATA(cm) + (size_t)i * sizeof(int),
			       sizeof(int));
	}
	if (!r) {
		rc = 0;
		goto out;
	}
	if (mh.msg_flags & MSG_CTRUNC) {
		fprintf(stderr, "passt-repair: more than %d descriptors in a "
			"message\n", REPAIR_FDS_MAX);
		rc = -1;
		goto out;
	}
	if (!n) {
		fprintf(stderr, "passt-repair: command %d without sockets\n", cmd);
		rc = -1;
		goto out;
	}
	if (cmd != TCP_REPAIR_ON && cmd != TCP_REPAIR_OFF &&
	    cmd != TCP_REPAIR_OFF_NO_WP) {
		fprintf(stderr, "passt-repair: unknown command %d\n", cmd);
		rc = -1;
		goto out;
	}
	op = cmd;
	for (i = 0; i < n; i++) {
		if (setsockopt(fds[i], IPPROTO_TCP, TCP_REPAIR, &op,
			       sizeof(op))) {
			fprintf(stderr, "passt-repair: TCP_REPAIR %d on socket "
				"%d of %d: %s\n", op, i + 1, n, strerror(errno));
			rc = -1;
			goto out;
		}
	}
	if (send(s, &cmd, sizeof(cmd), MSG_NOSIGNAL) != sizeof(cmd)) {
		fprintf(stderr, "passt-repair: reply: %s\n", strerror(errno));
		rc = -1;
	}
out:
	for (i = 0; i < n; i++)
		close(fds[i]);
	return rc;
}

/**
 * main() - Connect to passt's repair socket and serve its commands
 * @argc:	Argument count: 2
 * @argv:	PATH
 *
 * Return: 0 when passt closes the connection, 1 on errors, 2 on usage
 */
int main(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	int s, rc;

	prctl(PR_SET_DUMPABLE, 0);
	if (argc != 2 || !*argv[1])
		usage(argv[0]);
	if (stat(argv[1], &st)) {
		fprintf(stderr, "passt-repair: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode)) {
		if (repair_wait_dir(argv[1], &sun))
			return 1;
	} else if (!S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "passt-repair: %s is not a socket or a "
			"directory\n", argv[1]);
		return 2;
	} else if (snprintf(sun.sun_path, sizeof(sun.sun_path), "%s",
			    argv[1]) >= (int)sizeof(sun.sun_path)) {
		fprintf(stderr, "passt-repair: %s: path too long (at most %zu "
			"characters)\n", argv[1], sizeof(sun.sun_path) - 1);
		return 2;
	}

	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		fprintf(stderr, "passt-repair: socket: %s\n", strerror(errno));
		return 1;
	}
	/* A file that just appeared may not listen yet */
	while (connect(s, (struct sockaddr *)&sun, sizeof(sun))) {
		if (S_ISDIR(st.st_mode) && errno == ECONNREFUSED) {
			usleep(10000);
			continue;
		}
		fprintf(stderr, "passt-repair: connect to %s: %s\n",
			sun.sun_path, strerror(errno));
		return 1;
	}
	if (repair_seccomp())
		return 1;
	while ((rc = repair_one(s)) > 0)
		;
	/* _exit(): no exit handlers (a sanitizer's leak check would make
	 * system calls the filter doesn't allow)
	 */
	_exit(rc < 0 ? 1 : 0);
}
