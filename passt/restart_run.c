// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/restart_run.c - Hitless restart: the two processes' sides
 *
 * restart_give() runs in the old process, restart_take() and
 * restart_adopt() in the new one; the stream and its checks are in
 * passt/restart.c, which also explains the whole exchange.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "../conf/conf.h"
#include "../lib/log.h"
#include "../lib/util.h"
#include "../conf/wire.h"
#include "../tap/guest.h"
#include "../tap/tap.h"
#include "ctx.h"
#include "flow.h"
#include "fwd.h"
#include "passt.h"
#include "pasta.h"
#include "restart.h"
#include "sockfile.h"
#include "tcp.h"
#include "vhost.h"

#define RESTART_BUF_SIZE	(16U << 20)	/* bytes of records at most */
#define RESTART_FDS		(1U << 19)	/* descriptors at most */

static uint8_t restart_stream[RESTART_BUF_SIZE];
static int restart_fds[RESTART_FDS];
static uint32_t restart_nfds;
static size_t restart_len;

/**
 * restart_send_all() - Write a whole buffer to a blocking socket
 * @s:		Socket (SO_SNDTIMEO set)
 * @p:		Buffer
 * @len:	Bytes
 *
 * #syscalls sendto
 * Return: 0, or -1 with errno set
 */
static int restart_send_all(int s, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(s, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * restart_send_fds() - Send descriptors in chunks of RESTART_FDS_PER_MSG
 * @s:		Socket
 * @fds:	Descriptors
 * @n:		Their count
 *
 * Each chunk rides on a 4-byte message holding its count (big-endian).
 *
 * #syscalls sendmsg
 * Return: 0, or -1 with errno set
 */
static int restart_send_fds(int s, const int *fds, uint32_t n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * RESTART_FDS_PER_MSG)];
		struct cmsghdr align;
	} u;
	uint32_t i = 0;

	while (i < n) {
		uint32_t k = MIN(n - i, (uint32_t)RESTART_FDS_PER_MSG);
		uint8_t cnt[4] = { (uint8_t)(k >> 24), (uint8_t)(k >> 16),
				   (uint8_t)(k >> 8), (uint8_t)k };
		struct iovec iov = { .iov_base = cnt, .iov_len = 4 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = u.buf,
				     .msg_controllen = CMSG_SPACE(sizeof(int) *
								  k) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		ssize_t rc;

		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * k);
		memcpy(CMSG_DATA(cm), fds + i, sizeof(int) * k);
		do
			rc = sendmsg(s, &mh, MSG_NOSIGNAL);
		while (rc < 0 && errno == EINTR);
		if (rc != 4)
			return -1;
		i += k;
	}
	return 0;
}

/**
 * restart_refuse() - Tell the new process no, and go on
 * @s:		-c client socket
 * @why:	Reason, for both logs
 *
 * #syscalls sendto
 */
static void restart_refuse(int s, const char *why)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "error\nhand-over refused: %s\n",
			 why);

	warn("restart: hand-over refused: %s: going on", why);
	if (n > 0)
		(void)!send(s, msg, MIN((size_t)n, sizeof(msg) - 1),
			    MSG_DONTWAIT | MSG_NOSIGNAL);
}

/**
 * restart_give() - Old process: hand everything to the new one, and exit
 * @ctx:	Context
 * @s:		-c client socket that sent the hand-over request
 * @req:	The request line
 * @ctl_fd:	The listening -c socket, handed over too
 *
 * Returns only if the hand-over was refused, or the new process didn't
 * confirm it: then nothing changed here (nothing was read from any
 * socket meanwhile).  On confirmation, exits 0 at once (no flow closed).
 *
 * Context: main loop, between two batches of events; blocks for
 *	    RESTART_TIMEOUT_S at most
 * #syscalls fcntl setsockopt recvfrom exit_group
 */
void restart_give(struct ctx *ctx, int s, const char *req, int ctl_fd)
{
	struct timeval tv = { .tv_sec = RESTART_TIMEOUT_S };
	struct restart_buf b = { .p = restart_stream,
				 .size = sizeof(restart_stream) };
	struct restart_rec r = { 0 };
	struct vu_snap vs;
	unsigned long ver;
	char ack = 0;
	int tx;
	ssize_t n;
	int fl;

	ver = strtoul(req + strlen("handover "), NULL, 10);
	if (ver < RESTART_VERSION_MIN) {
		restart_refuse(s, "the new process reads no stream version "
			       "we write (1 and 2)");
		return;
	}
	b.ver = (uint16_t)MIN(ver, (unsigned long)RESTART_VERSION);
	if (ctx->c.mode == MODE_PASTA && pasta_child_pid_get()) {
		restart_refuse(s, "pasta waits for a command it started: "
			       "only a pasta attached to an existing "
			       "namespace (--netns, PID) can be replaced");
		return;
	}

	/* Frames of this batch still queued go out first: the new process
	 * starts where the guest's stream or device is
	 */
	tap_flush();
	if (tap_fd() >= 0 && tap_backend() == TAP_VHOST) {
		const char *why = vu_snapshot(&vs);

		if (why) {
			restart_refuse(s, why);
			return;
		}
	}
	restart_nfds = 0;
	r.type = RESTART_REC_TAP;
	if (tap_fd() >= 0) {
		r.u.tap.kind = tap_backend() == TAP_DEV ? RESTART_TAP_DEV :
			       tap_backend() == TAP_VHOST ? RESTART_TAP_VHOST :
			       RESTART_TAP_STREAM;
		r.u.tap.vnet = tap_vnet_hdr();
	}
	r.u.tap.fd = restart_fd_add(&b, restart_fds, RESTART_FDS, tap_fd());
	memcpy(r.u.tap.mac, tap_guest.mac, 6);
	r.u.tap.mac_set = tap_guest.mac_set;
	r.u.tap.addr4 = tap_guest.addr4_seen;
	r.u.tap.addr6 = tap_guest.addr6_seen;
	r.u.tap.addr6_ll = tap_guest.addr6_ll_seen;
	restart_put(&b, &r);

	if (tap_fd() >= 0 && tap_backend() == TAP_VHOST) {
		unsigned i;

		memset(&r, 0, sizeof(r));
		r.type = RESTART_REC_VU;
		r.u.vu = vs;
		for (i = 0; i < VU_REGIONS_MAX; i++)
			r.u.vu.r[i].fd = (int)restart_fd_add(&b, restart_fds,
							     RESTART_FDS,
							     vs.r[i].fd);
		for (i = 0; i < VU_QUEUES; i++) {
			struct vu_snap_queue *q = &r.u.vu.q[i];

			q->kick = (int)restart_fd_add(&b, restart_fds,
						      RESTART_FDS, q->kick);
			q->call = (int)restart_fd_add(&b, restart_fds,
						      RESTART_FDS, q->call);
			q->err = (int)restart_fd_add(&b, restart_fds,
						     RESTART_FDS, q->err);
		}
		restart_put(&b, &r);
	}

	for (tx = 0; tx < 2 && tap_fd() >= 0 && tap_backend() == TAP_STREAM;
	     tx++) {
		size_t len, off;
		const uint8_t *p = tap_stream_leftover(tx, &len);

		for (off = 0; off < len; off += RESTART_STREAM_CHUNK) {
			memset(&r, 0, sizeof(r));
			r.type = RESTART_REC_STREAM;
			r.u.bytes.tx = tx;
			r.u.bytes.p = p + off;
			r.u.bytes.len = MIN(len - off,
					    (size_t)RESTART_STREAM_CHUNK);
			restart_put(&b, &r);
		}
	}

	if (ctx->ns_fd >= 0) {
		memset(&r, 0, sizeof(r));
		r.type = RESTART_REC_NS;
		r.u.fd = restart_fd_add(&b, restart_fds, RESTART_FDS,
					ctx->ns_fd);
		restart_put(&b, &r);
	}
	memset(&r, 0, sizeof(r));
	r.type = RESTART_REC_CTL;
	r.u.fd = restart_fd_add(&b, restart_fds, RESTART_FDS, ctl_fd);
	restart_put(&b, &r);

	fwd_restart_save(&b, restart_fds, RESTART_FDS);
	tcp_restart_save(&b, restart_fds, RESTART_FDS);
	flow_restart_save(&b, restart_fds, RESTART_FDS);	/* splice, UDP */
	restart_hdr_put(&b, b.nfd);

	if (b.len > b.size || b.nfd > RESTART_FDS) {
		restart_refuse(s, "too many connections for one hand-over");
		return;
	}

	fl = fcntl(s, F_GETFL);
	fcntl(s, F_SETFL, fl & ~O_NONBLOCK);
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (restart_send_all(s, b.p, b.len) ||
	    restart_send_fds(s, restart_fds, b.nfd)) {
		warn_perror("restart: sending the state");
		goto resume;
	}
	do
		n = recv(s, &ack, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n == 1 && ack == 'K') {
		sockfile_remover_keep();
		info("restart: %u records, %u descriptors handed over: "
		     "exiting", b.nrec, b.nfd);
		_exit(EXIT_SUCCESS);
	}
	warn("restart: the new process didn't take over (%s): going on",
	     n == 1 ? "it refused" : n ? strerror(errno) : "it went away");
resume:
	fcntl(s, F_SETFL, fl);
}

/**
 * restart_recv_all() - Read exactly @len bytes from a blocking socket
 * @s:		Socket (SO_RCVTIMEO set)
 * @p:		Buffer
 * @len:	Bytes
 *
 * Return: 0, or -1 (errno set; 0 on a premature end of stream)
 */
static int restart_recv_all(int s, uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = recv(s, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = 0;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * restart_recv_fds() - Receive the descriptors that follow the records
 * @s:		Socket
 * @n:		How many the header announced
 *
 * Return: 0, or -1 (wrong chunk sizes, truncated control data)
 */
static int restart_recv_fds(int s, uint32_t n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * RESTART_FDS_PER_MSG)];
		struct cmsghdr align;
	} u;

	restart_nfds = 0;
	while (restart_nfds < n) {
		uint32_t want = MIN(n - restart_nfds,
				    (uint32_t)RESTART_FDS_PER_MSG), k;
		uint8_t cnt[4] = { 0 };
		struct iovec iov = { .iov_base = cnt, .iov_len = 4 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = u.buf,
				     .msg_controllen = sizeof(u.buf) };
		struct cmsghdr *cm;
		ssize_t rc;

		do
			rc = recvmsg(s, &mh, MSG_CMSG_CLOEXEC | MSG_WAITALL);
		while (rc < 0 && errno == EINTR);
		if (rc != 4 || (mh.msg_flags & MSG_CTRUNC))
			return -1;
		k = (uint32_t)cnt[0] << 24 | (uint32_t)cnt[1] << 16 |
		    (uint32_t)cnt[2] << 8 | cnt[3];
		cm = CMSG_FIRSTHDR(&mh);
		if (k != want || !cm || cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS ||
		    cm->cmsg_len != CMSG_LEN(sizeof(int) * k)) {
			/* whatever did arrive is closed */
			if (cm && cm->cmsg_type == SCM_RIGHTS &&
			    cm->cmsg_len > CMSG_LEN(0)) {
				size_t m = (cm->cmsg_len - CMSG_LEN(0)) /
					   sizeof(int), j;

				for (j = 0; j < m; j++) {
					int fd;

					memcpy(&fd, CMSG_DATA(cm) +
					       j * sizeof(int), sizeof(fd));
					close(fd);
				}
			}
			return -1;
		}
		memcpy(restart_fds + restart_nfds, CMSG_DATA(cm),
		       sizeof(int) * k);
		restart_nfds += k;
	}
	return 0;
}

/**
 * struct restart_count - What a stream holds, for the checks before 'K'
 * @flows:	TCP, splice and UDP records
 * @tap:	Records of the guest side
 * @vu:		RESTART_REC_VU records
 * @kind:	Kind of the guest side (enum restart_tap_kind)
 * @bad:	A TCP record the TCP module refused
 */
struct restart_count {
	unsigned flows;
	unsigned tap;
	unsigned vu;
	uint8_t kind;
	bool bad;
};

/**
 * restart_check_cb() - Per record, before confirming: what modules check
 * @arg:	struct restart_count
 * @r:		Record (fields already in range)
 *
 * A spliced connection's record is refused too if this build has no
 * splice path.
 *
 * Return: 0, or -RESTART_E_FIELD
 */
static int restart_check_cb(void *arg, const struct restart_rec *r)
{
	struct restart_count *n = arg;

	if (r->type == RESTART_REC_TCP) {
		if (tcp_restart_check(&r->u.tcp))
			return -RESTART_E_FIELD;
		n->flows++;
	} else if (r->type == RESTART_REC_SPLICE) {
		if (!flow_restart_check(FLOW_TCP_SPLICE, r))
			return -RESTART_E_FIELD;
		n->flows++;
	} else if (r->type == RESTART_REC_UDP) {
		if (!flow_restart_check(FLOW_UDP, r))
			return -RESTART_E_FIELD;
		n->flows++;
	} else if (r->type == RESTART_REC_TAP) {
		n->tap++;
		n->kind = r->u.tap.kind;
	} else if (r->type == RESTART_REC_VU) {
		/* after its RESTART_REC_TAP, which names it */
		if (n->kind != RESTART_TAP_VHOST || n->vu++ ||
		    vu_snap_check(&r->u.vu))
			return -RESTART_E_FIELD;
	}
	return 0;
}

/**
 * restart_fds_close() - Close every received descriptor not taken
 */
static void restart_fds_close(void)
{
	uint32_t i;

	for (i = 0; i < restart_nfds; i++) {
		if (restart_fds[i] >= 0)
			close(restart_fds[i]);
		restart_fds[i] = -1;
	}
}

/**
 * restart_fd_take() - Take a received descriptor by index
 * @idx:	Index, or RESTART_FD_NONE
 *
 * Return: the descriptor (now ours to close), or -1
 */
static int restart_fd_take(uint32_t idx)
{
	int fd;

	if (idx == RESTART_FD_NONE || idx >= restart_nfds)
		return -1;
	fd = restart_fds[idx];
	restart_fds[idx] = -1;
	return fd;
}

/**
 * restart_early_cb() - New process, before TCP set-up: guest side, namespace
 * @arg:	Context
 * @r:		Record
 *
 * Return: 0
 */
static int restart_early_cb(void *arg, const struct restart_rec *r)
{
	static int vu_sock = -1;
	struct ctx *ctx = arg;

	if (r->type == RESTART_REC_VU) {
		struct vu_snap v = r->u.vu;
		unsigned i;

		for (i = 0; i < VU_REGIONS_MAX; i++)
			v.r[i].fd = restart_fd_take((uint32_t)v.r[i].fd);
		for (i = 0; i < VU_QUEUES; i++) {
			v.q[i].kick = restart_fd_take((uint32_t)v.q[i].kick);
			v.q[i].call = restart_fd_take((uint32_t)v.q[i].call);
			v.q[i].err = restart_fd_take((uint32_t)v.q[i].err);
		}
		if (vu_sock < 0 || vhost_resume(ctx, vu_sock, &v))
			die("restart: the vhost-user front-end can't be "
			    "resumed");
	} else if (r->type == RESTART_REC_NS) {
		ctx->ns_fd = restart_fd_take(r->u.fd);
	} else if (r->type == RESTART_REC_STREAM) {
		if (tap_fd() < 0 || tap_backend() != TAP_STREAM ||
		    tap_stream_restore(r->u.bytes.tx, r->u.bytes.p,
				       r->u.bytes.len))
			die("restart: the stream to QEMU can't be resumed");
	} else if (r->type == RESTART_REC_TAP) {
		const struct restart_tap *t = &r->u.tap;
		int fd = restart_fd_take(t->fd);

		if (t->mac_set)
			tap_guest_mac_set(t->mac);
		tap_guest.addr4_seen = t->addr4;
		tap_guest.addr6_seen = t->addr6;
		tap_guest.addr6_ll_seen = t->addr6_ll;
		if (fd < 0)
			return 0;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		if (t->kind == RESTART_TAP_VHOST) {	/* RESTART_REC_VU next */
			vu_sock = fd;
			return 0;
		}
		tap_init(t->kind == RESTART_TAP_DEV ? TAP_DEV : TAP_STREAM, fd,
			 t->vnet);
		if (passt_tap_add(ctx, fd))
			die_perror("restart: epoll_ctl on the guest's descriptor");
	}
	return 0;
}

/**
 * restart_take() - New process: take the old one's state, before set-up
 * @ctx:	Context, epoll instance created
 *
 * Connects to --restart-from, reads the greeting, asks for the hand-over,
 * receives and checks the stream and the descriptors, confirms, waits for
 * the old process to go, then takes the guest side and the namespace.  The
 * flows and listeners follow in restart_adopt(), once TCP is set up.
 *
 * Context: set-up, instead of the namespace and tap set-up; dies with a
 *	    message if anything fails (the old process then goes on)
 */
void restart_take(struct ctx *ctx)
{
	static uint8_t greet[WIRE_MAX_FRAME + WIRE_HELLO_LEN];
	static struct wire_pif pifs[WIRE_PIF_MAX];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = RESTART_TIMEOUT_S };
	struct restart_count cnt = { 0 };
	const char *path = ctx->c.restart_from;
	uint32_t body, nfds;
	unsigned npifs = 0;
	size_t glen = 0;
	char err[256];
	socklen_t sl = sizeof(struct ucred);
	struct ucred cred = { 0 };
	int s, rc, pidfd = -1;
	uint8_t eof;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)))
		die_perror("--restart-from %s", path);
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));

	/* The greeting: hello and tables, as pesto reads them */
	for (;;) {
		ssize_t n = recv(s, greet + glen, sizeof(greet) - glen, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("--restart-from %s: %s before the greeting (not "
			    "the user who started it?)", path,
			    n ? strerror(errno) : "closed");
		glen += (size_t)n;
		if (glen < WIRE_HELLO_LEN)
			continue;
		if (wire_hello_check(greet, err, sizeof(err)))
			die("--restart-from %s: %s", path, err);
		rc = (int)wire_frame_get(greet + WIRE_HELLO_LEN,
					 glen - WIRE_HELLO_LEN, true, pifs,
					 &npifs, err, sizeof(err));
		if (rc > 0 && (size_t)rc == glen - WIRE_HELLO_LEN)
			break;
		if (rc != 0 || glen == sizeof(greet))
			die("--restart-from %s: bad greeting", path);
	}

	if (restart_send_all(s, (const uint8_t *)RESTART_REQ,
			     strlen(RESTART_REQ)))
		die_perror("--restart-from %s: request", path);
	if (restart_recv_all(s, restart_stream, RESTART_HDR_LEN)) {
		if (!memcmp(restart_stream, "error\n", 6)) {
			ssize_t n = recv(s, restart_stream + RESTART_HDR_LEN,
					 200, 0);

			restart_stream[RESTART_HDR_LEN +
				       (n > 0 ? n : 0)] = '\0';
			die("--restart-from %s: %s", path,
			    (char *)restart_stream + 6);
		}
		die("--restart-from %s: no hand-over (%s)", path,
		    errno ? strerror(errno) : "closed");
	}
	if (!memcmp(restart_stream, "error\n", 6)) {
		ssize_t n = recv(s, restart_stream + RESTART_HDR_LEN, 200, 0);

		restart_stream[RESTART_HDR_LEN + (n > 0 ? n : 0)] = '\0';
		die("--restart-from %s: %s", path, (char *)restart_stream + 6);
	}
	body = (uint32_t)restart_stream[12] << 24 |
	       (uint32_t)restart_stream[13] << 16 |
	       (uint32_t)restart_stream[14] << 8 | restart_stream[15];
	nfds = (uint32_t)restart_stream[16] << 24 |
	       (uint32_t)restart_stream[17] << 16 |
	       (uint32_t)restart_stream[18] << 8 | restart_stream[19];
	if (memcmp(restart_stream, RESTART_MAGIC, 8) ||
	    body > RESTART_BUF_SIZE - RESTART_HDR_LEN || nfds > RESTART_FDS)
		goto refuse;
	if (restart_recv_all(s, restart_stream + RESTART_HDR_LEN, body) ||
	    restart_recv_fds(s, nfds))
		goto refuse;
	restart_len = RESTART_HDR_LEN + body;

	if (ctx->c.vhost_user)	/* what vu_snap_check() compares with */
		vu_offer_upstream_only(ctx->c.upstream_features);
	rc = restart_parse(restart_stream, restart_len, restart_nfds,
			   restart_check_cb, &cnt);
	if (rc < 0) {
		warn("--restart-from %s: stream refused: %s", path,
		     rc <= -RESTART_E_COUNT ? "?" : restart_err_str[-rc]);
		goto refuse;
	}
	if (cnt.tap != 1 || cnt.flows > flow_max()) {
		warn("--restart-from %s: %u flows for a table of %u", path,
		     cnt.flows, flow_max());
		goto refuse;
	}
	if ((cnt.kind == RESTART_TAP_VHOST) != !!cnt.vu ||
	    (cnt.kind == RESTART_TAP_VHOST && !ctx->c.vhost_user) ||
	    (cnt.kind == RESTART_TAP_STREAM && ctx->c.vhost_user)) {
		warn("--restart-from %s: the old process %s --vhost-user",
		     path, ctx->c.vhost_user ? "didn't run with" : "ran with");
		goto refuse;
	}

	/* The old process, by PID (pidfd_open(2), Linux 5.3): readable once
	 * it has exited, all its descriptors closed, its listening sockets
	 * too (passt's -s is bound again, by us, after this)
	 */
	if (!getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &sl))
		pidfd = (int)syscall(SYS_pidfd_open, cred.pid, 0);
	if (restart_send_all(s, (const uint8_t *)"K", 1))
		die_perror("--restart-from %s: confirming", path);
	/* Its exit closes the stream: from then on, the sockets are ours */
	while (recv(s, &eof, 1, 0) > 0 || errno == EINTR)
		;
	close(s);
	if (pidfd >= 0) {
		struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

		if (poll(&pfd, 1, RESTART_TIMEOUT_S * 1000) != 1)
			warn("--restart-from %s: the old process (PID %d) "
			     "still runs", path, (int)cred.pid);
		close(pidfd);
	}

	restart_parse(restart_stream, restart_len, restart_nfds,
		      restart_early_cb, ctx);
	if (ctx->c.mode == MODE_PASTA)
		pasta_restart_setup(ctx);
	info("restart: took over from %s: %u flows (%s %s)", path, cnt.flows,
	     ctx->c.argv0, conf_version());
	return;

refuse:
	(void)!send(s, "N", 1, MSG_NOSIGNAL);
	close(s);
	restart_fds_close();
	die("--restart-from %s: hand-over failed: %s went on", path,
	    "the old process");
}

static int restart_ctl_fd = -1;	/* for restart_adopt() to return */

/**
 * restart_adopt_cb() - New process: one listener or flow into our loop
 * @arg:	Context
 * @r:		Record
 *
 * Return: 0 (a flow that can't be registered is closed by its module)
 */
static int restart_adopt_cb(void *arg, const struct restart_rec *r)
{
	struct ctx *ctx = arg;
	int fds[6], i;

	switch (r->type) {
	case RESTART_REC_CTL:
		restart_ctl_fd = restart_fd_take(r->u.fd);
		break;
	case RESTART_REC_LISTEN:
		fwd_restart_adopt(ctx, &r->u.listen,
				  restart_fd_take(r->u.listen.fd));
		break;
	case RESTART_REC_TCP:
		tcp_restart_adopt(ctx, &r->u.tcp, restart_fd_take(r->u.tcp.fd));
		break;
	case RESTART_REC_SPLICE:
		for (i = 0; i < 6; i++)
			fds[i] = restart_fd_take(r->u.splice.fd[i]);
		if (!flow_restart_adopt(ctx, FLOW_TCP_SPLICE, r, fds)) {
			for (i = 0; i < 6; i++)
				if (fds[i] >= 0)
					close(fds[i]);
		}
		break;
	case RESTART_REC_UDP:
		fds[0] = restart_fd_take(r->u.udp.fd);
		if (!flow_restart_adopt(ctx, FLOW_UDP, r, fds) && fds[0] >= 0)
			close(fds[0]);
		break;
	default:
		break;
	}
	return 0;
}

/**
 * restart_adopt() - New process: listeners, flows and the -c socket
 * @ctx:	Context, TCP set up (tcp_init())
 *
 * Context: set-up, after restart_take(), in place of the listeners
 * Return: the listening -c socket, for ctl_adopt() (in place of
 *	   ctl_init()), -1 if the old process had none
 */
int restart_adopt(struct ctx *ctx)
{
	ctx->now = now_ms();	/* for the flows' timers, before the loop */
	restart_parse(restart_stream, restart_len, restart_nfds,
		      restart_adopt_cb, ctx);
	restart_fds_close();
	return restart_ctl_fd;
}
