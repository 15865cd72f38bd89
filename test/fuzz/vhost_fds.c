// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/vhost_fds.c - Harness: vhost-user set-ups with descriptors
 *
 * The input is a sequence of operations a front-end performs, each an
 * operation byte and its arguments (missing bytes read as zero): messages
 * that carry descriptors of every kind (eventfd with and without
 * O_NONBLOCK, EFD_SEMAPHORE, a counter at 0xfffffffffffffffe, pipe ends,
 * a full pipe, memfd, timerfd, socket; memory tables on an unsealed,
 * sealed, too short or hugetlbfs memfd, a pipe or an eventfd), kicks,
 * writes into the shared guest memory (rings and buffers at fixed
 * offsets), frames to the guest, and the attacks of issue 26: O_NONBLOCK
 * cleared on every descriptor we share, the memory file truncated, raw
 * bytes on the socket.  After each, vu_cmd_handler(), the kick handler,
 * vu_frames_from_guest() or vu_frames_to_guest() run as the main loop
 * would; a dropped front-end (an error, vu_broken()) ends the input.  A
 * call that blocks shows up as a libFuzzer timeout; a fault that isn't
 * caught as a crash.
 *
 * vu_efd_write() takes over SIGALRM and ITIMER_REAL, which libFuzzer (and
 * Check, in the replay of make check, whose handler kills the test) use for
 * their timeouts: both are saved before each operation and put back after,
 * and during one, SIGALRM goes to vf_alarm(), which aborts (a finding) if
 * the operation has run for VF_HANG_S seconds.  An operation that hangs
 * after a write to an eventfd (which disarms the timer) isn't seen.
 */
#include <endian.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>

#include "fuzz.h"
#include "../../tap/vhost_user.h"
#include "../../tap/virtio.h"

#define VF_MEM		65536			/* guest memory, bytes */
#define VF_HUGE		(2 << 20)		/* one huge page */
#define VF_GPA		0x40000000ULL
#define VF_UVA		0x7f1200000000ULL
#define VF_FDS		64			/* descriptors we keep */
#define VF_HANG_S	5			/* an operation hangs */

/**
 * struct vf_state - One input's front-end
 * @sp:		Socket pair: [0] the back-end's end, [1] ours
 * @memfd:	Guest memory file, -1 if none
 * @mem:	Our mapping of it, NULL if none (hugetlbfs, truncated)
 * @kick:	Our copy of each queue's kick descriptor, -1 if none
 * @kick_efd:	It is an eventfd
 * @fds:	Descriptors to close at the end of the input
 * @nfds:	Entries of @fds
 */
struct vf_state {
	int sp[2];
	int memfd;
	uint8_t *mem;
	int kick[2];
	bool kick_efd[2];
	int fds[VF_FDS];
	unsigned nfds;
};

static struct vf_state vf = { .sp = { -1, -1 } };
static struct timespec vf_op_start;

/**
 * vf_alarm() - SIGALRM during an operation: abort if it hangs
 * @sig:	SIGALRM
 *
 * Context: signal handler (clock_gettime() and abort() are
 * async-signal-safe); without SA_RESTART, so that it also ends a blocked
 * write as vu_efd_write() expects
 */
static void vf_alarm(int sig)
{
	struct timespec now;

	(void)sig;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - vf_op_start.tv_sec > VF_HANG_S)
		abort();
}
static uint8_t vf_scratch[65536];

/**
 * vf_byte() - Next input byte, 0 past the end
 * @d:		Input
 * @n:		Its length
 * @o:		Offset, advanced
 *
 * Return: the byte
 */
static uint8_t vf_byte(const uint8_t *d, size_t n, size_t *o)
{
	return *o < n ? d[(*o)++] : 0;
}

/**
 * vf_keep() - Remember a descriptor to close at the end of the input
 * @fd:		Descriptor (closed at once if there's no room, or ignored if
 *		negative)
 *
 * Return: @fd
 */
static int vf_keep(int fd)
{
	if (fd < 0)
		return fd;
	if (vf.nfds == VF_FDS) {
		close(fd);
		return -1;
	}
	vf.fds[vf.nfds++] = fd;
	return fd;
}

/**
 * vf_send() - Send one message, with a descriptor or none
 * @req:	Request
 * @pl:		Payload
 * @size:	Its length (at most 64)
 * @fd:		Descriptor to pass, -1 for none
 */
static void vf_send(uint32_t req, const void *pl, uint32_t size, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	uint8_t b[12 + 64];
	uint32_t h[3] = { htole32(req), htole32(1), htole32(size) };
	struct iovec iov = { b, 12 + size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	memcpy(b, h, 12);
	memcpy(b + 12, pl, size);
	if (fd >= 0) {
		struct cmsghdr *cm;

		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	(void)sendmsg(vf.sp[1], &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/**
 * vf_u64() - Send a message with a u64 payload
 * @req:	Request
 * @v:		Value
 * @fd:		Descriptor, -1 for none
 */
static void vf_u64(uint32_t req, uint64_t v, int fd)
{
	v = htole64(v);
	vf_send(req, &v, 8, fd);
}

/**
 * vf_state_msg() - Send a vring state {index, num}
 * @req:	Request
 * @q:		Queue
 * @num:	Value
 */
static void vf_state_msg(uint32_t req, uint32_t q, uint32_t num)
{
	uint32_t s[2] = { htole32(q), htole32(num) };

	vf_send(req, s, 8, -1);
}

/**
 * vf_mem_table() - Create guest memory of some kind, send SET_MEM_TABLE
 * @kind:	0 memfd, 1 sealed memfd, 2 sealed hugetlbfs memfd (sealed
 *		memfd if there's no hugetlbfs), 3 pipe, 4 eventfd, 5 memfd
 *		shorter than its region
 */
static void vf_mem_table(unsigned kind)
{
	uint64_t p[5] = { htole64(1), htole64(VF_GPA), htole64(VF_MEM),
			  htole64(VF_UVA), 0 };
	int fd = -1, pp[2];
	size_t len = VF_MEM;

	if (vf.mem)
		munmap(vf.mem, VF_MEM);
	vf.mem = NULL;
	vf.memfd = -1;
	switch (kind % 6) {
	case 2:
		fd = memfd_create("g", MFD_CLOEXEC | MFD_HUGETLB |
				  MFD_ALLOW_SEALING);
		if (fd >= 0 && !ftruncate(fd, VF_HUGE)) {
			fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
			len = 0;	/* not mapped here: it would fault */
			break;
		}
		if (fd >= 0)
			close(fd);
		/* fall through */
	case 0:
	case 1:
	case 5:
		fd = memfd_create("g", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (fd < 0 || ftruncate(fd, kind % 6 == 5 ? 4096 : VF_MEM))
			break;
		if (kind % 6 == 5)
			len = 4096;
		if (kind % 6 == 1 || kind % 6 == 2)
			fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
		break;
	case 3:
		if (pipe2(pp, O_CLOEXEC) < 0)
			return;
		vf_keep(pp[1]);
		fd = pp[0];
		len = 0;
		break;
	default:
		fd = eventfd(0, EFD_CLOEXEC);
		len = 0;
		break;
	}
	if (vf_keep(fd) < 0)
		return;
	if (len) {
		vf.mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			      fd, 0);
		if (vf.mem == MAP_FAILED)
			vf.mem = NULL;
		if (len != VF_MEM && vf.mem) {
			munmap(vf.mem, len);
			vf.mem = NULL;
		}
	}
	vf.memfd = fd;
	vf_send(VU_SET_MEM_TABLE, p, sizeof(p), fd);
}

/**
 * vf_vring_fd() - Make a descriptor of some kind, send SET_VRING_KICK,
 *		   _CALL or _ERR with it
 * @req:	Request
 * @q:		Queue
 * @kind:	0 none (VU_VRING_NOFD bit), 1 eventfd, 2 eventfd without
 *		O_NONBLOCK, 3 EFD_SEMAPHORE, 4 eventfd at 0xfffffffffffffffe
 *		without O_NONBLOCK, 5 pipe read end, 6 full pipe write end,
 *		7 memfd, 8 timerfd, 9 socket, 10 a bad queue bit pattern
 */
static void vf_vring_fd(uint32_t req, unsigned q, unsigned kind)
{
	uint64_t full = 0xfffffffffffffffeULL;
	int fd = -1, pp[2];
	bool efd = false;

	switch (kind % 11) {
	case 0:
		vf_u64(req, q | (1ULL << 8), -1);
		return;
	case 1:
		fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		efd = true;
		break;
	case 2:
		fd = eventfd(0, EFD_CLOEXEC);
		efd = true;
		break;
	case 3:
		fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
		efd = true;
		break;
	case 4:
		fd = eventfd(0, EFD_CLOEXEC);
		if (fd >= 0 && write(fd, &full, 8) != 8)
			abort();
		efd = true;
		break;
	case 5:
	case 6:
		if (pipe2(pp, O_CLOEXEC | O_NONBLOCK) < 0)
			return;
		if (kind % 11 == 6) {
			static const uint8_t z[4096];

			while (write(pp[1], z, sizeof(z)) > 0)
				;
		}
		vf_keep(pp[kind % 11 == 5 ? 1 : 0]);
		fd = pp[kind % 11 == 5 ? 0 : 1];
		break;
	case 7:
		fd = memfd_create("k", MFD_CLOEXEC);
		break;
	case 8:
		fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		break;
	case 9:
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		break;
	default:
		fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (vf_keep(fd) >= 0)
			vf_u64(req, q | 0xf000, fd);	/* index bits beyond 8 */
		return;
	}
	if (vf_keep(fd) < 0)
		return;
	if (req == VU_SET_VRING_KICK) {
		vf.kick[q] = fd;
		vf.kick_efd[q] = efd;
	}
	vf_u64(req, q, fd);
}

/**
 * vf_efd_add() - Add to an eventfd we share with the back-end, never
 *		  blocking ourselves (we're alone: set O_NONBLOCK, put it back)
 * @fd:		Our copy
 * @v:		Value
 */
static void vf_efd_add(int fd, uint64_t v)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return;
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	(void)!write(fd, &v, 8);
	fcntl(fd, F_SETFL, fl);
}

/**
 * vf_kick() - Kick a queue as a driver would, and run what the loop runs
 * @q:		Queue
 * @big:	Add a large value (a semaphore then holds that many kicks)
 *
 * Return: true if the front-end is to be dropped
 */
static bool vf_kick(unsigned q, bool big)
{
	uint64_t v = big ? (1ULL << 62) : 1;
	const uint8_t *f[8];
	size_t l[8];
	uint16_t g[8];
	int rc;

	if (vf.kick[q] >= 0 && vf.kick_efd[q])
		vf_efd_add(vf.kick[q], v);
	rc = vu_kick_handler(q);
	if (rc == -EBADMSG)
		return true;
	if (rc == 0 && q == 1 && vu_frames_from_guest(f, l, g, 8) < 0)
		return true;
	return vu_broken();
}

/**
 * vf_to_guest() - One frame to the guest, as tap_flush() gives it
 * @len:	Frame length, bytes
 *
 * Return: true if the front-end is to be dropped
 */
static bool vf_to_guest(size_t len)
{
	static uint8_t frame[14 + 255 * 8];	/* the largest op 8 asks */
	struct iovec v = { frame, len };
	static const uint16_t gso;
	uint16_t first = 0;
	uint8_t niov = 1;
	uint32_t cs = 0;
	bool dropped;

	memset(frame, 0x5a, sizeof(frame));
	vu_frames_to_guest(&v, &first, &niov, &cs, &gso, 1, &dropped);
	return vu_broken();
}

/**
 * vf_attack() - O_NONBLOCK cleared on everything, or memory truncated
 * @how:	0 clear O_NONBLOCK on every descriptor we passed, 1 truncate
 *		the guest memory file, 2 fill every eventfd to its maximum
 */
static void vf_attack(unsigned how)
{
	unsigned i;

	switch (how % 3) {
	case 0:
		for (i = 0; i < vf.nfds; i++) {
			int fl = fcntl(vf.fds[i], F_GETFL);

			if (fl >= 0)
				fcntl(vf.fds[i], F_SETFL, fl & ~O_NONBLOCK);
		}
		break;
	case 1:
		if (vf.mem)
			munmap(vf.mem, VF_MEM);
		vf.mem = NULL;
		if (vf.memfd >= 0)
			(void)!ftruncate(vf.memfd, 0);
		break;
	default:
		for (i = 0; i < 2; i++)
			if (vf.kick[i] >= 0 && vf.kick_efd[i])
				vf_efd_add(vf.kick[i],
					   0xfffffffffffffffeULL);
		break;
	}
}

/**
 * vf_op() - Perform one operation
 * @d:		Input
 * @n:		Its length
 * @o:		Offset, advanced past the operation and its arguments
 *
 * Return: true if the front-end is dropped (the input ends)
 */
static bool vf_op(const uint8_t *d, size_t n, size_t *o)
{
	static const unsigned fbits[] = { 0, 1, 7, 8, 11, 12, 15, 28, 30, 32 };
	uint8_t op = vf_byte(d, n, o), a = vf_byte(d, n, o);
	unsigned q = a & 1, i;
	uint64_t f = 0;

	switch (op % 10) {
	case 0:
		for (i = 0; i < 8; i++)
			if (a & (1U << i))
				f |= 1ULL << fbits[i];
		if (vf_byte(d, n, o) & 1)
			f |= 1ULL << fbits[8];
		f |= 1ULL << fbits[9];
		vf_u64(VU_SET_FEATURES, f, -1);
		break;
	case 1:
		vf_mem_table(a);
		break;
	case 2:
		vf_state_msg(VU_SET_VRING_NUM, q, 1U << ((a >> 1) % 9));
		break;
	case 3: {
		uint64_t r = q * 0x4000ULL;
		uint64_t v[5] = { htole64(q), htole64(VF_UVA + r),
				  htole64(VF_UVA + r + 0x2000),
				  htole64(VF_UVA + r + 0x1000), 0 };

		vf_state_msg(VU_SET_VRING_BASE, q, 0);
		vf_send(VU_SET_VRING_ADDR, v, 40, -1);
		break;
	}
	case 4:
		vf_vring_fd(VU_SET_VRING_KICK + (a >> 1) % 3, q,
			    vf_byte(d, n, o));
		break;
	case 5:
		if (a & 2)
			vf_state_msg(VU_GET_VRING_BASE, q, 0);
		else
			vf_state_msg(VU_SET_VRING_ENABLE, q, (a >> 2) & 1);
		break;
	case 6:
		return vf_kick(q, a & 2);
	case 7: {
		size_t off = ((size_t)a << 8 | vf_byte(d, n, o)) % VF_MEM;
		size_t len = vf_byte(d, n, o);

		len = MIN(len, VF_MEM - off);
		len = MIN(len, n - MIN(n, *o));
		if (vf.mem)
			memcpy(vf.mem + off, d + *o, len);
		*o += len;
		return false;
	}
	case 8:
		return vf_to_guest(14 + (size_t)a * 8);
	default:
		if (a & 1) {
			size_t len = MIN((size_t)(a >> 1), n - MIN(n, *o));

			(void)send(vf.sp[1], d + *o, len,
				   MSG_DONTWAIT | MSG_NOSIGNAL);
			*o += len;
		} else {
			vf_attack(a >> 1);
			return vf_kick(q, false);
		}
		break;
	}
	if (vu_cmd_handler() < 0 || vu_broken())
		return true;
	while (recv(vf.sp[1], vf_scratch, sizeof(vf_scratch), MSG_DONTWAIT) > 0)
		;
	return false;
}

/**
 * LLVMFuzzerTestOneInput() - One input: a front-end's operations
 * @data:	Bytes
 * @size:	Length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sigaction alrm, mine = { .sa_handler = vf_alarm };
	struct itimerval it;
	size_t off = 0;
	unsigned i, ops;

	if (vf.sp[1] < 0 &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       vf.sp))
		abort();
	vf.memfd = -1;
	vf.mem = NULL;
	vf.kick[0] = vf.kick[1] = -1;
	vf.nfds = 0;
	vu_attach(vf.sp[0]);
	for (ops = 0; off < size && ops < 256; ops++) {
		bool gone;

		sigemptyset(&mine.sa_mask);
		sigaction(SIGALRM, &mine, &alrm);
		getitimer(ITIMER_REAL, &it);
		clock_gettime(CLOCK_MONOTONIC, &vf_op_start);
		gone = vf_op(data, size, &off);
		sigaction(SIGALRM, &alrm, NULL);
		if (it.it_value.tv_sec || it.it_value.tv_usec)
			setitimer(ITIMER_REAL, &it, NULL);
		if (gone)
			break;
	}
	vu_detach();
	while (recv(vf.sp[0], vf_scratch, sizeof(vf_scratch), MSG_DONTWAIT) > 0)
		;
	while (recv(vf.sp[1], vf_scratch, sizeof(vf_scratch), MSG_DONTWAIT) > 0)
		;
	if (vf.mem)
		munmap(vf.mem, VF_MEM);
	for (i = 0; i < vf.nfds; i++)
		close(vf.fds[i]);
	return 0;
}
