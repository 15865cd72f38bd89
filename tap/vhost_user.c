// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/vhost_user.c - vhost-user protocol and virtio-net device side
 *
 * DOC: Theory of Operation
 *
 * Connection.  passt --vhost-user listens on the --socket path as in
 * stream mode; one front-end at a time.  Its messages (12-byte header:
 * u32 request, u32 flags, u32 payload size, then the payload; file
 * descriptors as SCM_RIGHTS) are gathered in a buffer until complete, so
 * a message split across reads parses the same, then checked
 * (vu_msg_check(): payload size for the request, queue index, region
 * count) and handled (vu_msg_handle(): its payload is decoded into union
 * vu_payload and the handler vu_handlers[] names for its request runs,
 * which returns an enum vu_result).  A malformed message, a request
 * that breaks the protocol (features we never offered, a memory table we
 * can't map, a ring outside guest memory) or a broken ring drop the
 * front-end with a log line: tap_detach() and a new front-end may connect
 * (--one-off: the daemon exits).  A well-formed request we don't support
 * (polling mode, anything not listed here) is refused, with a failure reply if the
 * front-end asked for one (VHOST_USER_PROTOCOL_F_REPLY_ACK), and the
 * connection goes on.
 *
 * Features offered: VIRTIO_F_VERSION_1, VIRTIO_NET_F_MRG_RXBUF,
 * VIRTIO_RING_F_INDIRECT_DESC, VIRTIO_NET_F_CSUM (the guest may leave
 * L4 checksums partial: tap/frame.c never verifies them, and nothing
 * forwards guest frames as they are), VIRTIO_NET_F_GUEST_CSUM (our TCP
 * and UDP frames to the guest carry VIRTIO_NET_HDR_F_NEEDS_CSUM instead of
 * a computed checksum, as on a tap device, unless a pcap capture runs),
 * VIRTIO_NET_F_GUEST_TSO4 and _TSO6 (with both and GUEST_CSUM, TCP data
 * to the guest goes in super-frames of up to 64 KiB at any MTU, with
 * GSO_TCPV4/TCPV6 and gso_size in the header: tap_gso_offload(),
 * tap/vnet.c), VIRTIO_NET_F_HOST_TSO4 and _TSO6 (the guest may send TCP
 * segments of up to 64 KiB, IP total length up to 65535: frames of up to
 * FRAME_MAX are taken, TCP passes the whole payload to its socket, we
 * never segment; a header that asks for what wasn't negotiated, or whose
 * GSO or checksum fields don't fit the frame, drops the frame:
 * vu_stats.rx_bad_gso), VHOST_F_LOG_ALL and
 * VHOST_USER_F_PROTOCOL_FEATURES; protocol features: REPLY_ACK, LOG_SHMFD
 * and DEVICE_STATE (see Migration).  SET_FEATURES with a TSO feature but
 * not the checksum feature it depends on (5.1.3.1) drops the front-end.
 * VIRTIO_NET_F_GUEST_USO4 and _USO6 (virtio 1.2, Linux 6.2 guests: with
 * both and GUEST_CSUM, runs of UDP datagrams of one flow to the guest go
 * in one super-frame, VIRTIO_NET_HDR_GSO_UDP_L4 with the datagram size in
 * gso_size, as on a tap device: tap_uso_offload(), passt/udp.c), and
 * VIRTIO_NET_F_HOST_USO (the guest may send such super-frames; their
 * gso_size goes to passt/udp.c, which checks segment size and count
 * (udp_gso_in_check()) and sends them with UDP_SEGMENT in one sendmsg();
 * a header that doesn't fit a UDP frame is refused by vnet_hdr_in_check()),
 * each with the checksum feature it depends on, as for TSO.
 * No UFO, no ECN with TSO, no VIRTIO_F_EVENT_IDX, no
 * multiqueue, no IOMMU, no postcopy.
 *
 * Migration (vhost-user.rst, "Migration", "Migrating back-end state").
 * QEMU copies guest RAM while the guest runs; it gives us a bitmap
 * (SET_LOG_BASE, a memfd we map) and turns VHOST_F_LOG_ALL on: from then
 * on every byte we write into guest memory sets the bit of its 4 KiB
 * page (tap/vu_log.c): the receive buffers a frame is copied into, by
 * their guest physical address, and the used rings' entries and idx at
 * the ring's log address (VHOST_VRING_F_LOG in SET_VRING_ADDR).  Once the
 * guest is stopped, QEMU asks for our own state (SET_DEVICE_STATE_FD,
 * direction save) and we write it into the channel it gives us, in
 * upstream passt's stream layout (tap/devstate.h: the guest's addresses
 * and MAC, a TCP flow count), non-blocking from the main loop
 * (vu_state_io()); on the destination QEMU gives us that stream (load),
 * we read it to its end, check every field and take it.
 * CHECK_DEVICE_STATE reports the result; if it comes before a load's end
 * of file, its reply waits for it.  The daemon writes and takes the TCP
 * connections' section (struct vu_state_ops, passt/passt.c,
 * passt/tcp_mig_flows.c); a save it refuses (no passt-repair) fails at
 * SET_DEVICE_STATE_FD, before the guest leaves this host.  The stream is
 * kept whole in a buffer mapped for the transfer (VU_STATE_BUF).
 *
 * Queues.  Queue 0 is the guest's receiveq: tap_flush() copies each frame,
 * behind a 12-byte struct virtio_net_hdr_mrg_rxbuf, into as many
 * available buffers as it needs (num_buffers, VIRTIO_NET_F_MRG_RXBUF;
 * without it, one chain must hold it).  When the queue has no buffers
 * left the frame and those after it are not written: tap/tap.c reports
 * them to their senders (tap_tx_set_drop_cb()), vu_rx_full() makes
 * tap_tx_blocked() true, and the guest's next kick on queue 0 (it kicks
 * whenever it adds buffers: we never set VRING_USED_F_NO_NOTIFY) clears
 * it: like a stream with a pending tail.  Queue 1 is the transmitq: on its
 * kick, tap_rx() takes up to a batch of chains, copies each frame past its
 * header into a static buffer, and returns the chains at once.  A queue
 * runs once it has a size, addresses inside the memory table and a kick
 * eventfd, and is enabled (SET_VRING_ENABLE, or at once without
 * VHOST_USER_F_PROTOCOL_FEATURES); GET_VRING_BASE stops it.
 *
 * Memory: one 4 MiB receive buffer for guest frames (at least 64 frames
 * of FRAME_MAX bytes), 128 translated chains for one frame to the guest
 * (a 64 KiB super-frame needs 17 merged buffers of 4 KiB, 44 of 1518
 * bytes: a guest whose buffers are smaller has it dropped), the message
 * buffers; the guest's regions are mapped (mmap of the memfds) for as
 * long as the front-end stays, and their files kept open as long.
 * Nothing is allocated per frame.
 *
 * Hitless restart (passt/restart.c).  Between two batches nothing is in
 * flight on the rings: vu_snapshot() gives the old process's device (the
 * regions' files and where they are, each queue's addresses, indices and
 * eventfds, the features), the new process maps the same files and goes
 * on from the same indices (vu_resume()), without a message to or from
 * the front-end, and kicks its own queues once so that what waits in them
 * is seen.  Refused while a migration runs or a message is half read.
 *
 * Faulting memory.  A front-end that shrinks a region's file under us
 * makes our next access past its new end fault (SIGBUS, mmap(2)).  QEMU's
 * memory-backend-memfd seals it against that by default (seal=on,
 * F_SEAL_SHRINK), but a sealed file faults too when a page can't be had:
 * a hugetlbfs file mapped with MAP_NORESERVE (as we map every region, and
 * QEMU's reserve=off does) when no huge page is free.  So vu_sigbus()
 * guards every region: it maps zero pages over the faulting region and
 * flags it, and the main loop drops the front-end (vu_broken()).
 *
 * Descriptors.  SET_VRING_KICK, _CALL and _ERR must bring eventfds
 * (vu_fd_is_eventfd(), checked by what the file does: we are isolated by
 * then); anything else drops the front-end.  The front-end shares each
 * open file with us, and with it the O_NONBLOCK flag, which it may clear
 * at any time: no read or write of ours relies on it.  A kick eventfd is
 * watched edge-triggered and read once per wake-up with RWF_NOWAIT
 * (vu_kick_handler(): an EFD_SEMAPHORE one costs no more), a call eventfd
 * is written with a timer armed to interrupt a blocked write
 * (vu_efd_write()); a call counter that is full means an interrupt is
 * pending already, and the write is skipped (vu_signal()).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <linux/vhost_types.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../lib/eth.h"
#include "../lib/iov.h"
#include "../lib/log.h"
#include "../lib/util.h"
#include "../lib/visible.h"
#include "hdr.h"
#include "tap.h"
#include "vhost_user.h"
#include "virtio.h"
#include "vnet.h"
#include "vu_log.h"

/* Feature bits: virtio 1.x 5.1.3 and 6, from the uapi headers
 * (linux/virtio_net.h, virtio_ring.h, virtio_config.h, vhost_types.h for
 * VHOST_F_LOG_ALL: dirty-page logging on).  Only the vhost-user one is in
 * no uapi header: docs/interop/vhost-user.rst of QEMU
 */
#define VHOST_USER_F_PROTOCOL_FEATURES	30

/* UDP segmentation offload: virtio 1.2 5.1.3, Linux 6.2 uapi, missing from
 * older headers
 */
#ifndef VIRTIO_NET_F_GUEST_USO4
#define VIRTIO_NET_F_GUEST_USO4		54
#endif
#ifndef VIRTIO_NET_F_GUEST_USO6
#define VIRTIO_NET_F_GUEST_USO6		55
#endif
#ifndef VIRTIO_NET_F_HOST_USO
#define VIRTIO_NET_F_HOST_USO		56
#endif

#define VU_FEATURES	(BIT(VIRTIO_NET_F_CSUM) |			\
			 BIT(VIRTIO_NET_F_GUEST_CSUM) |		\
			 BIT(VIRTIO_NET_F_GUEST_TSO4) |		\
			 BIT(VIRTIO_NET_F_GUEST_TSO6) |		\
			 BIT(VIRTIO_NET_F_HOST_TSO4) |			\
			 BIT(VIRTIO_NET_F_HOST_TSO6) |			\
			 BIT(VIRTIO_NET_F_GUEST_USO4) |		\
			 BIT(VIRTIO_NET_F_GUEST_USO6) |		\
			 BIT(VIRTIO_NET_F_HOST_USO) |			\
			 BIT(VIRTIO_NET_F_MRG_RXBUF) |			\
			 BIT(VIRTIO_RING_F_INDIRECT_DESC) |		\
			 BIT(VHOST_F_LOG_ALL) |				\
			 BIT(VHOST_USER_F_PROTOCOL_FEATURES) |		\
			 BIT(VIRTIO_F_VERSION_1))

/* What upstream passt offers: a guest that negotiated more can't move to
 * an upstream back-end (QEMU, loading virtio-net: "Features ...
 * unsupported")
 */
#define VU_FEATURES_UPSTREAM	(BIT(VIRTIO_NET_F_GUEST_CSUM) |		\
				 BIT(VIRTIO_NET_F_MRG_RXBUF) |		\
				 BIT(VHOST_F_LOG_ALL) |			\
				 BIT(VHOST_USER_F_PROTOCOL_FEATURES) |	\
				 BIT(VIRTIO_F_VERSION_1))

#define VU_PROTOCOL_F_LOG_SHMFD		1
#define VU_PROTOCOL_F_REPLY_ACK		3
#define VU_PROTOCOL_F_DEVICE_STATE	19
#define VU_PROTOCOL_FEATURES		(BIT(VU_PROTOCOL_F_LOG_SHMFD) |	\
					 BIT(VU_PROTOCOL_F_REPLY_ACK) |	\
					 BIT(VU_PROTOCOL_F_DEVICE_STATE))

#define VU_LOG_DESC_SIZE		16	/* log size, log offset: u64 */
#define VU_LOG_SIZE_MAX			(1ULL << 30)	/* 32 TiB of guest */

#define VU_STATE_SAVE			0	/* transfer direction */
#define VU_STATE_LOAD			1
#define VU_STATE_PHASE_STOPPED		0	/* migration phase */
#define VU_STATE_E_FAIL			1	/* bits 0-7 of the reply */
#define VU_STATE_NOFD			BIT(8)	/* no back-end fd in reply */
#define VU_STATE_BUF			(1ULL << 30)	/* longest stream we
							 * take (mapped
							 * when needed)
							 */
#define VU_EMPTY_KICKS_WARN	8	/* empty kicks before the RAM warning */

#define VU_VRING_IDX_MASK		0xff	/* SET_VRING_KICK/CALL/ERR u64 */
#define VU_VRING_NOFD			BIT(8)

/* Payloads (vhost-user.rst, "Message specification"), little-endian on
 * the wire.  A vring state (SET_VRING_NUM, SET/GET_VRING_BASE,
 * SET_VRING_ENABLE) and a vring address (SET_VRING_ADDR) have the layout
 * of the kernel's struct vhost_vring_state and struct vhost_vring_addr
 * (linux/vhost_types.h); features, protocol features, the queue count and
 * the KICK/CALL/ERR index are one u64.  The memory table is ours: the
 * kernel's struct vhost_memory_region has no mmap offset.
 */
#define VU_U64_SIZE			sizeof(uint64_t)

/**
 * struct vu_mem_table - SET_MEM_TABLE payload header
 * @nregions:	Regions that follow, one fd each
 * @padding:	Zero
 */
struct vu_mem_table {
	uint32_t nregions;
	uint32_t padding;
};

/**
 * struct vu_mem_region - SET_MEM_TABLE memory region description
 * @gpa:	Guest physical address
 * @size:	Bytes
 * @uva:	Front-end's userspace address of the region
 * @mmap_offset: Offset of the region in its file descriptor
 */
struct vu_mem_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint64_t mmap_offset;
};

#define VU_REGION_DESC_SIZE		sizeof(struct vu_mem_region)	/* 32 */

/**
 * struct vu_mem_desc - SET_MEM_TABLE payload, decoded
 * @hdr:	Region count
 * @r:		Regions, @hdr.nregions of them
 */
struct vu_mem_desc {
	struct vu_mem_table hdr;
	struct vu_mem_region r[VU_REGIONS_MAX];
};

/**
 * struct vu_log_desc - SET_LOG_BASE payload ("Log description")
 * @size:	Bytes of the dirty-page bitmap
 * @offset:	Where it starts in the fd that comes with it, bytes
 */
struct vu_log_desc {
	uint64_t size;
	uint64_t offset;
};

/**
 * struct vu_xfer_params - SET_DEVICE_STATE_FD payload ("Device state
 *			   transfer parameters")
 * @direction:	VU_STATE_SAVE or VU_STATE_LOAD
 * @phase:	Migration phase: VU_STATE_PHASE_STOPPED is the only one
 */
struct vu_xfer_params {
	uint32_t direction;
	uint32_t phase;
};

/**
 * union vu_payload - A request's payload, decoded to host order
 * @u64:	GET/SET_FEATURES, SET_PROTOCOL_FEATURES, SET_VRING_KICK,
 *		_CALL and _ERR (queue index and VU_VRING_NOFD)
 * @state:	SET_VRING_NUM, SET/GET_VRING_BASE, SET_VRING_ENABLE
 * @addr:	SET_VRING_ADDR
 * @mem:	SET_MEM_TABLE
 * @log:	SET_LOG_BASE
 * @xfer:	SET_DEVICE_STATE_FD
 */
union vu_payload {
	uint64_t u64;
	struct vhost_vring_state state;
	struct vhost_vring_addr addr;
	struct vu_mem_desc mem;
	struct vu_log_desc log;
	struct vu_xfer_params xfer;
};

/* Which member of union vu_payload a request carries */
enum vu_payload_type {
	VU_PAYLOAD_NONE = 0,
	VU_PAYLOAD_U64,
	VU_PAYLOAD_STATE,
	VU_PAYLOAD_ADDR,
	VU_PAYLOAD_MEM,
	VU_PAYLOAD_LOG,
	VU_PAYLOAD_XFER,
};

/**
 * enum vu_result - What a request handler leaves to vu_dispatch()
 * @VU_NO_REPLY:	Done, nothing to send (a success acknowledgement if
 *			the front-end asked for one: REPLY_ACK)
 * @VU_REPLY:		Send the reply the handler wrote
 * @VU_REFUSED:		Well-formed, not supported: refused (a failure
 *			acknowledgement if the front-end asked for one)
 * @VU_REPLY_LATER:	The reply goes out later (CHECK_DEVICE_STATE
 *			during a transfer: vu_state_finish())
 *
 * Handlers return one of these, or -errno to drop the front-end.
 */
enum vu_result {
	VU_NO_REPLY = 0,
	VU_REPLY = 1,
	VU_REFUSED = 2,
	VU_REPLY_LATER = 3,
};

#define VU_RXBUF			(4 << 20)	/* guest frames, bytes */
#define VU_RX_CHAINS			128	/* buffers for one frame */

#define VU_WRITE_GUARD_US		10000	/* SIGALRM period, vu_io_guarded() */

/**
 * struct vu_queue - A virtqueue and its eventfds
 * @vq:		Ring state (tap/virtio.c)
 * @kick_fd:	Guest -> us notifications, -1 if none
 * @call_fd:	Us -> guest interrupts, -1 if none
 * @err_fd:	Error notifications (kept, never written), -1 if none
 * @addr_set:	SET_VRING_ADDR received
 * @enabled:	SET_VRING_ENABLE 1 (or no protocol features)
 * @started:	Kick fd received and rings mapped, until GET_VRING_BASE
 * @call_full:	A write to @call_fd found its counter full: check that it
 *		has room (poll()) before the next one
 * @log_used:	VHOST_VRING_F_LOG: log our used ring writes
 * @log_gpa:	Where the used ring is logged (SET_VRING_ADDR "log": the
 *		used ring's first byte is logged at this guest address)
 */
struct vu_queue {
	struct vq vq;
	int kick_fd, call_fd, err_fd;
	bool addr_set, enabled, started;
	bool call_full;
	bool log_used;
	uint64_t log_gpa;
};

/* Device state transfer (SET_DEVICE_STATE_FD), see vu_set_device_state_fd() */
enum vu_xfer_state {
	VU_XFER_NONE = 0,	/* none since the front-end connected */
	VU_XFER_RUNNING,	/* fd open, bytes moving */
	VU_XFER_DONE,		/* fd closed, @result final */
};

/**
 * struct vu_xfer - A device state transfer
 * @state:	enum vu_xfer_state
 * @fd:		Our end of the channel (non-blocking), -1 if none
 * @load:	Direction: true if we read (destination)
 * @result:	0 if the transfer completed and its state was taken, else
 *		a positive errno (what CHECK_DEVICE_STATE reports)
 * @check_pending: CHECK_DEVICE_STATE arrived before the end of the
 *		transfer: answer it when that comes (vu_state_finish())
 * @checked:	CHECK_DEVICE_STATE is being answered with a success:
 *		vu_state_checked() once the reply is sent
 * @len:	Bytes in @buf (saving: the stream; loading: received)
 * @off:	Saving: bytes of @buf written so far
 * @buf:	The stream: VU_STATE_BUF bytes of anonymous memory, reserved
 *		(MAP_NORESERVE) for a transfer and unmapped after it, so
 *		that the TCP queues it carries cost memory only meanwhile
 */
struct vu_xfer {
	enum vu_xfer_state state;
	int fd;
	bool load;
	int result;
	bool check_pending;
	bool checked;
	size_t len, off;
	uint8_t *buf;
};

/**
 * struct vu_map - Our mapping of one region's file
 * @base:	mmap() result, NULL if none
 * @len:	Mapped bytes
 * @off:	Offset of the region in the file (SET_MEM_TABLE mmap_offset)
 * @fd:		The file, kept while @base is set: a hitless restart hands
 *		it to the new process (vu_snapshot())
 */
struct vu_map {
	void *base;
	size_t len;
	uint64_t off;
	int fd;
};

/**
 * struct vu_dev - State of the vhost-user device for one front-end
 * @fd:		Connected UNIX socket, -1 if none
 * @features:	Negotiated virtio features (SET_FEATURES)
 * @protocol:	Negotiated protocol features
 * @hdr_len:	virtio-net header size: 12 (VERSION_1 or MRG_RXBUF) or 10
 * @mem:	Memory table, translated
 * @map:	Mappings behind @mem
 * @q:		The two queues
 * @rx_full:	Queue 0 had no buffer for a frame; cleared by its kick
 * @tso_off:	The guest's receive queue can't hold a super-frame: no
 *		more of them, though it negotiated GUEST_TSO4/6
 * @uso_off:	The same for UDP super-frames (GUEST_USO4/6)
 * @tx_more:	Queue 1 still had chains when a batch was full
 * @broken:	A ring broke: the caller drops the front-end
 * @empty_kicks: Kicks that showed no buffer, before any buffer was seen
 * @had_buffers: A kick showed buffers: the rings are shared
 * @in:		Message being received
 * @in_hdr:	Its header as received (little-endian)
 * @in_len:	Bytes of it received so far (header, then payload)
 * @log:	Dirty-page log (SET_LOG_BASE), used while VHOST_F_LOG_ALL
 *		is negotiated
 * @log_map:	Our mapping of the log's file (@log.bitmap is inside)
 * @log_map_len: Its length, bytes
 * @xfer:	Device state transfer
 */
struct vu_dev {
	int fd;
	uint64_t features;
	uint64_t protocol;
	size_t hdr_len;
	struct vu_mem mem;
	struct vu_map map[VU_REGIONS_MAX];
	struct vu_queue q[VU_QUEUES];
	bool rx_full;
	bool tso_off;
	bool uso_off;
	bool tx_more;
	bool broken;
	unsigned empty_kicks;
	bool had_buffers;
	struct vu_msg in;
	uint8_t in_hdr[VU_HDR_SIZE];
	size_t in_len;
	struct vu_log log;
	void *log_map;
	size_t log_map_len;
	struct vu_xfer xfer;
};

VISIBLE_IF_UNIT
struct vu_stats vu_stats;

static struct vu_dev vu = { .fd = -1, .xfer.fd = -1 };
static vu_watch_fn vu_watch;
static vu_state_watch_fn vu_state_watch;
static const struct vu_state_ops *vu_state_ops;
static uint64_t vu_offered = VU_FEATURES;	/* GET_FEATURES */
static uint8_t vu_rxbuf[VU_RXBUF] __attribute__((aligned(64)));
static struct vq_chain vu_chains[VU_RX_CHAINS];
static int vu_ring_broken(unsigned i, int err);
static int vu_send(const struct vu_msg *m);
static volatile sig_atomic_t vu_sigbus_hit;	/* vu_sigbus() caught one */
static bool vu_sigbus_on;			/* vu_sigbus() installed */
static bool vu_sigalrm_on;			/* vu_sigalrm() installed */

/**
 * vu_has() - Was a virtio feature negotiated?
 * @bit:	Feature bit
 *
 * Return: true if set in SET_FEATURES
 */
static bool vu_has(unsigned bit)
{
	return vu.features & BIT(bit);
}

/**
 * vu_features_consistent() - Does a feature set keep the dependencies?
 * @f:		Features the front-end accepted
 *
 * virtio 1.x 5.1.3.1: VIRTIO_NET_F_GUEST_TSO4/6 and (1.2)
 * VIRTIO_NET_F_GUEST_USO4/6 require VIRTIO_NET_F_GUEST_CSUM,
 * VIRTIO_NET_F_HOST_TSO4/6 and VIRTIO_NET_F_HOST_USO require
 * VIRTIO_NET_F_CSUM ("the driver MUST NOT accept a feature which the
 * device did not offer, and ... which requires another feature which was
 * not accepted").
 *
 * Return: true if they do
 */
static bool vu_features_consistent(uint64_t f)
{
	if ((f & (BIT(VIRTIO_NET_F_GUEST_TSO4) | BIT(VIRTIO_NET_F_GUEST_TSO6) |
		  BIT(VIRTIO_NET_F_GUEST_USO4) | BIT(VIRTIO_NET_F_GUEST_USO6))) &&
	    !(f & BIT(VIRTIO_NET_F_GUEST_CSUM)))
		return false;
	if ((f & (BIT(VIRTIO_NET_F_HOST_TSO4) | BIT(VIRTIO_NET_F_HOST_TSO6) |
		  BIT(VIRTIO_NET_F_HOST_USO))) &&
	    !(f & BIT(VIRTIO_NET_F_CSUM)))
		return false;
	return true;
}

/**
 * vu_set_watch() - Who registers kick eventfds with the main loop
 * @fn:		Callback (passt/passt.c)
 */
void vu_set_watch(vu_watch_fn fn)
{
	vu_watch = fn;
}

/**
 * vu_offer_upstream_only() - Offer only what upstream passt offers
 * @on:		true: VERSION_1, GUEST_CSUM, MRG_RXBUF, LOG_ALL and
 *		PROTOCOL_FEATURES (no TSO, no checksum offload from the
 *		guest, no indirect descriptors); false: all of ours
 *
 * A guest keeps the features it negotiated across a migration: to move
 * to a host whose back-end is upstream's, it must not have more than
 * upstream offers (--upstream-features).  Takes effect at the next
 * GET_FEATURES (a new front-end).
 */
void vu_offer_upstream_only(bool on)
{
	vu_offered = on ? VU_FEATURES_UPSTREAM : VU_FEATURES;
}

/**
 * vu_set_state_ops() - Who watches the device state channel, and what
 *			the daemon saves and loads
 * @watch:	Callback (passt/passt.c): epoll for the channel
 * @ops:	Save and load callbacks
 */
void vu_set_state_ops(vu_state_watch_fn watch, const struct vu_state_ops *ops)
{
	vu_state_watch = watch;
	vu_state_ops = ops;
}

/**
 * vu_close_fd() - Close an fd we hold, if any, and forget it
 * @fd:		Pointer to it
 *
 * #syscalls:passt close
 */
static void vu_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/**
 * vu_sigalrm() - SIGALRM handler: there only to interrupt a blocked call
 * @sig:	SIGALRM
 *
 * Installed without SA_RESTART, so that a write() blocked on an eventfd,
 * or a read() or write() blocked on the device state channel, returns EINTR (signal(7), "Interruption of system calls and library
 * functions by signal handlers").
 *
 * Context: signal handler; does nothing
 * #syscalls:passt rt_sigreturn
 */
static void vu_sigalrm(int sig)
{
	(void)sig;
}

/**
 * vu_io_guarded() - read() or write() on a descriptor the front-end gave
 *		     us, never blocking whatever its O_NONBLOCK says
 * @fd:		Its descriptor (an eventfd, the device state channel)
 * @buf:	Bytes to write, or room for those read
 * @len:	Their length, bytes
 * @out:	true to write, false to read
 *
 * The front-end shares the open file with us and may clear O_NONBLOCK on
 * it whenever it likes (fcntl(2): file status flags belong to the open
 * file description, not to a descriptor), so that flag can't be relied
 * on.  pwritev2() and preadv2() with RWF_NOWAIT don't cover every kind of
 * file it may pass (an eventfd has no write_iter: EOPNOTSUPP, Linux 6.18).
 * So an interval timer (setitimer(2), ITIMER_REAL, every
 * VU_WRITE_GUARD_US) runs during the call: its SIGALRM, caught by
 * vu_sigalrm() without SA_RESTART, ends a blocked read() or write() with
 * EINTR (signal(7)), and firing again each period also covers a signal
 * that came before the call started.  Two system calls more than the
 * read or write itself.
 *
 * #syscalls:passt setitimer rt_sigaction read write
 * Return: bytes moved (0 at end of file, reading), -EAGAIN if the call
 *	   would block (O_NONBLOCK set or not) or was interrupted, or -errno
 *	   from sigaction(), setitimer(), read() or write()
 */
static ssize_t vu_io_guarded(int fd, void *buf, size_t len, bool out)
{
	static const struct itimerval off;
	struct itimerval on = { { 0, VU_WRITE_GUARD_US },
				{ 0, VU_WRITE_GUARD_US } };
	ssize_t n;
	int err;

	if (!vu_sigalrm_on) {
		struct sigaction sa = { .sa_handler = vu_sigalrm };

		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGALRM, &sa, NULL) < 0)
			return -errno;
		vu_sigalrm_on = true;
	}
	if (setitimer(ITIMER_REAL, &on, NULL) < 0)
		return -errno;
	n = out ? write(fd, buf, len) : read(fd, buf, len);
	err = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	if (n >= 0)
		return n;
	return (err == EINTR || err == EAGAIN) ? -EAGAIN : -err;
}

/**
 * vu_efd_write() - Add to an eventfd the front-end gave us, never blocking
 * @fd:		Its descriptor (kick, call or error eventfd)
 * @v:		Value to add; 0 leaves the counter as it is (a wake-up only)
 *
 * eventfd(2): a write that would take the counter past 0xfffffffffffffffe
 * blocks unless the file has O_NONBLOCK, which the front-end may clear:
 * the write goes through vu_io_guarded().
 *
 * Return: 0 if written, -EAGAIN if the counter has no room (O_NONBLOCK set
 *	   or not), or -errno from sigaction(), setitimer() or write()
 *	   (-EINVAL: not a file that takes this write, such as a signalfd)
 */
static int vu_efd_write(int fd, uint64_t v)
{
	ssize_t n = vu_io_guarded(fd, &v, sizeof(v), true);

	if (n == (ssize_t)sizeof(v))
		return 0;
	return n < 0 ? (int)n : -EIO;
}

/**
 * vu_fd_is_eventfd() - Is a descriptor the front-end passed an eventfd?
 * @fd:		The descriptor
 *
 * We are isolated by then (no /proc to read its link from, passt.1
 * "Security"), so we go by what it does.  An eventfd has no file type:
 * fstat(2) shows an anonymous inode, st_mode without S_IFMT bits, as for a
 * signalfd, timerfd, epoll, inotify or userfaultfd descriptor; of those,
 * only an eventfd takes an 8-byte write of 0, which leaves its counter as
 * it is (eventfd(2)) and only wakes its readers: for a call eventfd, the
 * guest may see one spurious interrupt per SET_VRING_CALL, which virtio
 * drivers ignore (no used buffer).  A pipe, socket, regular or memory file,
 * or device is refused by its type, before anything is written to it.  An
 * EFD_SEMAPHORE eventfd passes: vu_kick_handler() reads a kick eventfd
 * once per wake-up, which does for both kinds.
 *
 * #syscalls:passt fstat newfstatat
 * Return: true if it is one
 */
static bool vu_fd_is_eventfd(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || (st.st_mode & S_IFMT))
		return false;
	return !vu_efd_write(fd, 0);
}

/**
 * vu_queue_stop() - Stop a queue: stop watching and close its kick fd
 * @i:		Queue index
 */
static void vu_queue_stop(unsigned i)
{
	struct vu_queue *q = &vu.q[i];

	if (q->kick_fd >= 0 && vu_watch)
		vu_watch(q->kick_fd, i, false);
	vu_close_fd(&q->kick_fd);
	q->started = false;
}

/**
 * vu_queue_reset() - A queue back to its state before any message
 * @i:		Queue index
 */
static void vu_queue_reset(unsigned i)
{
	struct vu_queue *q = &vu.q[i];

	vu_queue_stop(i);
	vu_close_fd(&q->call_fd);
	vu_close_fd(&q->err_fd);
	vq_reset(&q->vq);
	q->addr_set = q->enabled = q->call_full = false;
}

/**
 * vu_mem_unmap() - Unmap the guest's regions
 *
 * The queues' ring pointers go too (vq_ready() is false until vq_map()
 * runs again over a new table), so that nothing can reach unmapped memory
 * if the front-end is dropped afterwards (tap_flush() before vu_detach()).
 *
 * #syscalls:passt munmap close
 */
static void vu_mem_unmap(void)
{
	unsigned i;

	for (i = 0; i < VU_QUEUES; i++)
		vu.q[i].vq.desc = vu.q[i].vq.avail = vu.q[i].vq.used = NULL;
	for (i = 0; i < VU_REGIONS_MAX; i++) {
		if (vu.map[i].base) {
			munmap(vu.map[i].base, vu.map[i].len);
			close(vu.map[i].fd);
		}
		vu.map[i].base = NULL;
	}
	vu.mem.n = 0;
	vu_sigbus_hit = 0;
}

/**
 * vu_log_unmap() - Forget the dirty-page log
 *
 * #syscalls:passt munmap
 */
static void vu_log_unmap(void)
{
	if (vu.log_map)
		munmap(vu.log_map, vu.log_map_len);
	vu.log_map = NULL;
	vu.log_map_len = 0;
	vu.log.bitmap = NULL;
	vu.log.size = 0;
}

/**
 * vu_logging() - Must our writes to guest memory be logged now?
 *
 * Return: true if VHOST_F_LOG_ALL is negotiated and a log is set
 */
static bool vu_logging(void)
{
	return vu_has(VHOST_F_LOG_ALL) && vu.log.bitmap;
}

/**
 * vu_log_count() - Count and report a write we couldn't log
 * @rc:		Result of a vu_log_*() call
 */
static void vu_log_count(int rc)
{
	if (!rc)
		return;
	vu_stats.log_missed++;
	warn_ratelimit(now_ms(), "vhost-user: a write to guest memory is outside "
		       "the front-end's dirty-page log (%s): a migration "
		       "running now may copy a stale page",
		       rc == -ERANGE ? "log too small" : "not in the memory table");
}

/**
 * vu_used_add() - Write a used ring entry, logged if logging is on
 * @i:		Queue index
 * @head:	Head index of the chain
 * @len:	Bytes written into its buffers
 *
 * The entry is at offset 4 + 8 * (idx % size) of the used ring (virtio
 * 1.x 2.7.8), logged at the ring's log address plus that offset
 * (vhost-user.rst, "Migration": VHOST_VRING_F_LOG, log_guest_addr).
 */
static void vu_used_add(unsigned i, uint16_t head, uint32_t len)
{
	struct vu_queue *q = &vu.q[i];
	uint64_t off = 4 + 8 * (uint64_t)(q->vq.used_idx & (q->vq.num - 1));

	vq_used_add(&q->vq, head, len);
	if (vu_logging() && q->log_used)
		vu_log_count(vu_log_gpa(&vu.log, q->log_gpa + off, 8));
}

/**
 * vu_used_publish() - Publish used entries, logging the idx write
 * @i:		Queue index
 *
 * used->idx is the le16 at offset 2 of the used ring.
 */
static void vu_used_publish(unsigned i)
{
	struct vu_queue *q = &vu.q[i];

	if (!q->vq.used_pend)
		return;
	vq_used_publish(&q->vq);
	if (vu_logging() && q->log_used)
		vu_log_count(vu_log_gpa(&vu.log, q->log_gpa + 2, 2));
}

/**
 * vu_state_close() - Stop watching and close the device state channel
 */
static void vu_state_close(void)
{
	if (vu.xfer.fd >= 0 && vu_state_watch)
		vu_state_watch(vu.xfer.fd, !vu.xfer.load, false);
	vu_close_fd(&vu.xfer.fd);
	if (vu.xfer.buf) {
		munmap(vu.xfer.buf, VU_STATE_BUF);
		vu.xfer.buf = NULL;
	}
}

/**
 * vu_state_buf() - Map the device state buffer for a transfer
 *
 * mmap() is allowed by isolation.c's seccomp_special[] (never executable).
 *
 * #syscalls:passt munmap
 * Return: 0, or -ENOMEM
 */
static int vu_state_buf(void)
{
	void *p;

	if (vu.xfer.buf)
		return 0;
	p = mmap(NULL, VU_STATE_BUF, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	vu.xfer.buf = p;
	return 0;
}

/**
 * vu_dev_reset() - Forget features, queues and memory (RESET_OWNER, detach)
 */
static void vu_dev_reset(void)
{
	unsigned i;

	for (i = 0; i < VU_QUEUES; i++)
		vu_queue_reset(i);
	vu_mem_unmap();
	vu_log_unmap();
	vu_state_close();
	vu.xfer.state = VU_XFER_NONE;
	vu.xfer.check_pending = false;
	vu.features = vu.protocol = 0;
	vu.hdr_len = sizeof(struct virtio_net_hdr_mrg_rxbuf);
	vu.rx_full = vu.tx_more = vu.broken = vu.tso_off = false;
	vu.uso_off = false;
	vu.empty_kicks = 0;
	vu.had_buffers = false;
}

/**
 * vu_attach() - A front-end connected
 * @fd:		Its connected UNIX stream socket, non-blocking
 */
void vu_attach(int fd)
{
	unsigned i;

	for (i = 0; i < VU_QUEUES; i++)
		vu.q[i].kick_fd = vu.q[i].call_fd = vu.q[i].err_fd = -1;
	vu_dev_reset();
	vu.fd = fd;
	vu.in_len = 0;
	vu.in.nfds = 0;
}

/**
 * vu_msg_close_fds() - Close the fds a message brought that nobody took
 * @m:		Message
 */
static void vu_msg_close_fds(struct vu_msg *m)
{
	unsigned i;

	for (i = 0; i < m->nfds; i++)
		vu_close_fd(&m->fds[i]);
	m->nfds = 0;
}

/**
 * vu_detach() - The front-end left or was dropped: free what it gave us
 *
 * The socket itself is closed by the caller (it owns its epoll entry).
 */
void vu_detach(void)
{
	if (vu.fd < 0)
		return;
	vu_dev_reset();
	vu_msg_close_fds(&vu.in);
	vu.in_len = 0;
	vu.fd = -1;
}

/**
 * vu_attached() - Is a front-end connected?
 *
 * Return: true between vu_attach() and vu_detach()
 */
VISIBLE_IF_UNIT
bool vu_attached(void)
{
	return vu.fd >= 0;
}

/**
 * vu_queue_live() - Can frames move on a queue?
 * @i:		Queue index
 *
 * Return: true if started, enabled and not broken
 */
static bool vu_queue_live(unsigned i)
{
	return vu.q[i].started && vu.q[i].enabled && vq_ready(&vu.q[i].vq);
}

/**
 * vu_ready() - Is the device running (both queues live)?
 *
 * Return: true if frames can go both ways
 */
bool vu_ready(void)
{
	return vu.fd >= 0 && vu_queue_live(0) && vu_queue_live(1);
}

/**
 * vu_rx_full() - Did the receive queue run out of buffers?
 *
 * Return: true until the guest kicks queue 0 again
 */
bool vu_rx_full(void)
{
	return vu.rx_full;
}

/**
 * vu_rx_bufs() - Receive buffers the guest has made available
 *
 * Each frame to the guest takes at least one, so no more frames than this
 * can be written by the next flush: tap_tx_frames_free() and
 * tap_tx_blocked() hold senders back instead of letting them build frames
 * that would be dropped.  A guest that adds buffers kicks queue 0.
 *
 * Return: available ring entries of queue 0 we haven't taken, 0 if the
 *	   device isn't running or the ring is broken (then vu_broken())
 */
unsigned vu_rx_bufs(void)
{
	int n;

	if (!vu_ready())
		return 0;
	n = vq_avail_count(&vu.q[0].vq);
	if (n < 0) {
		vu_ring_broken(0, -VQ_E_HEAD);
		return 0;
	}
	return (unsigned)n;
}

/**
 * vu_guest_csum() - May frames to the guest carry partial checksums?
 *
 * Return: true if VIRTIO_NET_F_GUEST_CSUM was negotiated
 */
bool vu_guest_csum(void)
{
	return vu_has(VIRTIO_NET_F_GUEST_CSUM);
}

/**
 * vu_tso_negotiated() - Did the guest accept TSO of both families?
 *
 * Return: true if VIRTIO_NET_F_GUEST_TSO4, _TSO6 and _CSUM were negotiated
 */
static bool vu_tso_negotiated(void)
{
	return vu_has(VIRTIO_NET_F_GUEST_CSUM) &&
	       vu_has(VIRTIO_NET_F_GUEST_TSO4) &&
	       vu_has(VIRTIO_NET_F_GUEST_TSO6);
}

/**
 * vu_guest_tso() - May TCP frames to the guest be super-frames?
 *
 * Only with both families: tap_gso_seg() sizes frames before it knows
 * which one a frame is for.  Linux's virtio-net driver and QEMU accept
 * both or neither unless told otherwise.  Not after a super-frame found
 * the receive queue too small for it (vu_frames_to_guest()): the sender
 * then goes back to one segment per frame.
 *
 * Return: true if TSO was negotiated (vu_tso_negotiated()) and the
 *	   guest's receive buffers can hold a super-frame
 */
bool vu_guest_tso(void)
{
	return vu_tso_negotiated() && !vu.tso_off;
}

/**
 * vu_uso_negotiated() - Did the guest accept USO of both families?
 *
 * Return: true if VIRTIO_NET_F_GUEST_USO4, _USO6 and _CSUM were negotiated
 */
static bool vu_uso_negotiated(void)
{
	return vu_has(VIRTIO_NET_F_GUEST_CSUM) &&
	       vu_has(VIRTIO_NET_F_GUEST_USO4) &&
	       vu_has(VIRTIO_NET_F_GUEST_USO6);
}

/**
 * vu_guest_uso() - May UDP frames to the guest be super-frames?
 *
 * As vu_guest_tso(), for VIRTIO_NET_HDR_GSO_UDP_L4 (virtio 1.2 5.1.6.4):
 * both families (passt/udp.c gathers runs before it picks a header), not
 * after a UDP super-frame found the receive queue too small for it.
 *
 * Return: true if USO was negotiated (vu_uso_negotiated()) and the
 *	   guest's receive buffers can hold a super-frame
 */
bool vu_guest_uso(void)
{
	return vu_uso_negotiated() && !vu.uso_off;
}

/**
 * vu_broken() - Did a ring break (the front-end must be dropped)?
 *
 * Return: true after a ring error, until vu_detach()
 */
bool vu_broken(void)
{
	if (vu_sigbus_hit && !vu.broken) {
		warn_ratelimit(now_ms(), "vhost-user: guest memory faulted (file shrunk by "
			       "the front-end, or no huge page left), dropping "
			       "the front-end");
		vu.broken = true;
		vu_stats.frontends_dropped++;
		vu_stats.shrunk++;
	}
	return vu.broken;
}

/**
 * vu_tx_more() - Chains left in the transmit queue after a full batch?
 *
 * Return: true if tap_rx() should be called again without a kick
 */
bool vu_tx_more(void)
{
	return vu.tx_more && vu_queue_live(1);
}

/**
 * vu_msg_need() - How many more bytes complete a message?
 * @buf:	Bytes received so far (header first)
 * @len:	Their count
 * @need:	Set to the bytes still missing (0: complete)
 *
 * Return: 0, or -EMSGSIZE if the header announces more than
 *	   VU_PAYLOAD_MAX bytes of payload
 */
VISIBLE_IF_UNIT
int vu_msg_need(const uint8_t *buf, size_t len, size_t *need)
{
	uint32_t size;

	if (len < VU_HDR_SIZE) {
		*need = VU_HDR_SIZE - len;
		return 0;
	}
	memcpy(&size, buf + 8, 4);
	size = le32toh(size);
	if (size > VU_PAYLOAD_MAX)
		return -EMSGSIZE;
	*need = VU_HDR_SIZE + size > len ? VU_HDR_SIZE + size - len : 0;
	return 0;
}

/**
 * vu_get_u64() - Little-endian u64 from a payload
 * @p:		Payload
 *
 * Return: value
 */
static uint64_t vu_get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/**
 * vu_get_u32() - Little-endian u32 from a payload
 * @p:		Payload
 *
 * Return: value
 */
static uint32_t vu_get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

/**
 * vu_payload_decode() - Decode a checked payload into host-order fields
 * @m:		Message, vu_msg_check() passed: its size fits @type
 * @type:	What it carries (struct vu_handler)
 * @p:		Result: the member @type names is set
 *
 * Layouts from vhost-user.rst, "Message specification", little-endian;
 * a vring state and a vring address as the kernel's struct
 * vhost_vring_state and struct vhost_vring_addr (linux/vhost_types.h).
 */
static void vu_payload_decode(const struct vu_msg *m,
			      enum vu_payload_type type, union vu_payload *p)
{
	const uint8_t *b = m->payload;
	unsigned i;

	switch (type) {
	case VU_PAYLOAD_U64:
		p->u64 = vu_get_u64(b);
		break;
	case VU_PAYLOAD_STATE:
		memcpy(&p->state, b, sizeof(p->state));
		p->state.index = le32toh(p->state.index);
		p->state.num = le32toh(p->state.num);
		break;
	case VU_PAYLOAD_ADDR:
		memcpy(&p->addr, b, sizeof(p->addr));
		p->addr.index = le32toh(p->addr.index);
		p->addr.flags = le32toh(p->addr.flags);
		p->addr.desc_user_addr = le64toh(p->addr.desc_user_addr);
		p->addr.used_user_addr = le64toh(p->addr.used_user_addr);
		p->addr.avail_user_addr = le64toh(p->addr.avail_user_addr);
		p->addr.log_guest_addr = le64toh(p->addr.log_guest_addr);
		break;
	case VU_PAYLOAD_MEM:
		p->mem.hdr.nregions = vu_get_u32(b);
		p->mem.hdr.padding = 0;
		for (i = 0; i < p->mem.hdr.nregions && i < VU_REGIONS_MAX;
		     i++) {
			struct vu_mem_region *r = &p->mem.r[i];

			memcpy(r, b + sizeof(struct vu_mem_table) +
				  sizeof(*r) * i, sizeof(*r));
			r->gpa = le64toh(r->gpa);
			r->size = le64toh(r->size);
			r->uva = le64toh(r->uva);
			r->mmap_offset = le64toh(r->mmap_offset);
		}
		break;
	case VU_PAYLOAD_LOG:
		p->log.size = vu_get_u64(b);
		p->log.offset = vu_get_u64(b + sizeof(uint64_t));
		break;
	case VU_PAYLOAD_XFER:
		p->xfer.direction = vu_get_u32(b);
		p->xfer.phase = vu_get_u32(b + sizeof(uint32_t));
		break;
	case VU_PAYLOAD_NONE:
		break;
	}
}

/**
 * vu_put_u64() - Little-endian u64 into a payload
 * @p:		Payload
 * @v:		Value
 */
static void vu_put_u64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

/**
 * vu_msg_check() - Is a complete message well-formed for its request?
 * @m:		Message
 *
 * Payload sizes from vhost-user.rst ("Message specification"): a u64 for
 * features and the KICK/CALL/ERR index, an 8-byte vring state, a 40-byte
 * vring address, a memory table of 8 + 32 * regions bytes, a 16-byte log
 * description and its fd (SET_LOG_BASE), 8 bytes of device state
 * transfer parameters and the channel's fd (SET_DEVICE_STATE_FD): without
 * their fd those two are malformed.  Requests
 * without payload may carry any (ignored).  Queue indices must be below
 * VU_QUEUES; no request carries more fds than it uses.
 *
 * Return: 0, or -EBADMSG
 */
VISIBLE_IF_UNIT
int vu_msg_check(const struct vu_msg *m)
{
	unsigned fds_max = 0;
	uint32_t n;

	if ((m->flags & 0x3) != VU_FLAG_VERSION || m->size > VU_PAYLOAD_MAX)
		return -EBADMSG;

	switch (m->req) {
	case VU_SET_FEATURES:
	case VU_SET_PROTOCOL_FEATURES:
		if (m->size != VU_U64_SIZE)
			return -EBADMSG;
		break;
	case VU_SET_LOG_BASE:
		if (m->size != VU_LOG_DESC_SIZE || m->nfds != 1)
			return -EBADMSG;
		fds_max = 1;
		break;
	case VU_SET_DEVICE_STATE_FD:
		if (m->size != VU_U64_SIZE || m->nfds != 1)
			return -EBADMSG;
		fds_max = 1;
		break;
	case VU_SET_LOG_FD:
		fds_max = 1;
		break;
	case VU_SET_VRING_KICK:
	case VU_SET_VRING_CALL:
	case VU_SET_VRING_ERR:
		if (m->size != VU_U64_SIZE)
			return -EBADMSG;
		n = (uint32_t)(vu_get_u64(m->payload) & VU_VRING_IDX_MASK);
		if (n >= VU_QUEUES)
			return -EBADMSG;
		fds_max = 1;
		break;
	case VU_SET_VRING_NUM:
	case VU_SET_VRING_BASE:
	case VU_GET_VRING_BASE:
	case VU_SET_VRING_ENABLE:
		if (m->size != sizeof(struct vhost_vring_state) ||
		    vu_get_u32(m->payload) >= VU_QUEUES)
			return -EBADMSG;
		break;
	case VU_SET_VRING_ADDR:
		if (m->size != sizeof(struct vhost_vring_addr) ||
		    vu_get_u32(m->payload) >= VU_QUEUES)
			return -EBADMSG;
		break;
	case VU_SET_MEM_TABLE:
		if (m->size < sizeof(struct vu_mem_table))
			return -EBADMSG;
		n = vu_get_u32(m->payload);	/* nregions */
		if (!n || n > VU_REGIONS_MAX ||
		    m->size != sizeof(struct vu_mem_table) +
			       VU_REGION_DESC_SIZE * n)
			return -EBADMSG;
		fds_max = n;
		break;
	default:
		break;
	}
	if (m->nfds > fds_max)
		return -EBADMSG;
	return 0;
}

/**
 * vu_queue_try_start() - Start a queue if it has all it needs
 * @i:		Queue index
 *
 * Return: 0 (started, or still waiting for something), -EFAULT if its
 *	   rings are not inside guest memory
 */
static int vu_queue_try_start(unsigned i)
{
	struct vu_queue *q = &vu.q[i];
	int rc;

	if (q->started || q->kick_fd < 0 || !q->vq.num || !vu.mem.n ||
	    !q->addr_set)
		return 0;
	rc = vq_map(&q->vq, &vu.mem);
	if (rc)
		return rc;
	q->vq.used_idx = q->vq.last_avail;
	q->vq.broken = false;
	q->started = true;
	if (!(vu.features & BIT(VHOST_USER_F_PROTOCOL_FEATURES)))
		q->enabled = true;
	if (vu_watch && vu_watch(q->kick_fd, i, true) < 0)
		return -EIO;
	if (i == 0)
		vu.rx_full = false;
	debug("vhost-user: queue %u started, size %u", i, q->vq.num);
	return 0;
}

/**
 * vu_sigbus() - SIGBUS handler: a guest region faulted
 * @sig:	SIGBUS
 * @si:		Its siginfo: si_addr is the address we touched
 * @uc:	Unused
 *
 * A front-end may ftruncate() a memory file it didn't seal against
 * shrinking (F_SEAL_SHRINK) after giving it to us: our next access to a
 * page past the new end faults with SIGBUS (mmap(2)).  So does our first
 * access to a page of a hugetlbfs file, sealed or not, when no huge page
 * is free for it (we map with MAP_NORESERVE: nothing was reserved,
 * Documentation/admin-guide/mm/hugetlbpage.rst).  If the address is
 * in one of our guest mappings, that whole mapping is replaced by
 * anonymous zero pages (MAP_FIXED: the faulting instruction then goes on,
 * reading zeroes, and no later access faults), vu_sigbus_hit is set and
 * we return: vu_broken() drops the front-end from the main loop, with a
 * log line, and the daemon serves the next one.  Any other SIGBUS is not
 * ours: the default action is restored, and the fault repeats when we
 * return, this time fatal (a SIGBUS sent with kill() isn't sent again:
 * kill() stays out of passt's seccomp filter; the next one is fatal).
 *
 * Context: signal handler: only async-signal-safe calls (mmap and
 * sigaction are system calls)
 * #syscalls:passt rt_sigreturn rt_sigaction
 */
static void vu_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	uintptr_t a = (uintptr_t)si->si_addr;
	unsigned i;

	(void)uc;
	for (i = 0; si->si_code > 0 && i < VU_REGIONS_MAX; i++) {
		uintptr_t b = (uintptr_t)vu.map[i].base;

		if (!b || a < b || a - b >= vu.map[i].len)
			continue;
		if (mmap(vu.map[i].base, vu.map[i].len, PROT_READ | PROT_WRITE,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_NORESERVE, -1, 0) == MAP_FAILED)
			break;
		vu_sigbus_hit = 1;
		return;
	}
	if (si->si_code > 0 && vu.log_map && a >= (uintptr_t)vu.log_map &&
	    a - (uintptr_t)vu.log_map < vu.log_map_len &&
	    mmap(vu.log_map, vu.log_map_len, PROT_READ | PROT_WRITE,
		 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0) != MAP_FAILED) {
		vu_sigbus_hit = 1;
		return;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/**
 * vu_sigbus_guard() - Install vu_sigbus(), once
 *
 * Context: SET_MEM_TABLE
 * #syscalls:passt rt_sigaction
 * Return: 0, or -errno from sigaction()
 */
static int vu_sigbus_guard(void)
{
	struct sigaction sa = { .sa_sigaction = vu_sigbus,
				.sa_flags = SA_SIGINFO };

	if (vu_sigbus_on)
		return 0;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) < 0)
		return -errno;
	vu_sigbus_on = true;
	return 0;
}

/**
 * vu_regions_map() - Map the files of a checked memory table
 * @mem:	Memory table (vu_mem_check() passed); @mem->r[].host is set
 * @off:	Offset of each region in its file (mmap_offset)
 * @fds:	The files, one per region (not closed, not taken here)
 * @map:	Filled: each mapping, its offset and file
 *
 * Each file must hold its region (a regular file's size is checked); a
 * hugetlbfs file is mapped in whole huge pages; vu_sigbus() guards them.
 *
 * #syscalls:passt fstat newfstatat fcntl munmap
 * Return: 0, or -errno (nothing stays mapped then)
 */
static int vu_regions_map(struct vu_mem *mem, const uint64_t *off,
			  const int *fds, struct vu_map *map)
{
	unsigned i;
	int rc;

	for (i = 0; i < mem->n; i++) {
		size_t len = (size_t)(off[i] + mem->r[i].size);
		struct stat st;
		int seals;

		if (fstat(fds[i], &st) < 0) {
			rc = -errno;
			goto unmap;
		}
		if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < len) {
			rc = -EINVAL;
			goto unmap;
		}
		/* A hugetlbfs file maps in whole huge pages, its st_blksize
		 * (stat(2)): so must the zero pages vu_sigbus() puts there,
		 * and munmap(), as a huge page can't be split
		 * (Documentation/admin-guide/mm/hugetlbpage.rst)
		 */
		if (st.st_blksize > 0 && st.st_blksize <= (1L << 30) &&
		    !(st.st_blksize & (st.st_blksize - 1)))
			len = ROUND_UP(len, (size_t)st.st_blksize);
		seals = fcntl(fds[i], F_GET_SEALS);
		if (seals < 0 || !(seals & F_SEAL_SHRINK))
			info_ratelimit(now_ms(), "vhost-user: memory region %u can be shrunk by "
			     "the front-end (no F_SEAL_SHRINK): SIGBUS guard",
			     i);
		if ((rc = vu_sigbus_guard()))
			goto unmap;
		map[i].base = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_NORESERVE, fds[i], 0);
		if (map[i].base == MAP_FAILED) {
			map[i].base = NULL;
			rc = -errno;
			goto unmap;
		}
		map[i].len = len;
		mem->r[i].host = (uint8_t *)map[i].base + off[i];
	}

	for (i = 0; i < mem->n; i++) {
		map[i].off = off[i];
		map[i].fd = fds[i];
	}
	return 0;

unmap:
	for (i = 0; i < mem->n; i++) {
		if (map[i].base)
			munmap(map[i].base, map[i].len);
		map[i].base = NULL;
	}
	return rc;
}

/**
 * vu_set_mem_table() - SET_MEM_TABLE: map the regions of a memory table
 * @m:		Message, checked; its fds are taken (kept with their mappings,
 *		closed when unmapped)
 * @p:		Its payload, decoded: @p->mem
 * @reply:	Unused
 *
 * Each region's file must be at least mmap offset + size bytes long
 * (fstat()), so that no access of ours can fault beyond its end.  A file
 * sealed with F_SEAL_SHRINK (QEMU's memory-backend-memfd, seal=on, the
 * default) stays that long; any other may be shrunk later, and a hugetlbfs
 * file, sealed or not, faults where no huge page is left for it:
 * vu_sigbus() guards every region (a fault drops the front-end).
 *
 * mmap() is allowed by passt/isolation.c's seccomp_special[] rule (never
 * executable), which covers it here too.
 *
 * #syscalls:passt munmap fstat newfstatat fcntl close
 * Return: VU_NO_REPLY, or -errno (the old table, if any, is gone either
 *	   way)
 */
static int vu_set_mem_table(struct vu_msg *m, const union vu_payload *p,
			    struct vu_msg *reply)
{
	struct vu_map map[VU_REGIONS_MAX] = { 0 };
	struct vu_mem mem = { .n = p->mem.hdr.nregions };
	uint64_t off[VU_REGIONS_MAX];
	unsigned i;
	int rc = 0;

	if (m->nfds != mem.n) {
		rc = -EBADMSG;
		goto close;
	}
	(void)reply;
	for (i = 0; i < mem.n; i++) {
		const struct vu_mem_region *d = &p->mem.r[i];

		mem.r[i].gpa = d->gpa;
		mem.r[i].size = d->size;
		mem.r[i].uva = d->uva;
		off[i] = d->mmap_offset;
		if (off[i] + mem.r[i].size < off[i] ||
		    off[i] + mem.r[i].size > SIZE_MAX) {
			rc = -EINVAL;
			goto close;
		}
	}
	if ((rc = vu_mem_check(&mem)))
		goto close;

	if ((rc = vu_regions_map(&mem, off, m->fds, map)))
		goto close;

	vu_mem_unmap();
	memcpy(vu.map, map, sizeof(map));
	vu.mem = mem;
	m->nfds = 0;		/* the files are kept in vu.map */

	/* Rings live at front-end addresses: translate them again */
	for (i = 0; i < VU_QUEUES; i++) {
		struct vu_queue *q = &vu.q[i];

		if (q->started && vq_map(&q->vq, &vu.mem))
			return -EFAULT;
		if ((rc = vu_queue_try_start(i)))
			return rc;
	}
	return VU_NO_REPLY;

close:
	vu_mem_unmap();
	vu_msg_close_fds(m);
	return rc;
}

/**
 * vu_set_vring_fd() - SET_VRING_KICK, SET_VRING_CALL or SET_VRING_ERR
 * @m:		Message, checked; its fd, if any, is taken
 * @p:		Its payload, decoded: @p->u64, queue index in bits 0-7,
 *		VU_VRING_NOFD if no fd comes with it
 * @reply:	Unused
 *
 * vhost-user.rst has these carry eventfds: anything else (a pipe, a
 * memory file...) drops the front-end (vu_fd_is_eventfd()).  The file
 * stays as the front-end made it: we never set or rely on O_NONBLOCK,
 * which it could clear again (vu_kick_handler(), vu_efd_write()).
 *
 * Return: VU_NO_REPLY, VU_REFUSED (polling mode: no kick fd), or -errno
 *	   (-EINVAL: not an eventfd)
 */
static int vu_set_vring_fd(struct vu_msg *m, const union vu_payload *p,
			   struct vu_msg *reply)
{
	unsigned i = (unsigned)(p->u64 & VU_VRING_IDX_MASK);
	struct vu_queue *q = &vu.q[i];
	int fd = -1, *slot;

	(void)reply;
	if (p->u64 & VU_VRING_NOFD) {
		if (m->nfds)
			return -EBADMSG;
	} else {
		if (m->nfds != 1)
			return -EBADMSG;
		fd = m->fds[0];
		m->nfds = 0;
		if (!vu_fd_is_eventfd(fd)) {
			warn_ratelimit(now_ms(), "vhost-user: request %u, queue %u: "
				       "descriptor is not an eventfd", m->req, i);
			close(fd);
			return -EINVAL;
		}
	}

	switch (m->req) {
	case VU_SET_VRING_KICK:
		vu_queue_stop(i);
		if (fd < 0)
			return VU_REFUSED;	/* polling mode */
		q->kick_fd = fd;
		return vu_queue_try_start(i);
	case VU_SET_VRING_CALL:
		slot = &q->call_fd;
		q->call_full = false;
		break;
	default:
		slot = &q->err_fd;
		break;
	}
	vu_close_fd(slot);
	*slot = fd;
	return VU_NO_REPLY;
}

/**
 * vu_set_log_base() - SET_LOG_BASE: map the front-end's dirty-page log
 * @m:		Message, checked (16-byte log description, one fd); the fd
 *		is taken (closed)
 * @p:		Its payload, decoded: @p->log
 * @reply:	Filled with the u64 reply
 *
 * The payload is u64 log size and u64 log offset (vhost-user.rst, "Log
 * description"): the bitmap starts at that offset of the file (that is
 * where guest physical address 0 is logged).  The size must be non-zero,
 * at most VU_LOG_SIZE_MAX (1 GiB: 32 TiB of guest memory), offset + size
 * must not wrap and must fit in the file if it is a regular one (a memfd,
 * as QEMU's).  Any other value is a broken front-end: it is dropped, as
 * for a memory table we can't map.  A log that doesn't cover the memory
 * table is taken with a warning (writes beyond it are counted in
 * vu_stats.log_missed).  A new log replaces the old one; vu_sigbus()
 * guards it as it guards guest memory.
 *
 * #syscalls:passt fstat newfstatat munmap close
 * Return: VU_REPLY (the reply, a u64 0, is in @reply), or -errno to drop
 *	   the front-end
 */
static int vu_set_log_base(struct vu_msg *m, const union vu_payload *p,
			   struct vu_msg *reply)
{
	uint64_t size = p->log.size;
	uint64_t off = p->log.offset;
	long pagesz = sysconf(_SC_PAGESIZE);
	uint64_t off_al, cover = 0;
	struct stat st;
	size_t len;
	void *base;
	unsigned i;
	int fd = m->fds[0], rc;

	if (!(vu.protocol & BIT(VU_PROTOCOL_F_LOG_SHMFD))) {
		warn_ratelimit(now_ms(), "vhost-user: SET_LOG_BASE without "
			       "LOG_SHMFD negotiated");
		return -EPROTO;
	}
	if (pagesz <= 0)
		pagesz = 4096;
	if (!size || size > VU_LOG_SIZE_MAX || off + size < off ||
	    off > (uint64_t)INT64_MAX - size) {
		warn_ratelimit(now_ms(), "vhost-user: dirty-page log of %llu "
			       "bytes at offset %llu refused",
			       (unsigned long long)size,
			       (unsigned long long)off);
		return -EINVAL;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < off + size) {
		warn_ratelimit(now_ms(), "vhost-user: dirty-page log file of %lld "
			       "bytes is shorter than offset %llu + size %llu",
			       (long long)st.st_size, (unsigned long long)off,
			       (unsigned long long)size);
		return -EINVAL;
	}
	if ((rc = vu_sigbus_guard()))
		return rc;

	/* mmap() wants a page-aligned offset (mmap(2)) */
	off_al = off & ~((uint64_t)pagesz - 1);
	len = (size_t)(size + (off - off_al));
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)off_al);
	if (base == MAP_FAILED)
		return -errno;
	vu_msg_close_fds(m);

	vu_log_unmap();
	vu.log_map = base;
	vu.log_map_len = len;
	vu.log.bitmap = (uint8_t *)base + (off - off_al);
	vu.log.size = size;

	for (i = 0; i < vu.mem.n; i++)
		cover = MAX(cover, vu.mem.r[i].gpa + vu.mem.r[i].size);
	if (cover > size * 8 * VU_LOG_PAGE)
		warn("vhost-user: the dirty-page log covers %llu bytes of "
		     "guest memory, the memory table %llu",
		     (unsigned long long)(size * 8 * VU_LOG_PAGE),
		     (unsigned long long)cover);
	debug("vhost-user: dirty-page log of %llu bytes", (unsigned long long)size);
	if (vu_state_ops && vu_state_ops->prepare)
		vu_state_ops->prepare();

	/* The front-end waits for a reply (vhost-user.rst, "Communication") */
	vu_put_u64(reply->payload, 0);
	reply->size = 8;
	return VU_REPLY;
}

/**
 * vu_state_checked() - The front-end knows the transfer succeeded
 *
 * Tells the daemon (struct vu_state_ops @done), which may end the process
 * (--migrate-exit): called after the reply went out.
 */
static void vu_state_checked(void)
{
	if (!vu.xfer.load)
		info("vhost-user: migration: device state handed over");
	if (vu_state_ops && vu_state_ops->done)
		vu_state_ops->done(vu.xfer.load);
}

/**
 * vu_state_finish() - End the device state transfer
 * @result:	0 if it completed (and a loaded state was taken), else a
 *		positive errno
 *
 * Closes our end (for a save, that is the end of the stream the
 * front-end reads), and answers a CHECK_DEVICE_STATE that was waiting.
 */
static void vu_state_finish(int result)
{
	struct vu_xfer *x = &vu.xfer;

	vu_state_close();
	x->state = VU_XFER_DONE;
	x->result = result;
	if (result)
		vu_stats.state_refused++;
	else if (x->load)
		vu_stats.state_loaded++;
	else
		vu_stats.state_saved++;
	if (x->check_pending) {
		struct vu_msg r = { .req = VU_CHECK_DEVICE_STATE,
				    .flags = VU_FLAG_VERSION | VU_FLAG_REPLY,
				    .size = 8 };

		x->check_pending = false;
		vu_put_u64(r.payload, result ? 1 : 0);
		if (vu_send(&r) < 0)
			debug("vhost-user: can't send the CHECK_DEVICE_STATE reply");
		else if (!result)
			vu_state_checked();
	}
}

/**
 * vu_state_loaded() - A whole stream arrived: check it and take it
 *
 * Return: 0, or a positive errno
 */
static int vu_state_loaded(void)
{
	struct vu_xfer *x = &vu.xfer;
	struct devstate st;
	uint32_t ver;
	int rc;

	rc = devstate_parse(x->buf, x->len, true, &st, &ver);
	if (rc) {
		warn("vhost-user: device state refused: %s (version %u, %zu bytes)",
		     devstate_err_str[-rc], ver, x->len);
		return rc == -DEVSTATE_E_UNSUPPORTED ? ENOTSUP : EPROTO;
	}
	if (!vu_state_ops || !vu_state_ops->load)
		return ENOTSUP;
	rc = vu_state_ops->load(&st);
	return rc < 0 ? -rc : 0;
}

/**
 * vu_state_io() - Move device state bytes until the channel would block
 *
 * Saving: writes the rest of the stream, then closes.  Loading: reads
 * until end of file, checking what arrived as it comes, so that a stream
 * that is already wrong (bad magic, unknown version) is refused without
 * waiting for its end; at end of file the whole stream is checked and
 * taken (vu_state_ops->load).  A stream longer than VU_STATE_BUF is
 * refused.  The channel never blocks us, even if the front-end clears
 * O_NONBLOCK on the pipe it shares with us (vu_io_guarded()): a call that
 * would block returns, and the main loop calls again once the channel is
 * ready (vu_state_handler(), level-triggered).
 */
static void vu_state_io(void)
{
	struct vu_xfer *x = &vu.xfer;

	while (x->state == VU_XFER_RUNNING) {
		struct devstate st;
		uint32_t ver;
		ssize_t n;
		int rc;

		if (!x->load) {
			n = vu_io_guarded(x->fd, x->buf + x->off,
					  x->len - x->off, true);
			if (n == -EAGAIN)
				return;
			if (n <= 0) {
				warn("vhost-user: device state not sent: %s",
				     n < 0 ? strerror((int)-n) : "no progress");
				vu_state_finish(n < 0 ? (int)-n : EIO);
				return;
			}
			x->off += (size_t)n;
			if (x->off == x->len) {
				info("vhost-user: device state sent (%zu bytes)",
				     x->len);
				vu_state_finish(0);
			}
			continue;
		}

		if (x->len == VU_STATE_BUF) {
			warn("vhost-user: device state refused: longer than %llu bytes",
			     VU_STATE_BUF);
			vu_state_finish(EMSGSIZE);
			return;
		}
		n = vu_io_guarded(x->fd, x->buf + x->len,
				  VU_STATE_BUF - x->len, false);
		if (n == -EAGAIN)
			return;
		if (n < 0) {
			warn("vhost-user: device state read: %s",
			     strerror((int)-n));
			vu_state_finish((int)-n);
			return;
		}
		if (n == 0) {
			rc = vu_state_loaded();
			if (!rc)
				info("vhost-user: device state loaded (%zu bytes)",
				     x->len);
			vu_state_finish(rc);
			return;
		}
		x->len += (size_t)n;
		rc = devstate_parse(x->buf, x->len, false, &st, &ver);
		if (rc && rc != -DEVSTATE_E_MORE) {
			warn("vhost-user: device state refused: %s (version %u)",
			     devstate_err_str[-rc], ver);
			vu_state_finish(rc == -DEVSTATE_E_UNSUPPORTED ? ENOTSUP
								    : EPROTO);
			return;
		}
	}
}

/**
 * vu_state_handler() - The device state channel is ready (main loop)
 *
 * Return: 0
 */
int vu_state_handler(void)
{
	if (vu.xfer.state == VU_XFER_RUNNING)
		vu_state_io();
	return 0;
}

/**
 * vu_set_device_state_fd() - SET_DEVICE_STATE_FD: start a state transfer
 * @m:		Message, checked (direction, phase: u32 each; one fd); the fd
 *		is taken
 * @p:		Its payload, decoded: @p->xfer
 * @reply:	Filled with the u64 reply
 *
 * vhost-user.rst, "Migrating back-end state": direction 0 saves (we write
 * the stream and close: migration source), 1 loads (we read to end of
 * file: destination); phase 0 (stopped) is the only one defined.  We use
 * the front-end's channel, never one of ours: bit 8 of the reply (no fd)
 * is always set, bits 0-7 are 0 if the transfer starts.  Saving asks
 * vu_state_ops->save() first: if it refuses (TCP connections we can't
 * transfer), the reply is an error, the front-end fails the migration
 * before the guest stops running here, and nothing changed.  An unknown
 * direction or phase is refused the same way.  Either way the result is
 * final only at CHECK_DEVICE_STATE.
 *
 * #syscalls:passt fcntl close
 * Return: VU_REPLY (reply in @reply), or -EPROTO if DEVICE_STATE wasn't
 *	   negotiated (drop the front-end)
 */
static int vu_set_device_state_fd(struct vu_msg *m, const union vu_payload *p,
				  struct vu_msg *reply)
{
	uint32_t dir = p->xfer.direction;
	uint32_t phase = p->xfer.phase;
	struct vu_xfer *x = &vu.xfer;
	int fd = m->fds[0], fl, rc;

	if (!(vu.protocol & BIT(VU_PROTOCOL_F_DEVICE_STATE)))
		return -EPROTO;
	m->nfds = 0;
	vu_state_close();
	x->check_pending = false;
	x->fd = fd;
	x->load = dir == VU_STATE_LOAD;
	x->len = x->off = 0;
	x->state = VU_XFER_RUNNING;
	reply->size = 8;

	if ((dir != VU_STATE_SAVE && dir != VU_STATE_LOAD) ||
	    phase != VU_STATE_PHASE_STOPPED) {
		warn("vhost-user: device state transfer refused: direction %u, "
		     "phase %u", dir, phase);
		rc = EINVAL;
		goto fail;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		rc = errno;
		goto fail;
	}
	if (vu_state_buf() < 0) {
		rc = ENOMEM;
		goto fail;
	}
	if (!x->load) {
		struct devstate st = { 0 };

		rc = vu_state_ops && vu_state_ops->save ?
		     vu_state_ops->save(&st, x->buf + DEVSTATE_V2_LEN,
					VU_STATE_BUF - DEVSTATE_V2_LEN) :
		     -ENOTSUP;
		if (rc < 0) {
			rc = -rc;
			goto fail;
		}
		x->len = devstate_encode(&st, x->buf, VU_STATE_BUF);
		if (!x->len) {
			rc = EINVAL;
			goto fail;
		}
	}
	info("vhost-user: migration: %s device state", x->load ? "loading" : "saving");
	vu_state_io();
	if (x->state == VU_XFER_RUNNING && vu_state_watch &&
	    vu_state_watch(x->fd, !x->load, true) < 0) {
		rc = EIO;
		goto fail;
	}
	vu_put_u64(reply->payload, VU_STATE_NOFD);
	return VU_REPLY;

fail:
	vu_state_finish(rc);
	vu_put_u64(reply->payload, VU_STATE_NOFD | VU_STATE_E_FAIL);
	return VU_REPLY;
}

/**
 * vu_check_device_state() - CHECK_DEVICE_STATE: did the transfer succeed?
 * @m:		Message, checked (no payload)
 * @p:		Unused
 * @reply:	Filled with the u64 reply: 0 success, 1 failure
 *
 * The front-end asks once it has seen the whole transfer: for a save,
 * after our end closed; for a load, after it closed its end, which we
 * may not have read to the end yet: then whatever is there is read now,
 * and if the end still isn't reached the answer waits for it
 * (vu_state_finish()).  Without a transfer, the answer is a failure.
 *
 * Return: VU_REPLY (reply in @reply), VU_REPLY_LATER, or -EPROTO if
 *	   DEVICE_STATE wasn't negotiated
 */
static int vu_check_device_state(struct vu_msg *m, const union vu_payload *p,
				 struct vu_msg *reply)
{
	struct vu_xfer *x = &vu.xfer;

	(void)m;
	(void)p;
	if (!(vu.protocol & BIT(VU_PROTOCOL_F_DEVICE_STATE)))
		return -EPROTO;
	if (x->state == VU_XFER_RUNNING)
		vu_state_io();
	if (x->state == VU_XFER_RUNNING) {
		x->check_pending = true;
		return VU_REPLY_LATER;
	}
	reply->size = 8;
	vu_put_u64(reply->payload,
		   x->state == VU_XFER_DONE && !x->result ? 0 : 1);
	x->checked = x->state == VU_XFER_DONE && !x->result;
	return VU_REPLY;
}

/**
 * vu_get_features() - GET_FEATURES: the virtio features we offer
 * @m:		Message, checked (no payload)
 * @p:		Unused
 * @reply:	Filled with the u64 feature bits
 *
 * Return: VU_REPLY
 */
static int vu_get_features(struct vu_msg *m, const union vu_payload *p,
			   struct vu_msg *reply)
{
	(void)m;
	(void)p;
	vu_put_u64(reply->payload, vu_offered);
	reply->size = VU_U64_SIZE;
	return VU_REPLY;
}

/**
 * vu_set_features() - SET_FEATURES: the virtio features the driver took
 * @m:		Message, checked
 * @p:		Its payload, decoded: @p->u64, feature bits
 * @reply:	Unused
 *
 * Return: VU_NO_REPLY, or -EINVAL (drop the front-end) for features we
 *	   never offered or a TSO feature without its checksum feature
 *	   (virtio 1.x 5.1.3.1)
 */
static int vu_set_features(struct vu_msg *m, const union vu_payload *p,
			   struct vu_msg *reply)
{
	uint64_t f = p->u64;

	(void)m;
	(void)reply;
	if ((f & ~vu_offered) || !vu_features_consistent(f))
		return -EINVAL;
	if (f != vu.features)
		info_ratelimit(now_ms(), "vhost-user: features 0x%llx%s%s", (unsigned long long)f,
		     (f & BIT(VIRTIO_NET_F_GUEST_TSO4)) ?
		     ", TSO to the guest" : "",
		     (f & BIT(VIRTIO_NET_F_HOST_TSO4)) ?
		     ", TSO from the guest" : "");
	vu.features = f;
	vu.hdr_len = (vu_has(VIRTIO_F_VERSION_1) ||
		      vu_has(VIRTIO_NET_F_MRG_RXBUF)) ?
		     sizeof(struct virtio_net_hdr_mrg_rxbuf) :
		     sizeof(struct virtio_net_hdr);
	return VU_NO_REPLY;
}

/**
 * vu_get_protocol_features() - GET_PROTOCOL_FEATURES: the ones we offer
 * @m:		Message, checked (no payload)
 * @p:		Unused
 * @reply:	Filled with the u64 protocol feature bits
 *
 * Return: VU_REPLY
 */
static int vu_get_protocol_features(struct vu_msg *m,
				    const union vu_payload *p,
				    struct vu_msg *reply)
{
	(void)m;
	(void)p;
	vu_put_u64(reply->payload, VU_PROTOCOL_FEATURES);
	reply->size = VU_U64_SIZE;
	return VU_REPLY;
}

/**
 * vu_set_protocol_features() - SET_PROTOCOL_FEATURES: the ones taken
 * @m:		Message, checked
 * @p:		Its payload, decoded: @p->u64, protocol feature bits
 * @reply:	Unused
 *
 * Return: VU_NO_REPLY, or -EINVAL (drop the front-end) for protocol
 *	   features we never offered
 */
static int vu_set_protocol_features(struct vu_msg *m,
				    const union vu_payload *p,
				    struct vu_msg *reply)
{
	(void)m;
	(void)reply;
	if (p->u64 & ~(uint64_t)VU_PROTOCOL_FEATURES)
		return -EINVAL;
	vu.protocol = p->u64;
	return VU_NO_REPLY;
}

/**
 * vu_get_queue_num() - GET_QUEUE_NUM: how many queue pairs we have
 * @m:		Message, checked (no payload)
 * @p:		Unused
 * @reply:	Filled with the u64 count
 *
 * Return: VU_REPLY
 */
static int vu_get_queue_num(struct vu_msg *m, const union vu_payload *p,
			    struct vu_msg *reply)
{
	(void)m;
	(void)p;
	vu_put_u64(reply->payload, VU_QUEUES / 2);
	reply->size = VU_U64_SIZE;
	return VU_REPLY;
}

/**
 * vu_ignore() - SET_OWNER, SET_LOG_FD: taken, nothing to do
 * @m:		Message, checked; its fd, if any, is closed by the caller
 * @p:		Unused
 * @reply:	Unused
 *
 * SET_OWNER only marks the session as started.  SET_LOG_FD brings an
 * eventfd to tell the front-end the log changed: optional (vhost-user.rst,
 * "Migration"); it reads the log anyway.
 *
 * Return: VU_NO_REPLY
 */
static int vu_ignore(struct vu_msg *m, const union vu_payload *p,
		     struct vu_msg *reply)
{
	(void)m;
	(void)p;
	(void)reply;
	return VU_NO_REPLY;
}

/**
 * vu_reset_owner() - RESET_OWNER: stop and forget the queues and features
 * @m:		Message, checked (no payload)
 * @p:		Unused
 * @reply:	Unused
 *
 * Return: VU_NO_REPLY
 */
static int vu_reset_owner(struct vu_msg *m, const union vu_payload *p,
			  struct vu_msg *reply)
{
	unsigned i;

	(void)m;
	(void)p;
	(void)reply;
	for (i = 0; i < VU_QUEUES; i++)
		vu_queue_reset(i);
	vu.features = 0;
	vu.rx_full = vu.tx_more = false;
	return VU_NO_REPLY;
}

/**
 * vu_set_vring_num() - SET_VRING_NUM: a queue's size
 * @m:		Message, checked
 * @p:		Its payload, decoded: @p->state, queue index and size
 * @reply:	Unused
 *
 * Return: VU_NO_REPLY, or -EINVAL (drop the front-end) for a size that
 *	   is 0, above VQ_SIZE_MAX or not a power of two (virtio 1.x 2.7),
 *	   or a queue that runs
 */
static int vu_set_vring_num(struct vu_msg *m, const union vu_payload *p,
			    struct vu_msg *reply)
{
	const struct vhost_vring_state *st = &p->state;
	struct vu_queue *q = &vu.q[st->index];

	(void)m;
	(void)reply;
	if (!st->num || st->num > VQ_SIZE_MAX || (st->num & (st->num - 1)) ||
	    q->started)
		return -EINVAL;
	q->vq.num = st->num;
	return VU_NO_REPLY;
}

/**
 * vu_set_vring_addr() - SET_VRING_ADDR: where a queue's rings are
 * @m:		Message, checked
 * @p:		Its payload, decoded: @p->addr, front-end addresses
 * @reply:	Unused
 *
 * Return: VU_NO_REPLY, or -errno (drop the front-end) if the rings are
 *	   not inside guest memory
 */
static int vu_set_vring_addr(struct vu_msg *m, const union vu_payload *p,
			     struct vu_msg *reply)
{
	const struct vhost_vring_addr *a = &p->addr;
	struct vu_queue *q = &vu.q[a->index];

	(void)m;
	(void)reply;
	q->log_used = !!(a->flags & BIT(VHOST_VRING_F_LOG));
	q->log_gpa = a->log_guest_addr;
	q->vq.desc_uva = a->desc_user_addr;
	q->vq.used_uva = a->used_user_addr;
	q->vq.avail_uva = a->avail_user_addr;
	q->addr_set = true;
	if (q->started)
		return vq_map(&q->vq, &vu.mem);
	return vu_queue_try_start(a->index);
}

/**
 * vu_set_vring_base() - SET_VRING_BASE: the next available index to read
 * @m:		Message, checked
 * @p:		Its payload, decoded: @p->state, queue index and ring index
 * @reply:	Unused
 *
 * Return: VU_NO_REPLY, or -EINVAL (drop the front-end) for a queue that
 *	   runs or an index beyond 16 bits
 */
static int vu_set_vring_base(struct vu_msg *m, const union vu_payload *p,
			     struct vu_msg *reply)
{
	const struct vhost_vring_state *st = &p->state;
	struct vu_queue *q = &vu.q[st->index];

	(void)m;
	(void)reply;
	if (q->started || st->num > UINT16_MAX)
		return -EINVAL;
	q->vq.last_avail = (uint16_t)st->num;
	return VU_NO_REPLY;
}

/**
 * vu_get_vring_base() - GET_VRING_BASE: stop a queue, tell where it was
 * @m:		Message, checked
 * @p:		Its payload, decoded: @p->state, queue index
 * @reply:	Filled with a vring state: queue index, next available
 *		index we would have read
 *
 * Return: VU_REPLY
 */
static int vu_get_vring_base(struct vu_msg *m, const union vu_payload *p,
			     struct vu_msg *reply)
{
	struct vhost_vring_state st = { .index = htole32(p->state.index) };

	(void)m;
	vu_queue_stop(p->state.index);
	st.num = htole32(vu.q[p->state.index].vq.last_avail);
	memcpy(reply->payload, &st, sizeof(st));
	reply->size = sizeof(st);
	return VU_REPLY;
}

/**
 * vu_set_vring_enable() - SET_VRING_ENABLE: a queue may run, or not
 * @m:		Message, checked
 * @p:		Its payload, decoded: @p->state, queue index and 0 or 1
 * @reply:	Unused
 *
 * Return: VU_NO_REPLY
 */
static int vu_set_vring_enable(struct vu_msg *m, const union vu_payload *p,
			       struct vu_msg *reply)
{
	(void)m;
	(void)reply;
	vu.q[p->state.index].enabled = !!p->state.num;
	return VU_NO_REPLY;
}

/**
 * struct vu_handler - What to do with one request
 * @name:	Its name in vhost-user.rst, without "VHOST_USER_"
 * @payload:	What its payload holds, decoded before @fn runs
 * @fn:		Handler: the message (vu_msg_check() passed), its decoded
 *		payload and the reply to fill; returns an enum vu_result,
 *		or -errno to drop the front-end
 */
struct vu_handler {
	const char *name;
	enum vu_payload_type payload;
	int (*fn)(struct vu_msg *m, const union vu_payload *p,
		  struct vu_msg *reply);
};

/* Requests we take, by number (vhost-user.rst, "Front-end message types");
 * any other is refused
 */
static const struct vu_handler vu_handlers[VU_REQUEST_MAX] = {
	[VU_GET_FEATURES] = { "GET_FEATURES",
		VU_PAYLOAD_NONE, vu_get_features },
	[VU_SET_FEATURES] = { "SET_FEATURES",
		VU_PAYLOAD_U64, vu_set_features },
	[VU_SET_OWNER] = { "SET_OWNER",
		VU_PAYLOAD_NONE, vu_ignore },
	[VU_RESET_OWNER] = { "RESET_OWNER",
		VU_PAYLOAD_NONE, vu_reset_owner },
	[VU_SET_MEM_TABLE] = { "SET_MEM_TABLE",
		VU_PAYLOAD_MEM, vu_set_mem_table },
	[VU_SET_LOG_BASE] = { "SET_LOG_BASE",
		VU_PAYLOAD_LOG, vu_set_log_base },
	[VU_SET_LOG_FD] = { "SET_LOG_FD",
		VU_PAYLOAD_NONE, vu_ignore },
	[VU_SET_VRING_NUM] = { "SET_VRING_NUM",
		VU_PAYLOAD_STATE, vu_set_vring_num },
	[VU_SET_VRING_ADDR] = { "SET_VRING_ADDR",
		VU_PAYLOAD_ADDR, vu_set_vring_addr },
	[VU_SET_VRING_BASE] = { "SET_VRING_BASE",
		VU_PAYLOAD_STATE, vu_set_vring_base },
	[VU_GET_VRING_BASE] = { "GET_VRING_BASE",
		VU_PAYLOAD_STATE, vu_get_vring_base },
	[VU_SET_VRING_KICK] = { "SET_VRING_KICK",
		VU_PAYLOAD_U64, vu_set_vring_fd },
	[VU_SET_VRING_CALL] = { "SET_VRING_CALL",
		VU_PAYLOAD_U64, vu_set_vring_fd },
	[VU_SET_VRING_ERR] = { "SET_VRING_ERR",
		VU_PAYLOAD_U64, vu_set_vring_fd },
	[VU_GET_PROTOCOL_FEATURES] = { "GET_PROTOCOL_FEATURES",
		VU_PAYLOAD_NONE, vu_get_protocol_features },
	[VU_SET_PROTOCOL_FEATURES] = { "SET_PROTOCOL_FEATURES",
		VU_PAYLOAD_U64, vu_set_protocol_features },
	[VU_GET_QUEUE_NUM] = { "GET_QUEUE_NUM",
		VU_PAYLOAD_NONE, vu_get_queue_num },
	[VU_SET_VRING_ENABLE] = { "SET_VRING_ENABLE",
		VU_PAYLOAD_STATE, vu_set_vring_enable },
	[VU_SET_DEVICE_STATE_FD] = { "SET_DEVICE_STATE_FD",
		VU_PAYLOAD_XFER, vu_set_device_state_fd },
	[VU_CHECK_DEVICE_STATE] = { "CHECK_DEVICE_STATE",
		VU_PAYLOAD_NONE, vu_check_device_state },
};

/**
 * vu_handler() - The handler of a request
 * @req:	Request number, any value the front-end sent
 *
 * Return: its entry of vu_handlers[], NULL if we don't take it
 */
static const struct vu_handler *vu_handler(uint32_t req)
{
	if (req >= ARRAY_SIZE(vu_handlers) || !vu_handlers[req].fn)
		return NULL;
	return &vu_handlers[req];
}

/**
 * vu_msg_handle() - Act on a checked message
 * @m:		Message (vu_msg_check() passed); fds it brings are taken or
 *		closed
 * @reply:	Filled with the reply payload if the return value is
 *		VU_REPLY
 *
 * Return: enum vu_result (a request we don't take: VU_REFUSED), or
 *	   -errno to drop the front-end
 */
static int vu_msg_handle(struct vu_msg *m, struct vu_msg *reply)
{
	const struct vu_handler *h = vu_handler(m->req);
	union vu_payload p;
	int rc = VU_REFUSED;	/* well-formed, not supported */

	reply->req = m->req;
	reply->flags = VU_FLAG_VERSION | VU_FLAG_REPLY;
	reply->size = 0;
	reply->nfds = 0;

	if (h) {
		vu_payload_decode(m, h->payload, &p);
		rc = h->fn(m, &p, reply);
	}
	vu_msg_close_fds(m);
	return rc;
}

/**
 * vu_send() - Send a message to the front-end
 * @m:		Message
 *
 * #syscalls:passt sendto
 * Return: 0, or -errno (-EAGAIN counts as an error: replies are small
 *	   and the front-end waits for them)
 */
static int vu_send(const struct vu_msg *m)
{
	uint8_t buf[VU_HDR_SIZE + VU_PAYLOAD_MAX];
	uint32_t h[3] = { htole32(m->req), htole32(m->flags),
			  htole32(m->size) };
	size_t len = VU_HDR_SIZE + m->size;
	ssize_t n;

	memcpy(buf, h, VU_HDR_SIZE);
	memcpy(buf + VU_HDR_SIZE, m->payload, m->size);
	do
		n = send(vu.fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/**
 * vu_dispatch() - Check, handle and answer the message in vu.in
 *
 * Return: 0, or -errno to drop the front-end
 */
static int vu_dispatch(void)
{
	static struct vu_msg reply;
	struct vu_msg *m = &vu.in;
	bool ack = (vu.protocol & BIT(VU_PROTOCOL_F_REPLY_ACK)) &&
		   (m->flags & VU_FLAG_NEED_REPLY);
	uint32_t req = m->req;
	int rc;

	vu_stats.msgs++;
	debug("vhost-user: request %u, flags 0x%x, %u bytes, %u fds", m->req,
	      m->flags, m->size, m->nfds);
	if (vu_msg_check(m)) {
		warn_ratelimit(now_ms(), "vhost-user: malformed message (request %u, %u bytes, "
		     "%u fds), dropping the front-end", m->req, m->size,
		     m->nfds);
		vu_msg_close_fds(m);
		vu_stats.frontends_dropped++;
		return -EBADMSG;
	}
	rc = vu_msg_handle(m, &reply);
	if (rc < 0) {
		vu_stats.frontends_dropped++;
		warn_ratelimit(now_ms(), "vhost-user: request %u failed: %s, dropping the "
		     "front-end", req, strerror(-rc));
		return rc;
	}
	if (rc == VU_REPLY_LATER)
		return 0;	/* vu_state_finish() answers */
	if (rc == VU_REFUSED) {
		vu_stats.refused++;
		info_ratelimit(now_ms(), "vhost-user: request %u not supported, refused", req);
	}
	if (rc == VU_REPLY && req == VU_CHECK_DEVICE_STATE && vu.xfer.checked) {
		vu.xfer.checked = false;
		if ((rc = vu_send(&reply)) < 0)
			return rc;
		vu_state_checked();
		return 0;
	}
	if (rc == VU_REPLY)
		return vu_send(&reply);
	if (ack) {
		reply.size = 8;
		vu_put_u64(reply.payload, rc == VU_REFUSED ? 1 : 0);
		return vu_send(&reply);
	}
	return 0;
}

/**
 * vu_cmd_handler() - Read and handle messages from the front-end
 *
 * Reads exactly what the message being received still needs (header
 * first, then the payload it announces), with any SCM_RIGHTS fds; each
 * complete message is handled at once, so a message split across reads,
 * or many in one, come out the same.
 *
 * Context: main loop, on EPOLLIN of the front-end's socket
 * #syscalls:passt recvmsg close
 * Return: 0, or -errno to drop the front-end (-EPIPE: it left)
 */
int vu_cmd_handler(void)
{
	for (;;) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * VU_FDS_MAX)];
			struct cmsghdr align;
		} u;
		struct msghdr mh = { .msg_control = u.buf,
				     .msg_controllen = sizeof(u.buf) };
		struct cmsghdr *cm;
		struct iovec iov;
		size_t need;
		ssize_t n;
		int rc;

		if (vu_msg_need(vu.in_hdr, vu.in_len, &need) < 0)
			return -EMSGSIZE;	/* not reached: checked below */
		if (vu.in_len < VU_HDR_SIZE)
			iov.iov_base = vu.in_hdr + vu.in_len;
		else
			iov.iov_base = vu.in.payload +
				       (vu.in_len - VU_HDR_SIZE);
		iov.iov_len = need;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;

		n = recvmsg(vu.fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0)
			return (errno == EAGAIN || errno == EINTR) ? 0 : -errno;
		if (n == 0)
			return -EPIPE;

		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			unsigned k, nf;

			if (cm->cmsg_level != SOL_SOCKET ||
			    cm->cmsg_type != SCM_RIGHTS)
				continue;
			nf = (unsigned)((cm->cmsg_len - CMSG_LEN(0)) /
					sizeof(int));
			for (k = 0; k < nf; k++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm) + k * sizeof(int),
				       sizeof(int));
				if (vu.in.nfds < VU_FDS_MAX)
					vu.in.fds[vu.in.nfds++] = fd;
				else
					close(fd);
			}
		}
		if (mh.msg_flags & MSG_CTRUNC) {
			warn_ratelimit(now_ms(), "vhost-user: too many fds in a message, "
			     "dropping the front-end");
			return -EBADMSG;
		}

		vu.in_len += (size_t)n;
		if (vu.in_len == VU_HDR_SIZE) {
			uint32_t h[3];

			if (vu_msg_need(vu.in_hdr, vu.in_len, &need) < 0) {
				warn_ratelimit(now_ms(), "vhost-user: message of more than %u "
				     "bytes, dropping the front-end",
				     VU_PAYLOAD_MAX);
				return -EMSGSIZE;
			}
			memcpy(h, vu.in_hdr, VU_HDR_SIZE);
			vu.in.req = le32toh(h[0]);
			vu.in.flags = le32toh(h[1]);
			vu.in.size = le32toh(h[2]);
		}
		if (vu.in_len < VU_HDR_SIZE + vu.in.size ||
		    vu.in_len < VU_HDR_SIZE)
			continue;

		rc = vu_dispatch();
		vu_msg_close_fds(&vu.in);
		vu.in_len = 0;
		if (rc < 0)
			return rc;
	}
}

/**
 * vu_signal() - Interrupt the guest for a queue, if it wants one
 * @i:		Queue index
 *
 * Adds 1 to the call eventfd without ever blocking (vu_efd_write()).  A
 * counter with no room left means interrupts are pending that nobody took
 * yet: one more adds nothing, and the write is skipped.  After such a
 * write, later ones first check for room (poll(2), POLLOUT: an eventfd is
 * writable while its counter is below 0xfffffffffffffffe, eventfd(2)), so
 * that a front-end that keeps its counter full and clears O_NONBLOCK costs
 * us one VU_WRITE_GUARD_US wait, not one per interrupt.
 *
 * #syscalls:passt poll ppoll
 */
static void vu_signal(unsigned i)
{
	struct vu_queue *q = &vu.q[i];

	if (q->call_fd < 0 || !vq_want_interrupt(&q->vq))
		return;
	if (q->call_full) {
		struct pollfd p = { .fd = q->call_fd, .events = POLLOUT };

		if (poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT))
			return;		/* still full: still pending */
		q->call_full = false;
	}
	switch (vu_efd_write(q->call_fd, 1)) {
	case 0:
		vu_stats.calls++;
		break;
	case -EAGAIN:
		q->call_full = true;
		break;
	default:
		break;
	}
}

/**
 * vu_kick_handler() - A queue's kick eventfd fired
 * @queue:	Queue index
 *
 * The eventfd is watched edge-triggered (passt/passt.c: vhost_watch()):
 * each write to it wakes us once, whatever its counter holds (epoll(7)),
 * so one read per wake-up is enough, and none at all would do.  That read
 * must not block, but O_NONBLOCK is the front-end's to clear on the file
 * we share (fcntl(2)): it's made with preadv2(2) and RWF_NOWAIT, which
 * eventfd honours since Linux 5.12 (EAGAIN when the counter is zero);
 * before that, RWF_NOWAIT fails with EOPNOTSUPP, and nothing is read.  An
 * EFD_SEMAPHORE eventfd, whose reads take 1 each (eventfd(2)), costs one
 * read per wake-up too: a counter of 2^62 doesn't keep us busy.
 *
 * Context: main loop.  For queue 1 the caller reads frames (tap_rx());
 * for queue 0 new buffers let blocked senders go on.
 * #syscalls:passt preadv2
 * Return: 0, -EBADF if @queue isn't started, -EBADMSG if its available
 *	   index is broken (logged, vu_broken(): drop the front-end)
 */
int vu_kick_handler(unsigned queue)
{
	uint64_t v;
	struct iovec iov = { .iov_base = &v, .iov_len = sizeof(v) };

	if (queue >= VU_QUEUES || vu.q[queue].kick_fd < 0)
		return -EBADF;
	if (preadv2(vu.q[queue].kick_fd, &iov, 1, -1, RWF_NOWAIT) < 0 &&
	    errno != EAGAIN && errno != EOPNOTSUPP)
		debug("vhost-user: queue %u: kick read: %s", queue,
		      strerror(errno));
	vu_stats.kicks++;
	if (queue == 0)
		vu.rx_full = false;

	/* A driver kicks after adding buffers.  Rings that still show
	 * none after several kicks, and never did, are ones whose memory we
	 * don't share: the guest's RAM isn't a shared mapping (QEMU's
	 * memory-backend-memfd without share=on), which nothing else would
	 * tell the user.  QEMU kicks each queue once as it starts it, before
	 * the guest's driver has added anything: those don't count
	 */
	if (!vu.had_buffers && vu.q[queue].vq.avail) {
		int n = vq_avail_count(&vu.q[queue].vq);

		if (n < 0)	/* more than the queue holds */
			return vu_ring_broken(queue, -VQ_E_HEAD);
		if (n > 0 || vu.q[queue].vq.last_avail)
			vu.had_buffers = true;
		else if (++vu.empty_kicks == VU_EMPTY_KICKS_WARN)
			warn("vhost-user: the guest kicks its queues but we "
			     "see no buffers in them: is its RAM shared with "
			     "us (memory-backend-memfd,share=on; libvirt: "
			     "<memoryBacking><access mode='shared'/>)?");
	}
	return 0;
}

/**
 * vu_ring_broken() - Log a broken ring; the caller drops the front-end
 * @i:		Queue index
 * @err:	Negative enum vq_err
 *
 * Return: -EBADMSG
 */
static int vu_ring_broken(unsigned i, int err)
{
	if (vu_broken())	/* memory gone (SIGBUS): logged as such */
		return -EBADMSG;
	warn_ratelimit(now_ms(), "vhost-user: queue %u: %s, dropping the front-end", i,
	     vq_err_str[-err < VQ_E_COUNT ? -err : 0]);
	vu.broken = true;
	vu_stats.frontends_dropped++;
	return -EBADMSG;
}

/**
 * vu_frames_from_guest() - Take frames the guest queued on its transmitq
 * @frame:	Filled with pointers to each frame (Ethernet header), valid
 *		until the next call
 * @len:	Filled with their lengths, bytes
 * @gso:	Filled with the gso_size of each UDP super-frame
 *		(VIRTIO_NET_HDR_GSO_UDP_L4, VIRTIO_NET_F_HOST_USO), bytes; 0
 *		for any other frame (a TCP super-frame is taken whole)
 * @max:	Room in @frame, @len and @gso
 *
 * Frames are copied out of guest memory (past the virtio-net header) and
 * their chains returned to the guest at once, with one interrupt.  A
 * header vnet_hdr_in_check() refuses drops its frame (vu_stats.rx_bad_gso).
 *
 * Return: frames, or -EBADMSG if the ring is broken (drop the front-end)
 */
int vu_frames_from_guest(const uint8_t **frame, size_t *len, uint16_t *gso,
			 unsigned max)
{
	struct vq *q = &vu.q[1].vq;
	bool indirect = vu_has(VIRTIO_RING_F_INDIRECT_DESC);
	struct vq_chain *ch = &vu_chains[0];
	size_t used = 0;
	unsigned n = 0;
	int rc = 0;

	vu.tx_more = false;
	if (!vu_ready())
		return 0;

	while (n < max && VU_RXBUF - used >= ROUND_UP(FRAME_MAX, 64)) {
		struct virtio_net_hdr h;
		size_t flen;

		rc = vq_pop(q, &vu.mem, indirect, ch);
		if (rc <= 0)
			break;
		vu_used_add(1, ch->head, 0);
		if (ch->n_in || ch->len_out < vu.hdr_len + ETH_HLEN ||
		    ch->len_out - vu.hdr_len > FRAME_MAX) {
			vu_stats.rx_bad_len++;
			continue;
		}
		/* Header and frame copied once: the guest may change both */
		iov_copy_from(&h, sizeof(h), ch->iov, ch->n_out, 0);
		flen = iov_copy_from(vu_rxbuf + used, ch->len_out - vu.hdr_len,
				     ch->iov, ch->n_out, vu.hdr_len);
		h.hdr_len = le16toh(h.hdr_len);
		h.gso_size = le16toh(h.gso_size);
		h.csum_start = le16toh(h.csum_start);
		h.csum_offset = le16toh(h.csum_offset);
		if (vnet_hdr_in_check(&h, vu_rxbuf + used, flen,
				      vu_has(VIRTIO_NET_F_HOST_TSO4),
				      vu_has(VIRTIO_NET_F_HOST_TSO6),
				      vu_has(VIRTIO_NET_F_HOST_USO))) {
			vu_stats.rx_bad_gso++;
			continue;
		}
		frame[n] = vu_rxbuf + used;
		len[n] = flen;
		gso[n] = h.gso_type == VNET_GSO_UDP_L4 ? h.gso_size : 0;
		used += ROUND_UP(flen, 64);
		n++;
	}
	if (q->used_pend) {
		vu_used_publish(1);
		vu_signal(1);
	}
	if (rc < 0)
		return vu_ring_broken(1, rc);
	if (rc > 0) {
		int more = vq_avail_count(q);

		if (more < 0)	/* the guest moved it past the queue size */
			return vu_ring_broken(1, -VQ_E_HEAD);
		vu.tx_more = more > 0;
	}
	return (int)n;
}

/**
 * vu_frame_to_guest() - Copy one frame into receive buffers
 * @src:	Frame pieces, the first starting at the Ethernet header
 * @nsrc:	Entries of @src
 * @flen:	Frame length, bytes
 * @csum:	csum_start << 16 | csum_offset, 0 if checksums are complete
 * @gso:	Segment size of a TCP super-frame (tap_tx_gso()) or a UDP
 *		one (tap_tx_uso()), 0 if none
 *
 * Return: 1 if written, 0 if the queue ran out of buffers (nothing taken),
 *	   -1 if the frame can't fit (in one chain without MRG_RXBUF, in
 *	   VU_RX_CHAINS, or in every buffer the ring can hold; nothing
 *	   taken), -2 if the ring is broken (logged)
 */
static int vu_frame_to_guest(const struct iovec *src, unsigned nsrc,
			     size_t flen, uint32_t csum, uint16_t gso)
{
	struct virtio_net_hdr_mrg_rxbuf h = { 0 };
	bool mrg = vu_has(VIRTIO_NET_F_MRG_RXBUF);
	bool indirect = vu_has(VIRTIO_RING_F_INDIRECT_DESC);
	size_t need = vu.hdr_len + flen, got = 0, done, sofs;
	struct vq *q = &vu.q[0].vq;
	unsigned nb = 0, j, s;
	int rc;

	while (got < need) {
		if (nb == VU_RX_CHAINS) {
			vq_unpop(q, nb);
			return -1;
		}
		rc = vq_pop(q, &vu.mem, indirect, &vu_chains[nb]);
		if (rc == 0) {
			vq_unpop(q, nb);
			/* All the ring holds is too little: it never fits */
			return nb >= q->num ? -1 : 0;
		}
		if (rc < 0) {
			vu_ring_broken(0, rc);
			return -2;
		}
		if (vu_chains[nb].n_out) {
			q->broken = true;
			vu_ring_broken(0, -VQ_E_ORDER);
			return -2;
		}
		got += vu_chains[nb++].len_in;
		if (!mrg && got < need) {
			vq_unpop(q, nb);
			return -1;
		}
	}

	/* 5.1.6.4.1: flags zero without GUEST_CSUM, no GSO type without
	 * GUEST_TSO4/6 or GUEST_USO4/6 (tap_tx_gso() and tap_tx_uso() mark
	 * nothing then)
	 */
	if ((csum & 0xffff) == UDP_CSUM_OFF ? !vu_uso_negotiated() :
					      !vu_tso_negotiated())
		gso = 0;
	vnet_hdr_out(&h.hdr, src[0].iov_base, src[0].iov_len, flen,
		     vu_guest_csum() ? csum : 0, gso);
	h.hdr.hdr_len = htole16(h.hdr.hdr_len);
	h.hdr.gso_size = htole16(h.hdr.gso_size);
	h.hdr.csum_start = htole16(h.hdr.csum_start);
	h.hdr.csum_offset = htole16(h.hdr.csum_offset);
	h.num_buffers = htole16((uint16_t)nb);

	/* Header, then the frame's pieces, across the chains in order */
	s = 0;
	sofs = 0;
	for (j = 0; j < nb; j++) {
		struct vq_chain *c = &vu_chains[j];
		size_t off = 0;

		if (!j)
			off = iov_copy_to(c->iov, c->n_in, 0, &h, vu.hdr_len);
		while (s < nsrc && off < c->len_in) {
			done = iov_copy_to(c->iov, c->n_in, off,
					   (const uint8_t *)src[s].iov_base +
					   sofs, src[s].iov_len - sofs);
			off += done;
			sofs += done;
			if (sofs == src[s].iov_len) {
				s++;
				sofs = 0;
			}
		}
		if (vu_logging())
			vu_log_count(vu_log_iov(&vu.log, &vu.mem, c->iov,
						c->n_in, off));
		vu_used_add(0, c->head, (uint32_t)off);
	}
	return 1;
}

/**
 * vu_frames_to_guest() - Write queued frames into the guest's receiveq
 * @iov:	Frame pieces of the whole flush (tap/tap.c's arena iovecs)
 * @first:	First iovec of each frame
 * @niov:	iovecs of each frame
 * @csum:	Checksum offload per frame (csum_start << 16 | offset)
 * @gso:	Segment size per frame, 0 if it's not a super-frame
 * @n:		Frames
 * @dropped:	Set true for each frame not written (the caller tells its
 *		sender), false for the others
 *
 * Frames go in order; at the first one that finds no buffer, it and the
 * rest are not written, and vu_rx_full() is true until the guest kicks.
 * A frame larger than one buffer without MRG_RXBUF, or than the whole
 * ring, is dropped alone; if it was a super-frame, TSO (or, for UDP, USO)
 * to the guest stops (vu_guest_tso(), vu_guest_uso()), so that its
 * sender's retransmission (later UDP runs) comes in frames of one segment
 * instead of failing again.  A broken ring drops
 * everything (vu_ready() is false from then on).
 */
void vu_frames_to_guest(const struct iovec *iov, const uint16_t *first,
			const uint8_t *niov, const uint32_t *csum,
			const uint16_t *gso, unsigned n, bool *dropped)
{
	struct vq *q = &vu.q[0].vq;
	unsigned i, written = 0;
	bool stop = !vu_ready();

	for (i = 0; i < n; i++) {
		const struct iovec *v = &iov[first[i]];
		size_t flen = 0;
		unsigned k;
		int rc;

		dropped[i] = true;
		if (stop)
			continue;
		for (k = 0; k < niov[i]; k++)
			flen += v[k].iov_len;
		rc = vu_frame_to_guest(v, niov[i], flen, csum[i], gso[i]);
		if (rc == 1) {
			dropped[i] = false;
			written++;
		} else if (rc == 0) {
			vu.rx_full = true;
			vu_stats.rx_full++;
			stop = true;
		} else if (rc == -2) {
			stop = true;
		} else if (gso[i] && (csum[i] & 0xffff) == UDP_CSUM_OFF) {
			if (!vu.uso_off)
				info("vhost-user: the guest's receive buffers can't hold "
				     "a %zu-byte frame: no more USO to it", flen);
			vu.uso_off = true;
		} else if (gso[i] && !vu.tso_off) {
			info("vhost-user: the guest's receive buffers can't hold "
			     "a %zu-byte frame: no more TSO to it", flen);
			vu.tso_off = true;
		}
	}
	if (written && vq_ready(q)) {
		vu_used_publish(0);
		vu_signal(0);
	}
}

/**
 * vu_stats_print() - Print the counters of vhost-user (--stats, SIGUSR1),
 *		      if a front-end ever sent a message
 */
void vu_stats_print(void)
{
	if (vu_stats.msgs)
		info_always("stats: vhost-user messages %lu, refused %lu, front-ends dropped %lu (memory shrunk %lu), receive queue full %lu, bad guest frames %lu, bad guest virtio-net headers %lu, kicks %lu, interrupts %lu",
			    vu_stats.msgs, vu_stats.refused,
			    vu_stats.frontends_dropped, vu_stats.shrunk,
			    vu_stats.rx_full, vu_stats.rx_bad_len,
			    vu_stats.rx_bad_gso, vu_stats.kicks,
			    vu_stats.calls);
}

/**
 * vu_snapshot() - Hitless restart, old process: the device's state
 * @s:		Filled: features, memory table with each region's file, each
 *		queue's addresses, indices, flags and eventfds (descriptors
 *		are ours, still open: the caller sends copies)
 *
 * Taken between two batches of the main loop, after tap_flush(): no chain
 * is in flight (frames from the guest are copied and their chains returned
 * in the same batch, frames to it published), so the rings' state is
 * all in the indices.  Used entries not yet published are published here.
 *
 * Return: NULL, or why the device can't be handed over now (a message
 *	   half received, a migration's dirty-page log or device state
 *	   transfer running, a broken ring)
 */
const char *vu_snapshot(struct vu_snap *s)
{
	unsigned i;

	memset(s, 0, sizeof(*s));
	if (vu.fd < 0)
		return "no front-end";
	if (vu.in_len || vu.in.nfds)
		return "a vhost-user message is half received";
	/* A log left mapped after logging stopped isn't handed over: the
	 * front-end sends SET_LOG_BASE again when it starts logging
	 */
	if (vu_logging() || vu.xfer.state == VU_XFER_RUNNING || vu.xfer.buf)
		return "a migration runs (dirty-page log or device state)";
	if (vu.broken || vu_sigbus_hit)
		return "the front-end is being dropped";

	s->features = vu.features;
	s->protocol = vu.protocol;
	s->rx_full = vu.rx_full;
	s->tso_off = vu.tso_off;
	s->uso_off = vu.uso_off;
	s->had_buffers = vu.had_buffers;
	s->nregions = (uint8_t)vu.mem.n;
	for (i = 0; i < vu.mem.n; i++) {
		s->r[i].gpa = vu.mem.r[i].gpa;
		s->r[i].size = vu.mem.r[i].size;
		s->r[i].uva = vu.mem.r[i].uva;
		s->r[i].off = vu.map[i].off;
		s->r[i].fd = vu.map[i].fd;
	}
	for (; i < VU_REGIONS_MAX; i++)
		s->r[i].fd = -1;
	for (i = 0; i < VU_QUEUES; i++) {
		struct vu_queue *q = &vu.q[i];
		struct vu_snap_queue *sq = &s->q[i];

		vu_used_publish(i);
		sq->num = q->vq.num;
		sq->desc = q->vq.desc_uva;
		sq->avail = q->vq.avail_uva;
		sq->used = q->vq.used_uva;
		sq->log_gpa = q->log_gpa;
		sq->last_avail = q->vq.last_avail;
		sq->used_idx = q->vq.used_idx;
		sq->addr_set = q->addr_set;
		sq->enabled = q->enabled;
		sq->started = q->started;
		sq->log_used = q->log_used;
		sq->kick = q->kick_fd;
		sq->call = q->call_fd;
		sq->err = q->err_fd;
	}
	return NULL;
}

/**
 * vu_snap_check() - Hitless restart, new process: is a state consistent?
 * @s:		State received (descriptors not looked at)
 *
 * What the front-end's messages would have been checked for: features we
 * offer and that fit together, a memory table vu_mem_check() takes, queue
 * sizes that are powers of 2 up to VQ_SIZE_MAX, a started queue with its
 * addresses set.  Rings are translated by vu_resume() (vq_map()), once
 * the memory is mapped.
 *
 * Return: 0, or -EINVAL
 */
int vu_snap_check(const struct vu_snap *s)
{
	struct vu_mem mem = { .n = s->nregions };
	unsigned i;

	if ((s->features & ~vu_offered) || !vu_features_consistent(s->features) ||
	    (s->protocol & ~(uint64_t)VU_PROTOCOL_FEATURES) ||
	    s->nregions > VU_REGIONS_MAX)
		return -EINVAL;
	for (i = 0; i < s->nregions; i++) {
		mem.r[i].gpa = s->r[i].gpa;
		mem.r[i].size = s->r[i].size;
		mem.r[i].uva = s->r[i].uva;
		if (s->r[i].off + s->r[i].size < s->r[i].off ||
		    s->r[i].off + s->r[i].size > SIZE_MAX)
			return -EINVAL;
	}
	if (s->nregions && vu_mem_check(&mem))
		return -EINVAL;
	for (i = 0; i < VU_QUEUES; i++) {
		const struct vu_snap_queue *sq = &s->q[i];

		if (sq->num > VQ_SIZE_MAX || (sq->num & (sq->num - 1)) ||
		    (sq->started && (!sq->num || !sq->addr_set ||
				     !s->nregions)))
			return -EINVAL;
	}
	return 0;
}

/**
 * vu_resume() - Hitless restart, new process: take the device over
 * @fd:		The front-end's connected socket, non-blocking
 * @s:		State, vu_snap_check() passed; descriptors are ours now
 *		(-1 where there was none): taken here, closed on failure
 *
 * The memory is mapped from the same files, the queues go on from the
 * same indices with the same eventfds: the front-end sees nothing.  Each
 * started queue's kick eventfd gets a write of 1 from us, as a guest's
 * kick, so that what the old process left (chains in the transmit queue,
 * receive buffers a blocked flush waits for) is looked at once we run.
 *
 * Context: set-up, before isolation (restart_take())
 * Return: 0, or -errno (the front-end is detached, the caller closes @fd)
 */
int vu_resume(int fd, struct vu_snap *s)
{
	uint64_t off[VU_REGIONS_MAX];
	int fds[VU_REGIONS_MAX];
	struct vu_map map[VU_REGIONS_MAX] = { 0 };
	unsigned i;
	int rc;

	vu_attach(fd);
	for (i = 0; i < VU_QUEUES; i++) {	/* ours from here on */
		vu.q[i].kick_fd = s->q[i].kick;
		vu.q[i].call_fd = s->q[i].call;
		vu.q[i].err_fd = s->q[i].err;
	}
	if (vu_snap_check(s)) {
		rc = -EINVAL;
		goto fail;
	}
	vu.features = s->features;
	vu.protocol = s->protocol;
	vu.hdr_len = (vu_has(VIRTIO_F_VERSION_1) ||
		      vu_has(VIRTIO_NET_F_MRG_RXBUF)) ?
		     sizeof(struct virtio_net_hdr_mrg_rxbuf) :
		     sizeof(struct virtio_net_hdr);
	vu.tso_off = s->tso_off;
	vu.uso_off = s->uso_off;
	vu.had_buffers = s->had_buffers;

	vu.mem.n = 0;
	for (i = 0; i < s->nregions; i++) {
		vu.mem.r[i].gpa = s->r[i].gpa;
		vu.mem.r[i].size = s->r[i].size;
		vu.mem.r[i].uva = s->r[i].uva;
		off[i] = s->r[i].off;
		fds[i] = s->r[i].fd;
		if (fds[i] < 0) {
			rc = -EBADF;
			goto fail;
		}
	}
	{
		struct vu_mem mem = vu.mem;

		mem.n = s->nregions;
		if ((rc = vu_regions_map(&mem, off, fds, map)))
			goto fail;
		memcpy(vu.map, map, sizeof(map));
		vu.mem = mem;
		for (i = 0; i < s->nregions; i++)
			s->r[i].fd = -1;	/* in vu.map now */
	}

	for (i = 0; i < VU_QUEUES; i++) {
		const struct vu_snap_queue *sq = &s->q[i];
		struct vu_queue *q = &vu.q[i];

		q->vq.num = sq->num;
		q->vq.desc_uva = sq->desc;
		q->vq.avail_uva = sq->avail;
		q->vq.used_uva = sq->used;
		q->log_gpa = sq->log_gpa;
		q->log_used = sq->log_used;
		q->addr_set = sq->addr_set;
		q->enabled = sq->enabled;
		q->vq.last_avail = sq->last_avail;
		if (!sq->started)
			continue;
		if (q->kick_fd < 0 || (rc = vq_map(&q->vq, &vu.mem))) {
			rc = -EFAULT;
			goto fail;
		}
		q->vq.used_idx = sq->used_idx;
		q->started = true;
		if (vu_watch && vu_watch(q->kick_fd, i, true) < 0) {
			q->started = false;
			rc = -EIO;
			goto fail;
		}
		(void)vu_efd_write(q->kick_fd, 1);
	}
	info("vhost-user: device taken over: features 0x%llx, %u region%s, "
	     "queues at %u/%u and %u/%u", (unsigned long long)vu.features,
	     vu.mem.n, vu.mem.n == 1 ? "" : "s", vu.q[0].vq.last_avail,
	     vu.q[0].vq.used_idx, vu.q[1].vq.last_avail, vu.q[1].vq.used_idx);
	return 0;

fail:
	for (i = 0; i < s->nregions && i < VU_REGIONS_MAX; i++) {
		if (s->r[i].fd >= 0)
			close(s->r[i].fd);
		s->r[i].fd = -1;
	}
	vu_detach();
	return rc;
}
