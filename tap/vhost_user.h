/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/vhost_user.h - vhost-user back-end for virtio-net (passt --vhost-user)
 *
 * QEMU (the front-end) connects to the --socket path and sends vhost-user
 * messages (QEMU docs/interop/vhost-user.rst): features, the guest memory
 * table as memfd regions, and for each of the two virtqueues its size,
 * addresses and eventfds.  Frames then move through the guest's rings:
 * tap/tap.c calls vu_frames_from_guest() for tap_rx() and
 * vu_frames_to_guest() for tap_flush(), so everything above tap/ sees the
 * same batches as with a tap device or a stream.
 */
#ifndef TAP_VHOST_USER_H
#define TAP_VHOST_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "../lib/util.h"
#include "devstate.h"
#include "virtio.h"

/* Requests (vhost-user.rst, "Front-end message types") */
enum vu_request {
	VU_GET_FEATURES = 1,
	VU_SET_FEATURES = 2,
	VU_SET_OWNER = 3,
	VU_RESET_OWNER = 4,
	VU_SET_MEM_TABLE = 5,
	VU_SET_LOG_BASE = 6,
	VU_SET_LOG_FD = 7,
	VU_SET_VRING_NUM = 8,
	VU_SET_VRING_ADDR = 9,
	VU_SET_VRING_BASE = 10,
	VU_GET_VRING_BASE = 11,
	VU_SET_VRING_KICK = 12,
	VU_SET_VRING_CALL = 13,
	VU_SET_VRING_ERR = 14,
	VU_GET_PROTOCOL_FEATURES = 15,
	VU_SET_PROTOCOL_FEATURES = 16,
	VU_GET_QUEUE_NUM = 17,
	VU_SET_VRING_ENABLE = 18,
	VU_SET_DEVICE_STATE_FD = 42,
	VU_CHECK_DEVICE_STATE = 43,
	VU_REQUEST_MAX = 64,
};

#define VU_HDR_SIZE		12	/* request, flags, size: u32 each */
#define VU_PAYLOAD_MAX		512	/* more than any message we take */
#define VU_FDS_MAX		VU_REGIONS_MAX
#define VU_QUEUES		2	/* 0: receiveq, 1: transmitq (5.1.2) */

#define VU_FLAG_VERSION		0x1	/* bits 0-1: protocol version 1 */
#define VU_FLAG_REPLY		BIT(2)
#define VU_FLAG_NEED_REPLY	BIT(3)

/**
 * struct vu_msg - One message, header fields in host order
 * @req:	enum vu_request
 * @flags:	VU_FLAG_*
 * @size:	Payload bytes, at most VU_PAYLOAD_MAX
 * @payload:	Payload, little-endian fields as on the wire
 * @fds:	File descriptors that came with it (SCM_RIGHTS)
 * @nfds:	Entries of @fds
 */
struct vu_msg {
	uint32_t req;
	uint32_t flags;
	uint32_t size;
	uint8_t payload[VU_PAYLOAD_MAX];
	int fds[VU_FDS_MAX];
	unsigned nfds;
};

/**
 * struct vu_stats - Counters of the vhost-user back-end
 * @msgs:		Messages handled
 * @refused:		Well-formed requests we don't support (answered
 *			with a failure if the front-end asked for one)
 * @frontends_dropped:	Front-ends dropped for a bad message or ring
 * @rx_full:		Flushes that found the receive queue out of buffers
 * @rx_bad_len:		Guest frames too short or too long, dropped
 * @rx_bad_gso:		Guest frames with a virtio-net header we refuse
 *			(tap/vnet.c: GSO type not negotiated or not
 *			matching the frame, no NEEDS_CSUM, gso_size 0,
 *			checksum field beyond the frame), dropped
 * @shrunk:		Front-ends dropped for shrinking a memory region's
 *			file under us (SIGBUS caught, of @frontends_dropped)
 * @kicks:		Kick eventfd wake-ups
 * @calls:		Interrupts we signalled
 * @log_missed:		Writes to guest memory we couldn't log (beyond the
 *			front-end's dirty-page log, or outside the memory
 *			table): a migration may carry stale pages
 * @state_saved:	Device states saved (migration source), completely
 * @state_loaded:	Device states loaded (destination), completely
 * @state_refused:	Device state transfers refused or failed
 */
struct vu_stats {
	uint64_t msgs, refused, frontends_dropped;
	uint64_t rx_full, rx_bad_len, rx_bad_gso, shrunk;
	uint64_t kicks, calls;
	uint64_t log_missed, state_saved, state_loaded, state_refused;
};

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
extern struct vu_stats vu_stats;
#endif

void vu_stats_print(void);

/* Called to start (@add) or stop watching a queue's kick eventfd */
typedef int (*vu_watch_fn)(int fd, unsigned queue, bool add);

/* Called to start (@add) or stop watching the device state fd, for
 * EPOLLOUT (@out, saving) or EPOLLIN (loading)
 */
typedef int (*vu_state_watch_fn)(int fd, bool out, bool add);

/**
 * struct vu_state_ops - What the daemon does with its device state
 * @save:	Fill the state to send (migration source), writing the flows'
 *		section, if any, at @flows (@room bytes there; @s->flows
 *		points to it then); 0, or -errno to refuse the migration
 *		(logged by the callee): the source keeps running as if
 *		nothing happened
 * @load:	Take a state received (destination); 0, or -errno
 * @done:	The front-end checked a transfer that succeeded
 *		(CHECK_DEVICE_STATE): @load false on the source (the guest
 *		runs on the destination now), true on the destination;
 *		may be NULL
 * @prepare:	A migration may be starting (SET_LOG_BASE: the front-end
 *		logs dirty pages, the guest still runs): read now what
 *		@save needs and won't change before it; may be NULL
 */
struct vu_state_ops {
	int (*save)(struct devstate *s, uint8_t *flows, size_t room);
	int (*load)(const struct devstate *s);
	void (*done)(bool load);
	void (*prepare)(void);
};

/**
 * struct vu_snap_region - One region of guest memory, for a restart
 * @gpa:	Guest physical address
 * @size:	Bytes
 * @uva:	Front-end's address
 * @off:	Offset in its file
 * @fd:		The file (a descriptor, or in a hand-over stream its index)
 */
struct vu_snap_region {
	uint64_t gpa, size, uva, off;
	int fd;
};

/**
 * struct vu_snap_queue - One virtqueue, for a restart
 * @num:	Size, 0 if not set
 * @desc:	Front-end address of the descriptor table
 * @avail:	Front-end address of the available ring
 * @used:	Front-end address of the used ring
 * @log_gpa:	Where the used ring is logged (VHOST_VRING_F_LOG)
 * @last_avail:	Next available index to take (free running)
 * @used_idx:	Used index published (free running)
 * @addr_set:	SET_VRING_ADDR received
 * @enabled:	Enabled
 * @started:	Started (kick eventfd, rings mapped)
 * @log_used:	VHOST_VRING_F_LOG set
 * @kick:	Kick eventfd, -1 if none (descriptor, or index)
 * @call:	Call eventfd, -1 if none
 * @err:	Error eventfd, -1 if none
 */
struct vu_snap_queue {
	uint32_t num;
	uint64_t desc, avail, used, log_gpa;
	uint16_t last_avail, used_idx;
	bool addr_set, enabled, started, log_used;
	int kick, call, err;
};

/**
 * struct vu_snap - The vhost-user device's state, for a hitless restart
 * @features:	Negotiated virtio features
 * @protocol:	Negotiated protocol features
 * @rx_full:	The receive queue had no buffer left
 * @tso_off:	TCP super-frames to the guest stopped (buffers too small)
 * @uso_off:	UDP super-frames to the guest stopped
 * @had_buffers: The rings showed buffers (the memory is shared)
 * @nregions:	Regions of the memory table
 * @r:		Regions
 * @q:		Queues 0 (receiveq) and 1 (transmitq)
 */
struct vu_snap {
	uint64_t features, protocol;
	bool rx_full, tso_off, uso_off, had_buffers;
	uint8_t nregions;
	struct vu_snap_region r[VU_REGIONS_MAX];
	struct vu_snap_queue q[VU_QUEUES];
};

const char *vu_snapshot(struct vu_snap *s);
int vu_snap_check(const struct vu_snap *s);
int vu_resume(int fd, struct vu_snap *s);

void vu_set_watch(vu_watch_fn fn);
void vu_offer_upstream_only(bool on);
void vu_set_state_ops(vu_state_watch_fn watch, const struct vu_state_ops *ops);
int vu_state_handler(void);
void vu_attach(int fd);
void vu_detach(void);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
bool vu_attached(void);
#endif
bool vu_ready(void);
bool vu_rx_full(void);
unsigned vu_rx_bufs(void);
bool vu_guest_csum(void);
bool vu_guest_tso(void);
bool vu_guest_uso(void);
bool vu_tx_more(void);
bool vu_broken(void);
int vu_cmd_handler(void);
int vu_kick_handler(unsigned queue);

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
int vu_msg_need(const uint8_t *buf, size_t len, size_t *need);
int vu_msg_check(const struct vu_msg *m);
#endif

int vu_frames_from_guest(const uint8_t **frame, size_t *len, uint16_t *gso,
			 unsigned max);
void vu_frames_to_guest(const struct iovec *iov, const uint16_t *first,
			const uint8_t *niov, const uint32_t *csum,
			const uint16_t *gso, unsigned n, bool *dropped);

#endif /* TAP_VHOST_USER_H */
