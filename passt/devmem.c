// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/devmem.c - Devmem TCP: bind a dma-buf to NIC receive queues, or say
 *		     why not
 *
 * DOC: Theory of Operation
 *
 * With --devmem IF[:QUEUES], TCP payload that the NIC steers to those
 * receive queues lands in a dma-buf instead of kernel pages, and the
 * daemon forwards it to the guest straight from there
 * (Documentation/networking/devmem.rst; the reader is tcp_devmem.c).  Our
 * dma-buf is host memory: a memfd turned into a dma-buf by udmabuf
 * (/dev/udmabuf, UDMABUF_CREATE), which we also mmap() to hand its bytes
 * to write() and sendmsg() on the guest side.
 *
 * The binding is made once at set-up, in the daemon's own network
 * namespace (where the host NIC is; pasta's target namespace only has the
 * tap), before any privilege is dropped, with the generic netlink family
 * "netdev" through libnl-genl-3: NETDEV_CMD_BIND_RX with the ifindex, the
 * dma-buf fd and one nest per RX queue; the reply carries the binding id
 * that every SCM_DEVMEM_DMABUF message repeats.  The binding belongs to
 * the netlink socket that made it: we keep that socket open for the
 * daemon's lifetime, and the kernel unbinds when it's closed, even if we
 * crash.
 *
 * Detection.  Socket calls give no signal (recvmsg() ignores
 * MSG_SOCK_DEVMEM on ordinary data, SO_DEVMEM_DONTNEED returns 0 on any
 * TCP socket), so everything is decided here, and each outcome is one log
 * line with the reason, after which the peek readers serve every socket:
 *  - no "netdev" family (Linux < 6.3), or no BIND_RX operation in its
 *    CTRL_CMD_GETFAMILY answer (Linux < 6.12);
 *  - no /dev/udmabuf (CONFIG_UDMABUF).  We still ask the kernel about the
 *    device, with the memfd in place of a dma-buf: privilege and driver
 *    checks come before the fd is looked at (net/core/netdev-genl.c
 *    netdev_nl_bind_rx_doit()), so EPERM or EOPNOTSUPP, if they apply, are
 *    the better reason to report;
 *  - EPERM: BIND_RX is GENL_ADMIN_PERM, CAP_NET_ADMIN in the initial user
 *    namespace, which rootless pasta never has;
 *  - EOPNOTSUPP: the driver has no queue management API (veth, tun,
 *    virtio-net, lo);
 *  - EINVAL: usually NIC configuration, the extack text says which (header
 *    split off, hds-thresh not 0); also a queue beyond the device's.  On
 *    6.12, virtual devices get here too: the dma-buf is attached to the
 *    device's parent before the driver is checked, and they have none
 *    ("Failed to bind dmabuf to device", observed in a Debian 6.12 guest);
 *  - ENODATA: the driver's page pool ignored the memory provider;
 *  - EEXIST, EBUSY: XDP program, another binding or AF_XDP on the queue.
 *
 * Memory: DEVMEM_BUF_SIZE of memfd, pinned by udmabuf, only when bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/udmabuf.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "../conf/conf.h"
#include "../lib/log.h"
#include "../lib/visible.h"
#include "devmem.h"
#include "tcp_devmem.h"

#ifndef NETLINK_EXT_ACK
/* include/uapi/linux/netlink.h */
#define NETLINK_EXT_ACK		11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK		10
#endif

/**
 * struct devmem_state - The binding, while it exists
 * @nl:		libnl socket that made it: closing it unbinds
 * @id:		Binding id (NETDEV_A_DMABUF_ID)
 * @memfd:	Backing memfd
 * @dmabuf:	udmabuf fd
 * @base:	Mapping of the memfd, read only
 * @bound:	BIND_RX succeeded
 */
static struct devmem_state {
	struct nl_sock *nl;
	bool bound;
	uint32_t id;
	int memfd;
	int dmabuf;
	uint8_t *base;
} devmem = { .memfd = -1, .dmabuf = -1 };

/**
 * struct devmem_nl_res - What a netlink exchange answered
 * @err:	0, or -errno from an NLMSG_ERROR
 * @done:	ACK or error seen
 * @extack:	Extended ACK message text, "" if none
 * @family:	CTRL_CMD_GETFAMILY: family id, -1 if not seen
 * @bind_rx:	CTRL_CMD_GETFAMILY: BIND_RX is among the operations
 * @id:		BIND_RX: binding id
 * @id_seen:	BIND_RX: the reply carried @id
 */
struct devmem_nl_res {
	int err;
	bool done;
	char extack[DEVMEM_EXTACK_MAX];
	int family;
	bool bind_rx;
	uint32_t id;
	bool id_seen;
};

/**
 * devmem_queues_str() - Print a queue bitmap as "0,2-3"
 * @queues:	Bit n set: queue n (0 to 63)
 * @buf:	Output
 * @len:	Size of @buf, bytes
 */
VISIBLE_IF_UNIT
void devmem_queues_str(uint64_t queues, char *buf, size_t len)
{
	size_t off = 0;
	int q = 0;

	if (len)
		buf[0] = '\0';
	while (q < 64 && off < len) {
		int last;

		if (!(queues & (1ULL << q))) {
			q++;
			continue;
		}
		for (last = q; last < 63 && (queues & (1ULL << (last + 1)));
		     last++)
			;
		off += (size_t)snprintf(buf + off, len - off,
					last == q ? "%s%d" : "%s%d-%d",
					off ? "," : "", q, last);
		q = last + 1;
	}
}

/**
 * devmem_bind_msg() - Build a NETDEV_CMD_BIND_RX request
 * @msg:	Empty libnl message
 * @family:	Generic netlink id of "netdev"
 * @ifindex:	Interface index
 * @fd:		dma-buf fd (or, probing, any fd)
 * @queues:	RX queues, bit n for queue n; one nest each
 *
 * Layout (Documentation/netlink/specs/netdev.yaml, op bind-rx): u32
 * IFINDEX, u32 FD, then per queue a QUEUES nest, with NLA_F_NESTED as the
 * strict parser (nla_parse_nested()) wants, of u32 QUEUE_ID and u32
 * QUEUE_TYPE = RX.
 *
 * Return: 0, or -ENOMEM if @msg is too small
 */
VISIBLE_IF_UNIT
int devmem_bind_msg(struct nl_msg *msg, int family, unsigned ifindex,
		    int fd, uint64_t queues)
{
	int q;

	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
			 DEVMEM_CMD_BIND_RX, 1))
		return -ENOMEM;
	if (nla_put_u32(msg, DEVMEM_A_DMABUF_IFINDEX, ifindex) ||
	    nla_put_u32(msg, DEVMEM_A_DMABUF_FD, (uint32_t)fd))
		return -ENOMEM;
	for (q = 0; q < 64; q++) {
		struct nlattr *nest;

		if (!(queues & (1ULL << q)))
			continue;
		nest = nla_nest_start(msg, DEVMEM_A_DMABUF_QUEUES |
				      NLA_F_NESTED);
		if (!nest ||
		    nla_put_u32(msg, DEVMEM_A_QUEUE_ID, (uint32_t)q) ||
		    nla_put_u32(msg, DEVMEM_A_QUEUE_TYPE, DEVMEM_QUEUE_TYPE_RX))
			return -ENOMEM;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/**
 * devmem_family_parse() - Read a CTRL_CMD_GETFAMILY answer
 * @h:		Message (include/uapi/linux/genetlink.h CTRL_ATTR_*)
 * @family:	Family id, if present
 * @bind_rx:	Set if CTRL_ATTR_OPS lists NETDEV_CMD_BIND_RX
 *
 * Return: 0, -EINVAL if the message doesn't parse or has no family id
 */
VISIBLE_IF_UNIT
int devmem_family_parse(struct nlmsghdr *h, int *family, bool *bind_rx)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *op;
	int rem;

	if (genlmsg_parse(h, 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID] ||
	    nla_len(tb[CTRL_ATTR_FAMILY_ID]) < (int)sizeof(uint16_t))
		return -EINVAL;
	*family = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	*bind_rx = false;
	if (!tb[CTRL_ATTR_OPS])
		return 0;
	nla_for_each_nested(op, tb[CTRL_ATTR_OPS], rem) {
		struct nlattr *otb[CTRL_ATTR_OP_MAX + 1];

		if (nla_parse_nested(otb, CTRL_ATTR_OP_MAX, op, NULL) < 0 ||
		    !otb[CTRL_ATTR_OP_ID] ||
		    nla_len(otb[CTRL_ATTR_OP_ID]) < (int)sizeof(uint32_t))
			continue;
		if (nla_get_u32(otb[CTRL_ATTR_OP_ID]) == DEVMEM_CMD_BIND_RX)
			*bind_rx = true;
	}
	return 0;
}

/**
 * devmem_bind_reply_parse() - Read the binding id from a BIND_RX reply
 * @h:		Message
 * @id:		NETDEV_A_DMABUF_ID
 *
 * Return: 0, -EINVAL if the message has no (valid) id
 */
VISIBLE_IF_UNIT
int devmem_bind_reply_parse(struct nlmsghdr *h, uint32_t *id)
{
	struct nlattr *tb[DEVMEM_A_DMABUF_ID + 1];

	if (genlmsg_parse(h, 0, tb, DEVMEM_A_DMABUF_ID, NULL) < 0 ||
	    !tb[DEVMEM_A_DMABUF_ID] ||
	    nla_len(tb[DEVMEM_A_DMABUF_ID]) < (int)sizeof(uint32_t))
		return -EINVAL;
	*id = nla_get_u32(tb[DEVMEM_A_DMABUF_ID]);
	return 0;
}

/**
 * devmem_err_parse() - Error code and extended ACK message of NLMSG_ERROR
 * @h:		Whole NLMSG_ERROR message
 * @msg:	NLMSGERR_ATTR_MSG text, printable characters only, "" if none
 * @len:	Size of @msg, bytes
 *
 * The TLVs follow struct nlmsgerr, and the echoed request unless the
 * kernel capped it (NLM_F_CAPPED); NLM_F_ACK_TLVS says they are there
 * (include/uapi/linux/netlink.h).
 *
 * Return: the error, as -errno (0 for an ACK)
 */
VISIBLE_IF_UNIT
int devmem_err_parse(const struct nlmsghdr *h, char *msg, size_t len)
{
	const struct nlmsgerr *e = (const struct nlmsgerr *)NLMSG_DATA(h);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e), total;

	if (len)
		msg[0] = '\0';
	if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return -EIO;
	total = h->nlmsg_len - NLMSG_HDRLEN;
	if (!(h->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return e->error;
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	}
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS) || off >= total || !len)
		return e->error;

	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((uint8_t *)(uintptr_t)e + off),
		      (int)(total - off), NULL) == 0 &&
	    tb[NLMSGERR_ATTR_MSG]) {
		const char *s = nla_data(tb[NLMSGERR_ATTR_MSG]);
		size_t i, n = (size_t)nla_len(tb[NLMSGERR_ATTR_MSG]);

		for (i = 0; i < n && i < len - 1 && s[i]; i++)
			msg[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
		msg[i] = '\0';
	}
	return e->error;
}

/**
 * devmem_reason() - Log text for a failed BIND_RX
 * @err:	-errno from the kernel
 * @extack:	Its extended ACK message, "" if none
 * @probe:	The request carried a memfd, not a dma-buf (no udmabuf)
 * @ifname:	Interface
 * @buf:	Output, one line
 * @len:	Size of @buf, bytes
 */
VISIBLE_IF_UNIT
void devmem_reason(int err, const char *extack, bool probe, const char *ifname,
		   char *buf, size_t len)
{
	const char *name = strerrorname_np(-err);

	if (!name)
		name = "error";

	switch (-err) {
	case EPERM:
		snprintf(buf, len, "BIND_RX on %s: EPERM: binding needs CAP_NET_ADMIN in the initial user namespace, so rootless pasta never gets devmem",
			 ifname);
		return;
	case EOPNOTSUPP:
		snprintf(buf, len, "BIND_RX on %s: EOPNOTSUPP: the driver has no queue management API (veth, tun/tap, virtio-net and lo can't do devmem)%s%s",
			 ifname, *extack ? ": " : "", extack);
		return;
	case ENODEV:
		snprintf(buf, len, "BIND_RX on %s: ENODEV: device gone or not present",
			 ifname);
		return;
	}

	if (probe) {
		snprintf(buf, len, "no /dev/udmabuf (CONFIG_UDMABUF) to make a dma-buf of host memory (BIND_RX on %s with a plain memfd: %s%s%s)",
			 ifname, name, *extack ? ": " : "", extack);
		return;
	}

	switch (-err) {
	case EINVAL:
		if (strstr(extack, "tcp-data-split") || strstr(extack, "hds"))
			snprintf(buf, len, "BIND_RX on %s: EINVAL: %s (header split: ethtool -G %s tcp-data-split on hds-thresh 0)",
				 ifname, extack, ifname);
		else if (strstr(extack, "bind dmabuf to device") ||
			 strstr(extack, "map dmabuf attachment"))
			/* 6.12 attaches the dma-buf to the parent device
			 * before looking at the driver (dma_buf_attach()
			 * in net/core/devmem.c): virtual devices fail here
			 */
			snprintf(buf, len, "BIND_RX on %s: EINVAL: %s: the device can't DMA into a dma-buf (veth, tun/tap, virtio-net and lo can't do devmem)",
				 ifname, extack);
		else if (*extack)
			snprintf(buf, len, "BIND_RX on %s: EINVAL: %s", ifname,
				 extack);
		else
			snprintf(buf, len, "BIND_RX on %s: EINVAL: invalid request (queue beyond the device's RX queues?)",
				 ifname);
		return;
	case ENODATA:
		snprintf(buf, len, "BIND_RX on %s: ENODATA: the driver's page pool ignored the memory provider%s%s",
			 ifname, *extack ? ": " : "", extack);
		return;
	case EEXIST:
	case EBUSY:
		snprintf(buf, len, "BIND_RX on %s: %s: queue already in use (XDP program, another dma-buf or an AF_XDP socket)%s%s",
			 ifname, name, *extack ? ": " : "", extack);
		return;
	}
	snprintf(buf, len, "BIND_RX on %s: %s%s%s", ifname, name,
		 *extack ? ": " : "", extack);
}

/**
 * devmem_nl_valid() - libnl callback for a reply message
 * @m:		Message
 * @arg:	struct devmem_nl_res
 *
 * Return: NL_OK
 */
static int devmem_nl_valid(struct nl_msg *m, void *arg)
{
	struct devmem_nl_res *res = arg;
	struct nlmsghdr *h = nlmsg_hdr(m);
	struct genlmsghdr *g = nlmsg_data(h);

	if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return NL_OK;
	if (g->cmd == CTRL_CMD_NEWFAMILY)
		devmem_family_parse(h, &res->family, &res->bind_rx);
	else if (g->cmd == DEVMEM_CMD_BIND_RX &&
		 !devmem_bind_reply_parse(h, &res->id))
		res->id_seen = true;
	return NL_OK;
}

/**
 * devmem_nl_err() - libnl callback for NLMSG_ERROR with an error
 * @nla:	Sender (unused)
 * @e:		Error, inside the received message
 * @arg:	struct devmem_nl_res
 *
 * Return: NL_STOP
 */
static int devmem_nl_err(struct sockaddr_nl *nla, struct nlmsgerr *e,
			 void *arg)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)
				   ((uint8_t *)e - NLMSG_HDRLEN);
	struct devmem_nl_res *res = arg;

	(void)nla;
	res->err = devmem_err_parse(h, res->extack, sizeof(res->extack));
	if (!res->err)
		res->err = -EIO;
	res->done = true;
	return NL_STOP;
}

/**
 * devmem_nl_ack() - libnl callback for the final ACK
 * @m:		Message (unused)
 * @arg:	struct devmem_nl_res
 *
 * Return: NL_STOP
 */
static int devmem_nl_ack(struct nl_msg *m, void *arg)
{
	struct devmem_nl_res *res = arg;

	(void)m;
	res->done = true;
	return NL_STOP;
}

/**
 * devmem_nl_xfer() - Send a request, collect the reply, ACK or error
 * @sk:		Connected generic netlink socket
 * @msg:	Request (freed here)
 * @res:	Result, zeroed here except the parsed fields' defaults
 *
 * Return: 0, or -errno (also in @res->err)
 */
static int devmem_nl_xfer(struct nl_sock *sk, struct nl_msg *msg,
			  struct devmem_nl_res *res)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret, tries;

	memset(res, 0, sizeof(*res));
	res->family = -1;
	if (!cb) {
		nlmsg_free(msg);
		return res->err = -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, devmem_nl_valid, res);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, devmem_nl_ack, res);
	nl_cb_err(cb, NL_CB_CUSTOM, devmem_nl_err, res);

	ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		nl_cb_put(cb);
		return res->err = -EIO;
	}
	for (tries = 0; !res->done && tries < 16; tries++) {
		ret = nl_recvmsgs(sk, cb);
		if (ret < 0 && !res->done) {
			res->err = ret == -NLE_OBJ_NOTFOUND ? -ENOENT : -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	return res->err;
}

/**
 * devmem_buf_create() - memfd of DEVMEM_BUF_SIZE, mapped, and its udmabuf
 * @dmabuf:	udmabuf fd, or -1 if /dev/udmabuf is missing
 *
 * udmabuf wants a memfd sealed against shrinking and not against writing
 * (drivers/dma-buf/udmabuf.c, include/uapi/linux/udmabuf.h).
 *
 * Context: set-up
 * Return: 0 (with or without udmabuf), or -errno for the memfd or mapping;
 *	   -errno of UDMABUF_CREATE leaves *@dmabuf at -1 and is returned
 */
static int devmem_buf_create(int *dmabuf)
{
	struct udmabuf_create cr = { 0 };
	void *p;
	int u;

	*dmabuf = -1;
	devmem.memfd = memfd_create("passt-devmem",
				    MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (devmem.memfd < 0)
		return -errno;
	if (ftruncate(devmem.memfd, (off_t)DEVMEM_BUF_SIZE) ||
	    fcntl(devmem.memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		return -errno;
	p = mmap(NULL, DEVMEM_BUF_SIZE, PROT_READ, MAP_SHARED, devmem.memfd, 0);
	if (p == MAP_FAILED)
		return -errno;
	devmem.base = p;

	u = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (u < 0)
		return errno == ENOENT ? 0 : -errno;
	cr.memfd = (uint32_t)devmem.memfd;
	cr.flags = UDMABUF_FLAGS_CLOEXEC;
	cr.offset = 0;
	cr.size = DEVMEM_BUF_SIZE;
	*dmabuf = ioctl(u, UDMABUF_CREATE, &cr);
	close(u);
	if (*dmabuf < 0) {
		*dmabuf = -1;
		return -errno;
	}
	return 0;
}

/**
 * devmem_teardown() - Undo a partial set-up
 */
static void devmem_teardown(void)
{
	if (devmem.nl)
		nl_socket_free(devmem.nl);	/* closes it: unbinds */
	devmem.nl = NULL;
	if (devmem.base)
		munmap(devmem.base, DEVMEM_BUF_SIZE);
	devmem.base = NULL;
	if (devmem.dmabuf >= 0)
		close(devmem.dmabuf);
	if (devmem.memfd >= 0)
		close(devmem.memfd);
	devmem.dmabuf = devmem.memfd = -1;
}

/**
 * devmem_fallback() - Log why devmem is off, release everything
 * @fmt:	Reason, printf() format
 *
 * Return: -EOPNOTSUPP
 */
__attribute__((format(printf, 1, 2)))
static int devmem_fallback(const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	warn("devmem: %s; using the peek path", reason);
	devmem_teardown();
	return -EOPNOTSUPP;
}

/**
 * devmem_setup() - Bind a dma-buf to the --devmem queues, or log why not
 * @c:		Configuration: devmem_if, devmem_queues
 *
 * Context: set-up, in the daemon's own network namespace, before
 *	    privileges are dropped.  Runs netlink (socket, sendmsg,
 *	    recvmsg), memfd_create, ftruncate, fcntl, mmap, open and ioctl
 *	    here only; the netlink socket stays open afterwards, unused
 * Return: 0 if bound, -errno or -EOPNOTSUPP otherwise (one line logged;
 *	   nothing logged if --devmem wasn't given)
 */
int devmem_setup(const struct conf *c)
{
	const char *ifname = c->devmem_if;
	char qs[192], why[512];
	struct devmem_nl_res res;
	struct nl_msg *msg;
	unsigned ifindex;
	int fd, ret, one = 1;
	bool probe;

	if (!*ifname)
		return -ENOENT;
	devmem_queues_str(c->devmem_queues, qs, sizeof(qs));

	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return devmem_fallback("no interface %s in our network namespace",
				       ifname);

	devmem.nl = nl_socket_alloc();
	if (!devmem.nl || genl_connect(devmem.nl))
		return devmem_fallback("can't open a generic netlink socket");
	/* Error messages (extack), and no echo of our request in errors */
	setsockopt(nl_socket_get_fd(devmem.nl), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(devmem.nl), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));

	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL,
				 0, 0, CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, DEVMEM_NETDEV_FAMILY)) {
		nlmsg_free(msg);
		return devmem_fallback("out of memory");
	}
	devmem_nl_xfer(devmem.nl, msg, &res);
	if (res.err == -ENOENT || (!res.err && res.family < 0))
		return devmem_fallback("no 'netdev' generic netlink family (Linux < 6.3)");
	if (res.err)
		return devmem_fallback("CTRL_CMD_GETFAMILY netdev: %s",
				       strerror(-res.err));
	if (!res.bind_rx)
		return devmem_fallback("the 'netdev' family has no BIND_RX operation (Linux < 6.12)");

	ret = devmem_buf_create(&devmem.dmabuf);
	if (ret < 0)
		return devmem_fallback("dma-buf of %lu MiB: %s",
				       DEVMEM_BUF_SIZE >> 20, strerror(-ret));
	probe = devmem.dmabuf < 0;
	fd = probe ? devmem.memfd : devmem.dmabuf;

	msg = nlmsg_alloc();
	if (!msg || devmem_bind_msg(msg, res.family, ifindex, fd,
				    c->devmem_queues)) {
		nlmsg_free(msg);
		return devmem_fallback("out of memory");
	}
	devmem_nl_xfer(devmem.nl, msg, &res);
	if (res.err) {
		devmem_reason(res.err, res.extack, probe, ifname, why,
			      sizeof(why));
		return devmem_fallback("%s", why);
	}
	if (probe)	/* a memfd is no dma-buf: can't happen */
		return devmem_fallback("no /dev/udmabuf (CONFIG_UDMABUF) to make a dma-buf of host memory");
	if (!res.id_seen)
		return devmem_fallback("BIND_RX on %s: reply without a binding id",
				       ifname);

	devmem.id = res.id;
	devmem.bound = true;
	tcp_devmem_attach(devmem.base, DEVMEM_BUF_SIZE, devmem.id,
			  devmem.dmabuf);
	info("devmem: %lu MiB udmabuf bound to %s RX queues %s, dma-buf id %u",
	     DEVMEM_BUF_SIZE >> 20, ifname, qs, devmem.id);
	return 0;
}

/**
 * devmem_bound() - Is a dma-buf bound?
 *
 * Return: true after a successful devmem_setup()
 */
bool devmem_bound(void)
{
	return devmem.bound;
}

/**
 * devmem_dmabuf_fd() - The bound dma-buf, for the seccomp filter
 *
 * Return: its fd (DMA_BUF_IOCTL_SYNC goes there), -1 if none is bound
 */
int devmem_dmabuf_fd(void)
{
	return devmem.bound ? devmem.dmabuf : -1;
}
