// SPDX-License-Identifier: GPL-2.0-or-later
/* test/integration/tcp_repair_move.c - Move a live TCP connection to a new
 *					 socket with passt's TCP_REPAIR code
 *
 * Usage: tcp_repair_move HELPER WORKDIR PEER_ADDR PORT UP DOWN
 *	  MOVE_N=N tcp_repair_move --scale HELPER WORKDIR
 *
 * The second form times the move of N idle loopback connections at once
 * (repair mode through passt-repair, 253 sockets per message), and checks
 * that each still carries a byte both ways after it.
 *
 * We are a client in the namespace tcp_repair_move.sh runs us in; the
 * peer, in another namespace, sends DOWN's bytes and takes ours (UP's
 * bytes), both at once.  Half-way, with both queues of our socket
 * non-empty (we stop reading for a while first, so that the receive queue
 * fills), the socket is switched to TCP_REPAIR by the real passt-repair
 * HELPER (we speak passt's side of its protocol on WORKDIR/r.sock), dumped
 * with tcp_repair_dump(), its extended record encoded and decoded again
 * (passt/tcp_migrate.c), then closed: nothing is sent.  A new socket is put
 * in repair mode, rebuilt with tcp_repair_restore(), taken out of repair
 * mode, finished with tcp_repair_restore_finish(), and the transfer goes
 * on over it to the end.  The script holds the connection's segments back
 * (nftables) from the dump to the restore, as a cluster's network does
 * while a VM moves, and checks WORKDIR/down.rx against DOWN (sha256).
 *
 * MOVE_FIN in the environment moves a connection in a closing state: with
 * "r" in it we read only half of DOWN before the move (a short DOWN, whose
 * peer has sent its FIN by then, leaves us in CLOSE-WAIT with the rest
 * unread); with "w", once the segments are held, we send the rest of UP (a
 * short one, that fits in the send buffer) and shut down: FIN-WAIT-1 (or
 * LAST-ACK after the peer's FIN) with data and our FIN unacknowledged at
 * the move; with "2", all of UP (a short one) and our FIN go before the
 * move, and are acknowledged: FIN-WAIT-2, the peer still sending.  Every byte must then
 * arrive once, and each side's FIN after its last byte.
 *
 * Output: "moved state S sndq N notsent N rcvq N" then "done".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../passt/tcp_migrate.h"
#include "../../passt/tcp_repair.h"

static int helper_fd = -1;
static size_t read_cap = (size_t)-1;	/* pump() reads no further */
static size_t send_cap = (size_t)-1;	/* pump() sends no further */

/**
 * die_() - Print a message with errno and exit 1
 * @what:	What failed
 */
static void die_(const char *what)
{
	fprintf(stderr, "tcp_repair_move: %s: %s\n", what, strerror(errno));
	exit(1);
}

/**
 * now_ms() - CLOCK_MONOTONIC in ms
 *
 * Return: time, ms
 */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/**
 * helper_start() - Start passt-repair and take its connection
 * @helper:	Path of the binary
 * @dir:	Work directory: the socket is @dir/r.sock
 */
static void helper_start(const char *helper, const char *dir)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int l;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/r.sock", dir);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1))
		die_("repair socket");
	if (!fork()) {
		execl(helper, helper, a.sun_path, (char *)NULL);
		_exit(127);
	}
	helper_fd = accept(l, NULL, NULL);
	if (helper_fd < 0)
		die_("accept helper");
	close(l);
}

/**
 * helper_set() - TCP_REPAIR on a socket, through passt-repair
 * @s:		Socket
 * @cmd:	1 on, 0 off (passt-repair(1))
 */
static void helper_set(int s, int8_t cmd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &cmd, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	int8_t echo;

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &s, sizeof(int));
	if (sendmsg(helper_fd, &m, 0) != 1)
		die_("send to helper");
	if (recv(helper_fd, &echo, 1, 0) != 1 || echo != cmd) {
		errno = EPROTO;
		die_("helper's echo");
	}
}

/**
 * helper_set_many() - TCP_REPAIR on many sockets, 253 per message (the
 *		       kernel's SCM_MAX_FD), as passt's repair_set() does
 * @fds:	Sockets
 * @n:		Their count
 * @cmd:	1 on, 0 off
 */
static void helper_set_many(const int *fds, unsigned n, int8_t cmd)
{
	static char cbuf[CMSG_SPACE(sizeof(int) * 253)];
	unsigned i;

	for (i = 0; i < n; i += 253) {
		unsigned k = n - i < 253 ? n - i : 253;
		struct iovec iov = { &cmd, 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cbuf,
				    .msg_controllen = CMSG_SPACE(sizeof(int) * k) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		int8_t echo;

		memset(cbuf, 0, sizeof(cbuf));
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * k);
		memcpy(CMSG_DATA(c), fds + i, sizeof(int) * k);
		if (sendmsg(helper_fd, &m, 0) != 1)
			die_("send to helper");
		if (recv(helper_fd, &echo, 1, 0) != 1 || echo != cmd) {
			errno = EPROTO;
			die_("helper's echo");
		}
	}
}

/**
 * now_us() - CLOCK_MONOTONIC in microseconds
 *
 * Return: time, us
 */
static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/**
 * scale() - Move @n idle loopback connections at once, timing each step
 * @n:		Connections
 *
 * Each end sends a byte before the move (so that the queues aren't all
 * empty) and one after it, which the other end must read: the moved
 * connections work.  Output: one "scale N step us" line per step.
 *
 * Return: 0, or 1 if a connection didn't survive
 */
static int scale(unsigned n)
{
	static uint8_t q[1 << 20];
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage *la = calloc(n, sizeof(*la));
	struct sockaddr_storage *pa = calloc(n, sizeof(*pa));
	struct tcp_mig_ext *e = calloc(n, sizeof(*e));
	int *c = calloc(n, sizeof(int)), *p = calloc(n, sizeof(int));
	uint8_t **qs = calloc(n, sizeof(*qs));
	socklen_t sl = sizeof(a);
	long long t0, t[8];
	int l, one = 1, rc;
	unsigned i, bad = 0;
	char x = 'x';

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, 4096) || getsockname(l, (struct sockaddr *)&a, &sl))
		die_("listener");
	for (i = 0; i < n; i++) {
		c[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (c[i] < 0 || connect(c[i], (struct sockaddr *)&a, sizeof(a)))
			die_("connect");
		p[i] = accept(l, NULL, NULL);
		if (p[i] < 0)
			die_("accept");
		if (send(c[i], &x, 1, 0) != 1 || send(p[i], &x, 1, 0) != 1)
			die_("send");
	}
	usleep(100000);

	t0 = now_us();
	helper_set_many(c, n, 1);
	t[0] = now_us();
	for (i = 0; i < n; i++) {
		socklen_t l2 = sizeof(la[i]);

		if ((rc = tcp_repair_dump(c[i], &e[i], q, sizeof(q)))) {
			errno = -rc;
			die_("tcp_repair_dump");
		}
		qs[i] = malloc(e[i].sndq + e[i].rcvq + 1);
		memcpy(qs[i], q, e[i].sndq + e[i].rcvq);
		getsockname(c[i], (struct sockaddr *)&la[i], &l2);
		l2 = sizeof(pa[i]);
		getpeername(c[i], (struct sockaddr *)&pa[i], &l2);
		close(c[i]);
	}
	t[1] = now_us();
	for (i = 0; i < n; i++) {
		c[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (c[i] < 0 || setsockopt(c[i], SOL_SOCKET, SO_REUSEADDR,
					   &one, sizeof(one)))
			die_("new socket");
	}
	helper_set_many(c, n, 1);
	t[2] = now_us();
	for (i = 0; i < n; i++) {
		rc = tcp_repair_restore(c[i], (struct sockaddr *)&la[i],
					(struct sockaddr *)&pa[i],
					sizeof(struct sockaddr_in), &e[i], qs[i],
					qs[i] + e[i].sndq);
		if (rc) {
			errno = -rc;
			die_("tcp_repair_restore");
		}
	}
	t[3] = now_us();
	helper_set_many(c, n, 0);
	for (i = 0; i < n; i++)
		if (tcp_repair_restore_finish(c[i], &e[i], qs[i]))
			die_("tcp_repair_restore_finish");
	t[4] = now_us();

	for (i = 0; i < n; i++) {
		char b[4] = { 0 };
		struct pollfd pf = { p[i], POLLIN, 0 };
		struct pollfd pc = { c[i], POLLIN, 0 };

		if (send(c[i], "y", 1, MSG_NOSIGNAL) != 1 ||
		    send(p[i], "y", 1, MSG_NOSIGNAL) != 1)
			bad++;
		else if (poll(&pf, 1, 5000) != 1 ||
			 recv(p[i], b, 2, MSG_WAITALL) != 2 ||
			 memcmp(b, "xy", 2) ||
			 poll(&pc, 1, 5000) != 1)
			bad++;
		else {
			usleep(0);
			if (recv(c[i], b, 2, MSG_WAITALL) != 2 ||
			    memcmp(b, "xy", 2))
				bad++;
		}
	}
	printf("scale %u repair_on_us %lld dump_close_us %lld "
	       "new_repair_on_us %lld restore_us %lld repair_off_finish_us "
	       "%lld total_us %lld per_conn_us %lld broken %u\n", n,
	       t[0] - t0, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3],
	       t[4] - t0, (t[4] - t0) / n, bad);
	return bad ? 1 : 0;
}

/**
 * go() - Wait for the script's "g" line on standard input
 */
static void go(void)
{
	int c;

	while ((c = getchar()) == '\n')
		;
	if (c != 'g') {
		errno = EPROTO;
		die_("script");
	}
}

/**
 * load() - Read a whole file
 * @path:	File
 * @len:	Set to its length
 *
 * Return: its bytes (malloc())
 */
static uint8_t *load(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die_(path);
	b = malloc(st.st_size + 1);
	*len = st.st_size;
	if (!b || read(fd, b, *len) != (ssize_t)*len)
		die_(path);
	close(fd);
	return b;
}

/**
 * pump() - Move bytes both ways on @s until a condition
 * @s:		Socket, non-blocking
 * @up:		Bytes to send; @up_off sent so far
 * @up_len:	Their count
 * @up_off:	Updated
 * @out:	Received bytes go there (fd)
 * @rx:		Bytes received so far, updated
 * @until_rx:	Stop once @rx reaches this, and @up_off reaches @until_up
 * @until_up:	See @until_rx
 * @read:	Read at all (false: only send, for @ms)
 * @ms:		Give up (or, !@read, stop) after this long
 *
 * Return: 1 at end of stream from the peer, else 0
 */
static int pump(int s, const uint8_t *up, size_t up_len, size_t *up_off,
		int out, size_t *rx, size_t until_rx, size_t until_up,
		int read_, int ms)
{
	long long end = now_ms() + ms;
	uint8_t buf[65536];

	while (now_ms() < end) {
		size_t up_end = up_len < send_cap ? up_len : send_cap;
		struct pollfd p = { s, (read_ && *rx < read_cap ? POLLIN : 0) |
				       (*up_off < up_end ? POLLOUT : 0), 0 };
		ssize_t n;

		if (read_ && *rx >= until_rx && *up_off >= until_up)
			return 0;
		if (!p.events) {
			if (!read_)
				return 0;
			break;
		}
		poll(&p, 1, 50);
		if (p.revents & POLLOUT) {
			n = send(s, up + *up_off, up_end - *up_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0 && errno != EAGAIN)
				die_("send");
			if (n > 0)
				*up_off += (size_t)n;
			if (*up_off == up_len)
				shutdown(s, SHUT_WR);
		}
		if (read_ && *rx < read_cap &&
		    (p.revents & (POLLIN | POLLHUP | POLLERR))) {
			n = recv(s, buf, read_cap - *rx < sizeof(buf) ?
					 read_cap - *rx : sizeof(buf),
				 MSG_DONTWAIT);
			if (n < 0 && errno != EAGAIN)
				die_("recv");
			if (n == 0)
				return 1;
			if (n > 0) {
				if (write(out, buf, n) != n)
					die_("write");
				*rx += (size_t)n;
			}
		}
	}
	if (read_) {
		errno = ETIMEDOUT;
		die_("transfer");
	}
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t q[2 * (size_t)TCP_MIG_QUEUE_MAX];
	struct sockaddr_storage local, peer;
	size_t up_len, down_len, up_off = 0, rx = 0;
	uint8_t rec[TCP_MIG_EXT_LEN];
	socklen_t sl = sizeof(local);
	struct tcp_mig_ext e, d;
	char path[4096];
	const char *fin = getenv("MOVE_FIN") ? getenv("MOVE_FIN") : "";
	int s, out, rc, one = 1, fin_r = !!strchr(fin, 'r');
	int fin_w = !!strchr(fin, 'w'), fin_2 = !!strchr(fin, '2');
	uint8_t *up;

	if (argc == 4 && !strcmp(argv[1], "--scale")) {
		helper_start(argv[2], argv[3]);
		return scale((unsigned)atoi(getenv("MOVE_N") ?
					    getenv("MOVE_N") : "100"));
	}
	if (argc != 7) {
		fprintf(stderr, "usage: %s HELPER WORKDIR PEER PORT UP DOWN\n",
			argv[0]);
		return 2;
	}
	up = load(argv[5], &up_len);
	free(load(argv[6], &down_len));
	snprintf(path, sizeof(path), "%s/down.rx", argv[2]);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		die_(path);
	helper_start(argv[1], argv[2]);

	memset(&peer, 0, sizeof(peer));
	if (strchr(argv[3], ':')) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&peer;

		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(atoi(argv[4]));
		inet_pton(AF_INET6, argv[3], &a6->sin6_addr);
		sl = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&peer;

		a4->sin_family = AF_INET;
		a4->sin_port = htons(atoi(argv[4]));
		inet_pton(AF_INET, argv[3], &a4->sin_addr);
		sl = sizeof(*a4);
	}
	s = socket(peer.ss_family, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&peer, sl))
		die_("connect");
	fcntl(s, F_SETFL, O_NONBLOCK);

	/* half of each way, then only send for a while: our receive queue
	 * fills, and so does our send queue once the peer's window closes
	 */
	if (fin_r)
		read_cap = down_len / 2;
	if (fin_w)
		send_cap = up_len / 2;
	pump(s, up, up_len, &up_off, out, &rx, down_len / 2,
	     fin_2 ? up_len : up_len / 2, 1, 60000);
	if (!*fin)
		pump(s, up, up_len, &up_off, out, &rx, 0, 0, 0, 300);
	else
		poll(NULL, 0, 300);	/* the peer's FIN, if it has sent all */

	printf("hold\n");
	fflush(stdout);
	go();				/* the script holds the segments */
	if (fin_w) {
		/* the rest of UP and our FIN go out, and are dropped */
		send_cap = (size_t)-1;
		pump(s, up, up_len, &up_off, out, &rx, 0, 0, 0, 1000);
		if (up_off != up_len) {
			errno = ENOBUFS;
			die_("UP doesn't fit in the send buffer");
		}
		poll(NULL, 0, 50);	/* sent, dropped, before the RTO */
	}
	read_cap = (size_t)-1;

	helper_set(s, 1);
	if ((rc = tcp_repair_dump(s, &e, q, sizeof(q)))) {
		errno = -rc;
		die_("tcp_repair_dump");
	}
	sl = sizeof(local);
	if (getsockname(s, (struct sockaddr *)&local, &sl))
		die_("getsockname");
	close(s);			/* in repair mode: sends nothing */

	tcp_mig_ext_encode(&e, rec);
	if ((rc = tcp_mig_ext_decode(rec, &d))) {
		fprintf(stderr, "decode: %s\n", tcp_mig_err_str[-rc]);
		return 1;
	}
	printf("moved state %u sndq %u notsent %u rcvq %u mss %u ws %u/%u "
	       "options %#x\n", d.tcpi_state, d.sndq, d.notsent, d.rcvq,
	       d.mss, d.snd_ws, d.rcv_ws, d.tcpi_options);
	fflush(stdout);

	s = socket(peer.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one,
				sizeof(one)))
		die_("new socket");
	helper_set(s, 1);
	if ((rc = tcp_repair_restore(s, (struct sockaddr *)&local,
				     (struct sockaddr *)&peer, sl, &d, q,
				     q + d.sndq))) {
		errno = -rc;
		die_("tcp_repair_restore");
	}
	helper_set(s, 0);
	if ((rc = tcp_repair_restore_finish(s, &d, q))) {
		errno = -rc;
		die_("tcp_repair_restore_finish");
	}
	printf("restored\n");
	fflush(stdout);
	go();				/* segments flow again */

	/* The peer's FIN, if it came before the move, isn't in the restored
	 * receive queue (upstream's convention, passt/tcp_repair.c): the
	 * kernel has counted it, and the peer won't send it again.  Whoever
	 * restores knows from the state that the stream ends after the queue
	 */
	if (d.tcpi_state == TCP_MIG_ST_CLOSE_WAIT ||
	    d.tcpi_state == TCP_MIG_ST_LAST_ACK) {
		pump(s, up, up_len, &up_off, out, &rx, rx + d.rcvq, up_len, 1,
		     120000);
		shutdown(s, SHUT_WR);
	} else if (!pump(s, up, up_len, &up_off, out, &rx, (size_t)-1, up_len, 1,
		  120000)) {
		errno = EPROTO;
		die_("no end of stream");
	}
	if (up_off != up_len || rx != down_len) {
		fprintf(stderr, "sent %zu of %zu, received %zu of %zu\n",
			up_off, up_len, rx, down_len);
		return 1;
	}
	close(s);
	close(helper_fd);
	printf("done\n");
	return 0;
}
