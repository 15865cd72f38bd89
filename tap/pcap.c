// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/pcap.c - Write frames to a pcap file (--pcap)
 *
 * One file, opened at start.  Each frame is written as a record header and
 * the frame bytes straight from the caller's buffer: record headers and
 * iovec arrays are static, so nothing is allocated or copied per frame.  A
 * batch of up to PCAP_BATCH frames is one writev(), sharing one timestamp
 * (CLOCK_REALTIME, microseconds).  Write errors are reported once and
 * otherwise ignored: capture is a debugging aid and must never stop the
 * data path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/file.h"
#include "../lib/log.h"
#include "../lib/util.h"
#include "../lib/visible.h"
#include "pcap.h"

VISIBLE_IF_UNIT void pcap_close(void);
VISIBLE_IF_UNIT void pcap_frames(const struct iovec *iov, size_t n,
				 size_t skip);

/* Frames per writev(): two iovecs each, within IOV_MAX (1024 on Linux) */
#define PCAP_BATCH	512

/**
 * struct pcap_rec - Record header (pcap-savefile "Packet Record")
 * @ts_sec:	Seconds since the Epoch
 * @ts_usec:	Microseconds within the second
 * @caplen:	Bytes of the frame in the file
 * @len:	Length of the frame as seen
 */
struct pcap_rec {
	uint32_t ts_sec;
	uint32_t ts_usec;
	uint32_t caplen;
	uint32_t len;
};

static int pcap_fd = -1;
static bool pcap_err_logged;
static struct pcap_rec pcap_recs[PCAP_BATCH];
static struct iovec pcap_iov[PCAP_BATCH * 2];

/**
 * pcap_writev_all() - writev() until everything is written
 * @iov:	Vector, modified in place on short writes
 * @cnt:	Entries in @iov
 *
 * #syscalls writev
 * Return: 0, or -errno
 */
static int pcap_writev_all(struct iovec *iov, int cnt)
{
	while (cnt) {
		ssize_t n = writev(pcap_fd, iov, cnt);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (cnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (uint8_t *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/**
 * pcap_flush() - Write the prepared records, report the first failure
 * @cnt:	iovec entries used in pcap_iov
 */
static void pcap_flush(int cnt)
{
	int ret = pcap_writev_all(pcap_iov, cnt);

	if (ret && !pcap_err_logged) {
		pcap_err_logged = true;
		warn("pcap: writev(): %s, dropping captured frames",
		     strerror(-ret));
	}
}

/**
 * pcap_now() - Current time for record headers
 * @sec:	Seconds since the Epoch
 * @usec:	Microseconds
 *
 * #syscalls clock_gettime
 */
static void pcap_now(uint32_t *sec, uint32_t *usec)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	*sec = (uint32_t)ts.tv_sec;
	*usec = (uint32_t)(ts.tv_nsec / 1000);
}

/**
 * pcap_open() - Create (or truncate) a capture file and write its header
 * @path:	File name
 *
 * The file header says: magic PCAP_MAGIC_US, version 2.4, zone 0, sigfigs
 * 0, snaplen PCAP_SNAPLEN, link type PCAP_LINKTYPE_ETHERNET.  A capture
 * file already open is closed first.  The file is created with mode 0600:
 * it holds the guest's traffic.  Never through a symbolic link
 * (file_open_safe()).
 *
 * Context: set-up (before the seccomp filter: no #syscalls needed)
 * Return: 0, or -errno (nothing stays open then): -ELOOP if the last
 *	   component of @path is a symbolic link, -EFTYPE_ if it's not a
 *	   regular file
 */
int pcap_open(const char *path)
{
	struct {
		uint32_t magic;
		uint16_t major;
		uint16_t minor;
		int32_t thiszone;
		uint32_t sigfigs;
		uint32_t snaplen;
		uint32_t linktype;
	} hdr = {
		PCAP_MAGIC_US, PCAP_VERSION_MAJOR, PCAP_VERSION_MINOR,
		0, 0, PCAP_SNAPLEN, PCAP_LINKTYPE_ETHERNET
	};
	ssize_t n;
	int fd, ret;

	pcap_close();

	fd = file_open_safe(path, O_WRONLY | O_TRUNC, 0600);
	if (fd < 0)
		return fd;

	n = write(fd, &hdr, sizeof(hdr));
	if (n != (ssize_t)sizeof(hdr)) {
		ret = n < 0 ? -errno : -EIO;
		goto close_fd;
	}

	pcap_fd = fd;
	pcap_err_logged = false;
	return 0;

close_fd:
	close(fd);
	return ret;
}

/**
 * pcap_close() - Close the capture file, if open
 *
 * #syscalls close
 */
VISIBLE_IF_UNIT
void pcap_close(void)
{
	if (pcap_fd >= 0)
		close(pcap_fd);
	pcap_fd = -1;
}

/**
 * pcap_frame() - Write one frame, if a capture file is open
 * @frame:	Frame, from the Ethernet destination address
 * @len:	Frame length, bytes (frames above PCAP_SNAPLEN are cut)
 *
 * Context: main loop; no allocation
 */
void pcap_frame(const uint8_t *frame, size_t len)
{
	struct iovec iov = { .iov_base = UNCONST(void *, frame),
			     .iov_len = len };

	pcap_frames(&iov, 1, 0);
}

/**
 * pcap_frames() - Write a batch of frames, if a capture file is open
 * @iov:	One entry per frame; each starts with @skip bytes that are not
 *		part of the frame (e.g. a 4-byte length for the QEMU socket,
 *		or a virtio-net header), then the Ethernet header
 * @n:		Entries in @iov
 * @skip:	Bytes to leave out at the start of each entry; entries not
 *		longer than @skip are not written
 *
 * Context: main loop; no allocation (static record headers, one writev()
 * per PCAP_BATCH frames)
 */
VISIBLE_IF_UNIT
void pcap_frames(const struct iovec *iov, size_t n, size_t skip)
{
	uint32_t sec, usec;
	size_t i, k = 0;

	if (pcap_fd < 0 || !n)
		return;

	pcap_now(&sec, &usec);
	for (i = 0; i < n; i++) {
		struct pcap_rec *r = &pcap_recs[k];
		size_t len;

		if (iov[i].iov_len <= skip)
			continue;
		len = iov[i].iov_len - skip;

		r->ts_sec = sec;
		r->ts_usec = usec;
		r->caplen = (uint32_t)MIN(len, (size_t)PCAP_SNAPLEN);
		r->len = (uint32_t)MIN(len, (size_t)UINT32_MAX);
		pcap_iov[2 * k].iov_base = r;
		pcap_iov[2 * k].iov_len = sizeof(*r);
		pcap_iov[2 * k + 1].iov_base = (uint8_t *)iov[i].iov_base +
					       skip;
		pcap_iov[2 * k + 1].iov_len = r->caplen;

		if (++k == PCAP_BATCH) {
			pcap_flush((int)(2 * k));
			k = 0;
		}
	}
	if (k)
		pcap_flush((int)(2 * k));
}
