// SPDX-License-Identifier: GPL-2.0-or-later
/* test/bench/delayline.c - Userspace delay line with random loss, for the
 * long-RTT benchmark scenarios (this kernel has no netem)
 *
 * Runs in a "router" namespace holding two interfaces with no addresses and
 * joins them at layer 2, like a bridge: every frame read on one interface
 * (AF_PACKET, SOCK_RAW, ETH_P_ALL, our own transmissions ignored) is held
 * for DELAY_MS, then written to the other one, unless it is dropped: each
 * frame is lost with probability LOSS, independently (Bernoulli), in both
 * directions.  Frames wait in one byte ring per direction (-q bytes each);
 * a frame that doesn't fit is dropped and counted as an overflow, so the
 * ring must hold a bandwidth-delay product (the default, 64 MiB, holds
 * 40 ms at 12 Gbit/s).  Frames are expected to be at most one MTU: the
 * endpoints should set gso_max_segs 1 so that loss hits single segments,
 * as on a real path; a larger frame is still forwarded whole.
 *
 * Timing: CLOCK_MONOTONIC, ppoll() with a nanosecond timeout to the head of
 * the rings, so a frame leaves within scheduling latency of its due time.
 * One thread; reads and writes in batches (recvmmsg/sendmmsg).  Frames
 * are stored with the struct virtio_net_hdr the kernel puts in front of
 * them (PACKET_VNET_HDR) and written back with it: a frame from a local
 * TCP sender on a veth has only a partial checksum, completed by whoever
 * finally transmits it, and would be dropped as corrupt without it.
 *
 * With -r, each direction also has a bottleneck of RATE Mbit/s in front of
 * the delay, like the slowest link of a real path: a frame starts to leave
 * once the frames before it have (len * 8 / RATE), and is dropped at the
 * tail (counted as qdrop) if it would wait there longer than -Q QUEUE_MS
 * (the bottleneck's buffer; default one round trip, 2 * DELAY_MS, at
 * least 5 ms).  Random loss hits frames before they reach the bottleneck.
 *
 * On SIGTERM/SIGINT it prints its counters on stderr and exits 0; with
 * -t it exits by itself after LIFETIME_S, so it can't outlive a benchmark.
 *
 * Usage: delayline -a IF_A -b IF_B [-d DELAY_MS] [-l LOSS] [-q RING_BYTES]
 *                  [-r RATE_MBIT [-Q QUEUE_MS]] [-s SEED] [-t LIFETIME_S]
 *   LOSS is a fraction (0.01) or a percentage with a % sign (1%).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH		64		/* frames per recvmmsg()/sendmmsg() */
#define FRAME_MAX	65536		/* bytes, largest frame we read */
#define RING_DEFAULT	(64 << 20)	/* bytes per direction */
#define SOCK_BUF	(32 << 20)	/* bytes, SO_RCVBUFFORCE/SO_SNDBUFFORCE */

/**
 * struct slot_hdr - Header of one frame in a ring
 * @due_ns:	CLOCK_MONOTONIC time the frame leaves, nanoseconds
 * @len:	frame length, bytes (0: padding to the end of the ring)
 */
struct slot_hdr {
	uint64_t due_ns;
	uint32_t len;
	uint32_t pad;
};

/**
 * struct dir - One direction: frames read on @in_fd, written to @out_fd
 * @in_fd:	AF_PACKET socket of the interface frames come from
 * @out_fd:	AF_PACKET socket of the interface frames go to
 * @ring:	byte ring of struct slot_hdr + frame, 8-byte aligned
 * @size:	ring size, bytes
 * @head:	offset of the oldest frame (next to send)
 * @tail:	offset where the next frame is stored
 * @used:	bytes in use, padding included
 * @rx:		frames read
 * @tx:		frames written
 * @lost:	frames dropped on purpose (LOSS)
 * @overflow:	frames dropped because the ring was full
 * @tx_err:	frames the kernel refused to send
 * @qdrop:	frames dropped at the bottleneck's tail (-r, -Q)
 * @link_free_ns: when the bottleneck has sent every frame queued, ns
 * @name:	"a->b" or "b->a", for the counters
 */
struct dir {
	int in_fd;
	int out_fd;
	uint8_t *ring;
	size_t size;
	size_t head;
	size_t tail;
	size_t used;
	unsigned long long rx, tx, lost, overflow, tx_err, qdrop;
	uint64_t link_free_ns;
	const char *name;
};

static volatile sig_atomic_t stop;
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint8_t rxbuf[BATCH][FRAME_MAX];
static double rate_bps;		/* bits per second of the bottleneck, 0: none */
static uint64_t qlim_ns;	/* longest wait at the bottleneck, ns */

/**
 * on_signal() - SIGTERM, SIGINT, SIGALRM: leave the main loop
 * @sig:	signal number, unused
 */
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/**
 * now_ns() - CLOCK_MONOTONIC, nanoseconds
 *
 * Return: current time
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/**
 * rnd01() - Uniform pseudo-random number in [0, 1), xorshift64*
 *
 * Return: the number
 */
static double rnd01(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return ((x * 0x2545f4914f6cdd1dULL) >> 11) * 0x1.0p-53;
}

/**
 * sock_open() - AF_PACKET socket bound to an interface
 * @ifname:	interface name
 *
 * Return: socket, exits on failure
 */
static int sock_open(const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	int one = 1, buf = SOCK_BUF, s;

	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "delayline: no interface %s\n", ifname);
		exit(1);
	}
	s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (s < 0 || bind(s, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("delayline: AF_PACKET socket");
		exit(1);
	}
	/* our own writes on this interface must not come back to us */
	if (setsockopt(s, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one))) {
		perror("delayline: PACKET_IGNORE_OUTGOING");
		exit(1);
	}
	/* frames from local TCP on a veth carry a partial checksum (the
	 * sender's offload): a virtio_net_hdr in front of each frame, read
	 * and written back as it is, keeps the checksum (and GSO) metadata
	 */
	if (setsockopt(s, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one))) {
		perror("delayline: PACKET_VNET_HDR");
		exit(1);
	}
	setsockopt(s, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)))
		setsockopt(s, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	return s;
}

/**
 * slot_len() - Ring bytes taken by a frame of @len bytes, header included
 * @len:	frame length, bytes
 *
 * Return: the rounded-up size, 8-byte aligned
 */
static size_t slot_len(size_t len)
{
	return (sizeof(struct slot_hdr) + len + 7) & ~(size_t)7;
}

/**
 * ring_put() - Store a frame at the tail of a direction's ring
 * @d:		direction
 * @frame:	frame, Ethernet header first
 * @len:	frame length, bytes
 * @due_ns:	time it leaves, CLOCK_MONOTONIC nanoseconds
 *
 * Return: 0 on success, -1 if it doesn't fit (counted as overflow)
 */
static int ring_put(struct dir *d, const uint8_t *frame, size_t len,
		    uint64_t due_ns)
{
	size_t need = slot_len(len), pad = 0;
	struct slot_hdr *h;

	if (d->tail + need > d->size) {
		/* doesn't fit before the end: pad, wrap to 0 */
		pad = d->size - d->tail;
	}
	if (d->used + pad + need > d->size) {
		d->overflow++;
		return -1;
	}
	if (pad) {
		if (pad >= sizeof(struct slot_hdr)) {
			h = (struct slot_hdr *)(d->ring + d->tail);
			h->len = 0;
		}
		d->used += pad;
		d->tail = 0;
	}
	h = (struct slot_hdr *)(d->ring + d->tail);
	h->due_ns = due_ns;
	h->len = len;
	memcpy(h + 1, frame, len);
	d->tail += need;
	if (d->tail == d->size)
		d->tail = 0;
	d->used += need;
	return 0;
}

/**
 * ring_skip_pad() - Move the head past padding at the end of the ring
 * @d:		direction
 */
static void ring_skip_pad(struct dir *d)
{
	size_t left;

	if (!d->used)
		return;
	left = d->size - d->head;
	if (left < sizeof(struct slot_hdr) ||
	    !((struct slot_hdr *)(d->ring + d->head))->len) {
		d->used -= left;
		d->head = 0;
	}
}

/**
 * ring_due() - Due time of the oldest frame of a direction
 * @d:		direction
 *
 * Return: CLOCK_MONOTONIC nanoseconds, UINT64_MAX if the ring is empty
 */
static uint64_t ring_due(struct dir *d)
{
	ring_skip_pad(d);
	if (!d->used)
		return UINT64_MAX;
	return ((struct slot_hdr *)(d->ring + d->head))->due_ns;
}

/**
 * dir_flush() - Write every frame of a direction that is due by @now
 * @d:		direction
 * @now:	current time, CLOCK_MONOTONIC nanoseconds
 */
static void dir_flush(struct dir *d, uint64_t now)
{
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];
	size_t pos_after[BATCH], used_after[BATCH];

	for (;;) {
		size_t pos = d->head, used = d->used;
		int n = 0, sent;

		/* collect up to BATCH due frames without moving the head */
		while (n < BATCH && used) {
			struct slot_hdr *h;
			size_t left = d->size - pos;

			if (left < sizeof(*h) ||
			    !((struct slot_hdr *)(d->ring + pos))->len) {
				used -= left;		/* padding: wrap */
				pos = 0;
				continue;
			}
			h = (struct slot_hdr *)(d->ring + pos);
			if (h->due_ns > now)
				break;
			iov[n].iov_base = h + 1;
			iov[n].iov_len = h->len;
			memset(&mm[n], 0, sizeof(mm[n]));
			mm[n].msg_hdr.msg_iov = &iov[n];
			mm[n].msg_hdr.msg_iovlen = 1;
			pos += slot_len(h->len);
			used -= slot_len(h->len);
			if (pos == d->size)
				pos = 0;
			pos_after[n] = pos;
			used_after[n] = used;
			n++;
		}
		if (!n)
			return;

		sent = sendmmsg(d->out_fd, mm, n, 0);
		if (sent <= 0) {
			/* the kernel refuses the first frame (EMSGSIZE,
			 * ENOBUFS): drop it, so that the line never wedges
			 */
			sent = 1;
			d->tx_err++;
		} else {
			d->tx += sent;
		}
		d->head = pos_after[sent - 1];
		d->used = used_after[sent - 1];
		if (!d->used)
			d->head = d->tail = 0;
		if (sent < n)
			return;		/* the rest on the next round */
	}
}

/**
 * dir_read() - Read what is waiting on a direction's input, queue it
 * @d:		direction
 * @delay_ns:	holding time, nanoseconds
 * @loss:	probability to drop each frame, [0, 1]
 *
 * Return: frames read
 */
static int dir_read(struct dir *d, uint64_t delay_ns, double loss)
{
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];
	int n, i, total = 0;

	do {
		uint64_t due, now;

		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = rxbuf[i];
			iov[i].iov_len = FRAME_MAX;
			memset(&mm[i], 0, sizeof(mm[i]));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		n = recvmmsg(d->in_fd, mm, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		now = now_ns();
		due = now + delay_ns;
		for (i = 0; i < n; i++) {
			d->rx++;
			if (loss > 0 && rnd01() < loss) {
				d->lost++;
				continue;
			}
			if (rate_bps > 0) {
				uint64_t start = d->link_free_ns > now ?
						 d->link_free_ns : now;

				if (start - now > qlim_ns) {
					d->qdrop++;
					continue;
				}
				d->link_free_ns = start + (uint64_t)
					(mm[i].msg_len * 8 * 1e9 / rate_bps);
				due = d->link_free_ns + delay_ns;
			}
			ring_put(d, rxbuf[i], mm[i].msg_len, due);
		}
		total += n;
		if (!delay_ns && rate_bps <= 0)
			dir_flush(d, due);
	} while (n == BATCH && total < 16 * BATCH);
	return total;
}

/**
 * parse_loss() - Parse a loss argument: a fraction, or a percentage with %
 * @s:		argument
 *
 * Return: fraction in [0, 1], exits on a bad value
 */
static double parse_loss(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end != s && *end == '%') {
		v /= 100;
		end++;
	}
	if (end == s || *end || v < 0 || v > 1) {
		fprintf(stderr, "delayline: -l: a fraction in [0, 1] or a "
			"percentage like 1%%, not '%s'\n", s);
		exit(1);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr, "Usage: delayline -a IF_A -b IF_B [-d DELAY_MS] "
		"[-l LOSS] [-q RING_BYTES] [-r RATE_MBIT [-Q QUEUE_MS]] "
		"[-s SEED] [-t LIFETIME_S]\n");
	exit(1);
}

/**
 * main() - Parse options, forward between the two interfaces until stopped
 * @argc:	argument count
 * @argv:	options, see the file comment
 *
 * Return: 0 when stopped by a signal or the lifetime, 1 on bad options
 */
int main(int argc, char **argv)
{
	const char *ifa = NULL, *ifb = NULL;
	double delay_ms = 0, loss = 0, rate_mbit = 0, q_ms = -1;
	size_t ring = RING_DEFAULT;
	struct dir d[2];
	unsigned life = 0;
	struct sigaction sa;
	int opt, i;

	while ((opt = getopt(argc, argv, "a:b:d:l:q:r:Q:s:t:")) != -1) {
		char *end;

		switch (opt) {
		case 'a': ifa = optarg; break;
		case 'b': ifb = optarg; break;
		case 'd':
			delay_ms = strtod(optarg, &end);
			if (end == optarg || *end || delay_ms < 0 ||
			    delay_ms > 10000) {
				fprintf(stderr, "delayline: -d: milliseconds, "
					"0 to 10000, not '%s'\n", optarg);
				return 1;
			}
			break;
		case 'l': loss = parse_loss(optarg); break;
		case 'q':
			ring = strtoull(optarg, &end, 0);
			if (*end || ring < (1 << 20)) {
				fprintf(stderr, "delayline: -q: bytes, at least "
					"1048576, not '%s'\n", optarg);
				return 1;
			}
			ring &= ~(size_t)7;
			break;
		case 'r':
			rate_mbit = strtod(optarg, &end);
			if (end == optarg || *end || rate_mbit <= 0 ||
			    rate_mbit > 1000000) {
				fprintf(stderr, "delayline: -r: Mbit/s, more "
					"than 0, up to 1000000, not '%s'\n",
					optarg);
				return 1;
			}
			break;
		case 'Q':
			q_ms = strtod(optarg, &end);
			if (end == optarg || *end || q_ms < 0 || q_ms > 10000) {
				fprintf(stderr, "delayline: -Q: milliseconds, "
					"0 to 10000, not '%s'\n", optarg);
				return 1;
			}
			break;
		case 's': rng_state = strtoull(optarg, NULL, 0) | 1; break;
		case 't': life = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!ifa || !ifb || optind != argc)
		usage();
	rate_bps = rate_mbit * 1e6;
	if (q_ms < 0)
		q_ms = 2 * delay_ms < 5 ? 5 : 2 * delay_ms;
	qlim_ns = (uint64_t)(q_ms * 1e6);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	if (life)
		alarm(life);

	memset(d, 0, sizeof(d));
	d[0].in_fd = d[1].out_fd = sock_open(ifa);
	d[1].in_fd = d[0].out_fd = sock_open(ifb);
	d[0].name = "a->b";
	d[1].name = "b->a";
	for (i = 0; i < 2; i++) {
		d[i].size = ring;
		d[i].ring = mmap(NULL, ring, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (d[i].ring == MAP_FAILED) {
			perror("delayline: ring");
			return 1;
		}
	}

	while (!stop) {
		uint64_t delay_ns = (uint64_t)(delay_ms * 1e6), now, next;
		struct pollfd pfd[2] = { { .fd = d[0].in_fd, .events = POLLIN },
					 { .fd = d[1].in_fd, .events = POLLIN } };
		struct timespec ts, *tsp = NULL;

		now = now_ns();
		next = ring_due(&d[0]);
		if (ring_due(&d[1]) < next)
			next = ring_due(&d[1]);
		if (next != UINT64_MAX) {
			uint64_t wait = next > now ? next - now : 0;

			ts.tv_sec = wait / 1000000000ULL;
			ts.tv_nsec = wait % 1000000000ULL;
			tsp = &ts;
		}
		if (ppoll(pfd, 2, tsp, NULL) < 0 && errno != EINTR) {
			perror("delayline: ppoll");
			return 1;
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].revents & POLLIN)
				dir_read(&d[i], delay_ns, loss);
		}
		now = now_ns();
		dir_flush(&d[0], now);
		dir_flush(&d[1], now);
	}

	for (i = 0; i < 2; i++) {
		struct tpacket_stats st = { 0 };
		socklen_t sl = sizeof(st);

		/* frames the kernel dropped before we read them: rcvbuf full */
		getsockopt(d[i].in_fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl);
		fprintf(stderr, "delayline %s: rx %llu tx %llu lost %llu "
			"overflow %llu tx_err %llu qdrop %llu sock_drops %u\n",
			d[i].name, d[i].rx, d[i].tx, d[i].lost, d[i].overflow,
			d[i].tx_err, d[i].qdrop, st.tp_drops);
	}
	return 0;
}
