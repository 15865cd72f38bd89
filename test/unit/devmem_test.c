// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/devmem_test.c - Devmem binding messages (passt/devmem.c)
 *
 * The success path of NETDEV_CMD_BIND_RX needs a NIC none of our machines
 * has (gve, bnxt, mlx5, fbnic), so the messages are checked here, byte by
 * byte, against layouts written out from the specifications: netlink
 * attributes are {__u16 nla_len, __u16 nla_type} plus the payload padded
 * to 4 bytes, NLA_F_NESTED = 0x8000 (netlink(7), include/uapi/linux/
 * netlink.h); the generic netlink header is {__u8 cmd, __u8 version,
 * __u16 reserved} (include/uapi/linux/genetlink.h); bind-rx carries u32
 * ifindex (1), u32 fd (3) and per queue a nest (2) of u32 id (1) and u32
 * type (3, rx = 0) (Documentation/netlink/specs/netdev.yaml, op 13).
 * The replies are built the same way, with the numbers the kernel sent on
 * 6.18 here (family id 20, operations 1 5 10 11 12 13 14 15; see
 * kernel-interfaces.md section 3).
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "../../passt/devmem.h"

/**
 * struct mb - A message being built by hand
 * @b:		Bytes
 * @len:	Used
 */
struct mb {
	uint8_t b[1024] __attribute__((aligned(4)));
	size_t len;
};

/**
 * put() - Append raw bytes
 * @m:		Message
 * @p:		Bytes
 * @len:	Length
 */
static void put(struct mb *m, const void *p, size_t len)
{
	ck_assert_uint_le(m->len + len, sizeof(m->b));
	memcpy(m->b + m->len, p, len);
	m->len += len;
}

/**
 * put_u16() - Append a native 16-bit value
 * @m:		Message
 * @v:		Value
 */
static void put_u16(struct mb *m, uint16_t v)
{
	put(m, &v, 2);
}

/**
 * put_u32() - Append a native 32-bit value
 * @m:		Message
 * @v:		Value
 */
static void put_u32(struct mb *m, uint32_t v)
{
	put(m, &v, 4);
}

/**
 * pad() - Zero-pad to 4 bytes
 * @m:		Message
 */
static void pad(struct mb *m)
{
	while (m->len % 4)
		m->b[m->len++] = 0;
}

/**
 * attr_u32() - Append an attribute with a u32 payload
 * @m:		Message
 * @type:	Attribute type
 * @v:		Value
 */
static void attr_u32(struct mb *m, uint16_t type, uint32_t v)
{
	put_u16(m, 8);
	put_u16(m, type);
	put_u32(m, v);
}

/**
 * nest_begin() - Start a nested attribute
 * @m:		Message
 * @type:	Type, flags included
 *
 * Return: offset to pass to nest_end()
 */
static size_t nest_begin(struct mb *m, uint16_t type)
{
	size_t at = m->len;

	put_u16(m, 0);
	put_u16(m, type);
	return at;
}

/**
 * nest_end() - Write the length of a nested attribute
 * @m:		Message
 * @at:		Offset from nest_begin()
 */
static void nest_end(struct mb *m, size_t at)
{
	uint16_t l = (uint16_t)(m->len - at);

	memcpy(m->b + at, &l, 2);
}

/**
 * hdr() - Append a netlink header and a generic netlink header
 * @m:		Empty message
 * @type:	nlmsg_type
 * @cmd:	Generic netlink command
 * @version:	Its version
 */
static void hdr(struct mb *m, uint16_t type, uint8_t cmd, uint8_t version)
{
	put_u32(m, 0);		/* length, set by finish() */
	put_u16(m, type);
	put_u16(m, 0);
	put_u32(m, 1);		/* sequence */
	put_u32(m, 0);		/* port */
	m->b[m->len++] = cmd;
	m->b[m->len++] = version;
	put_u16(m, 0);
}

/**
 * finish() - Write nlmsg_len
 * @m:		Message
 *
 * Return: the message as a netlink header
 */
static struct nlmsghdr *finish(struct mb *m)
{
	uint32_t l = (uint32_t)m->len;

	memcpy(m->b, &l, 4);
	return (struct nlmsghdr *)m->b;
}

/* bind-rx request: header, u32 ifindex, u32 fd, nests for queues 0, 2, 3 */
START_TEST(test_devmem_bind_msg_layout)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlmsghdr *h;
	struct mb want = { 0 };
	size_t q;
	uint8_t *got;

	ck_assert_ptr_nonnull(msg);
	ck_assert_int_eq(devmem_bind_msg(msg, 20, 7, 9, 0xd), 0);
	h = nlmsg_hdr(msg);
	ck_assert_uint_eq(h->nlmsg_type, 20);

	want.b[want.len++] = 13;	/* cmd: bind-rx */
	want.b[want.len++] = 1;		/* version */
	put_u16(&want, 0);
	attr_u32(&want, 1, 7);		/* ifindex */
	attr_u32(&want, 3, 9);		/* fd */
	for (q = 0; q < 4; q++) {
		size_t at;

		if (q == 1)
			continue;
		at = nest_begin(&want, 2 | 0x8000);
		attr_u32(&want, 1, (uint32_t)q);	/* id */
		attr_u32(&want, 3, 0);			/* type: rx */
		nest_end(&want, at);
	}

	ck_assert_uint_eq(h->nlmsg_len, NLMSG_HDRLEN + want.len);
	got = (uint8_t *)h + NLMSG_HDRLEN;
	ck_assert_mem_eq(got, want.b, want.len);
	nlmsg_free(msg);
}
END_TEST

/**
 * family_reply() - CTRL_CMD_NEWFAMILY for "netdev" with these operations
 * @m:		Message to build
 * @ops:	Operation ids
 * @n:		Count
 *
 * Return: the message
 */
static struct nlmsghdr *family_reply(struct mb *m, const uint32_t *ops,
				     unsigned n)
{
	size_t at;
	unsigned i;

	memset(m, 0, sizeof(*m));
	hdr(m, 0x10, 1, 2);		/* GENL_ID_CTRL, CTRL_CMD_NEWFAMILY */
	put_u16(m, 6);			/* CTRL_ATTR_FAMILY_ID, u16 */
	put_u16(m, 1);
	put_u16(m, 20);
	pad(m);
	put_u16(m, 4 + 7);		/* CTRL_ATTR_FAMILY_NAME */
	put_u16(m, 2);
	put(m, "netdev", 7);
	pad(m);
	attr_u32(m, 3, 1);		/* CTRL_ATTR_VERSION */
	at = nest_begin(m, 6);		/* CTRL_ATTR_OPS */
	for (i = 0; i < n; i++) {
		size_t op = nest_begin(m, (uint16_t)(i + 1));

		attr_u32(m, 1, ops[i]);	/* CTRL_ATTR_OP_ID */
		attr_u32(m, 2, 0xa);	/* CTRL_ATTR_OP_FLAGS */
		nest_end(m, op);
	}
	nest_end(m, at);
	return finish(m);
}

/* Operations as 6.18 lists them: BIND_RX (13) is there */
START_TEST(test_devmem_family_has_bind_rx)
{
	static const uint32_t ops[] = { 1, 5, 10, 11, 12, 13, 14, 15 };
	struct mb m;
	bool bind_rx = false;
	int family = -1;

	ck_assert_int_eq(devmem_family_parse(family_reply(&m, ops, 8), &family,
					     &bind_rx), 0);
	ck_assert_int_eq(family, 20);
	ck_assert(bind_rx);
}
END_TEST

/* Operations of a kernel before 6.12: no BIND_RX */
START_TEST(test_devmem_family_without_bind_rx)
{
	static const uint32_t ops[] = { 1, 5, 9, 10, 11, 12 };
	struct mb m;
	bool bind_rx = true;
	int family = -1;

	ck_assert_int_eq(devmem_family_parse(family_reply(&m, ops, 6), &family,
					     &bind_rx), 0);
	ck_assert_int_eq(family, 20);
	ck_assert(!bind_rx);
}
END_TEST

/* bind-rx reply: the binding id (attribute 4) */
START_TEST(test_devmem_bind_reply)
{
	struct mb m = { 0 };
	uint32_t id = 0;

	hdr(&m, 20, 13, 1);
	attr_u32(&m, 4, 3);
	ck_assert_int_eq(devmem_bind_reply_parse(finish(&m), &id), 0);
	ck_assert_uint_eq(id, 3);

	memset(&m, 0, sizeof(m));	/* no id: refused */
	hdr(&m, 20, 13, 1);
	ck_assert_int_eq(devmem_bind_reply_parse(finish(&m), &id), -EINVAL);
}
END_TEST

/**
 * err_msg() - NLMSG_ERROR as the kernel sends it (net/netlink/af_netlink.c
 *	       netlink_ack()): struct nlmsgerr {int error; struct nlmsghdr
 *	       msg}, the request's payload unless capped, then TLVs
 * @m:		Message to build
 * @error:	Negative errno
 * @capped:	NETLINK_CAP_ACK: no echo of the payload
 * @text:	NLMSGERR_ATTR_MSG (1), NULL for no TLVs
 *
 * Return: the message
 */
static struct nlmsghdr *err_msg(struct mb *m, int error, bool capped,
				const char *text)
{
	uint16_t flags = (capped ? 0x100 : 0) | (text ? 0x200 : 0);
	uint32_t req_len = 16 + 4 + 8;	/* a request with one attribute */

	memset(m, 0, sizeof(*m));
	put_u32(m, 0);
	put_u16(m, 2);			/* NLMSG_ERROR */
	put_u16(m, flags);
	put_u32(m, 1);
	put_u32(m, 0);
	put(m, &error, 4);
	put_u32(m, req_len);		/* the request's header */
	put_u16(m, 20);
	put_u16(m, 5);
	put_u32(m, 1);
	put_u32(m, 0);
	if (!capped) {			/* its payload */
		put_u32(m, 0x0001000d);
		attr_u32(m, 1, 7);
	}
	if (text) {
		put_u16(m, (uint16_t)(4 + strlen(text) + 1));
		put_u16(m, 1);
		put(m, text, strlen(text) + 1);
		pad(m);
		attr_u32(m, 2, 20);	/* NLMSGERR_ATTR_OFFS */
	}
	return finish(m);
}

/* Error codes and extack text, capped or not */
START_TEST(test_devmem_err_parse)
{
	char msg[DEVMEM_EXTACK_MAX];
	struct mb m;

	ck_assert_int_eq(devmem_err_parse(err_msg(&m, -EINVAL, true,
						  "tcp-data-split is disabled"),
					  msg, sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "tcp-data-split is disabled");

	ck_assert_int_eq(devmem_err_parse(err_msg(&m, -EINVAL, false,
						  "hds-thresh is not zero"),
					  msg, sizeof(msg)), -EINVAL);
	ck_assert_str_eq(msg, "hds-thresh is not zero");

	/* lo and veth on 6.18: EOPNOTSUPP, no text */
	ck_assert_int_eq(devmem_err_parse(err_msg(&m, -EOPNOTSUPP, true, NULL),
					  msg, sizeof(msg)), -EOPNOTSUPP);
	ck_assert_str_eq(msg, "");
	ck_assert_int_eq(devmem_err_parse(err_msg(&m, -EPERM, false, NULL),
					  msg, sizeof(msg)), -EPERM);

	/* Control characters never reach the log */
	devmem_err_parse(err_msg(&m, -EINVAL, true, "bad\nline"), msg,
			 sizeof(msg));
	ck_assert_str_eq(msg, "bad?line");
}
END_TEST

/* One log line per outcome, naming the reason the issue lists */
START_TEST(test_devmem_reasons)
{
	char b[512];

	devmem_reason(-EPERM, "", false, "eth0", b, sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "EPERM"));
	ck_assert_ptr_nonnull(strstr(b, "CAP_NET_ADMIN in the initial user namespace"));
	ck_assert_ptr_nonnull(strstr(b, "rootless pasta never gets devmem"));

	devmem_reason(-EOPNOTSUPP, "", false, "va", b, sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "BIND_RX on va: EOPNOTSUPP"));

	devmem_reason(-EINVAL, "tcp-data-split is disabled", false, "eth0", b,
		      sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "EINVAL: tcp-data-split is disabled"));

	devmem_reason(-EINVAL, "hds-thresh is not zero", false, "eth0", b,
		      sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "tcp-data-split on hds-thresh 0"));

	/* What Linux 6.12 answers for veth, tun and lo (a Debian 6.12
	 * guest, test/vm/devmem_kernels.sh): not a header split problem
	 */
	devmem_reason(-EINVAL, "Failed to bind dmabuf to device", false, "h0",
		      b, sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "EINVAL: Failed to bind dmabuf to device"));
	ck_assert_ptr_null(strstr(b, "tcp-data-split"));

	devmem_reason(-ENODATA, "", false, "eth0", b, sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "ENODATA"));
	devmem_reason(-EEXIST, "", false, "eth0", b, sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "EEXIST: queue already in use"));
	devmem_reason(-EBUSY, "", false, "eth0", b, sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "EBUSY: queue already in use"));

	/* Without udmabuf, a device that passes its checks */
	devmem_reason(-EINVAL, "", true, "eth0", b, sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "no /dev/udmabuf"));
	/* ...but the device's own verdict comes first */
	devmem_reason(-EOPNOTSUPP, "", true, "lo", b, sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "EOPNOTSUPP"));
	devmem_reason(-EPERM, "", true, "lo", b, sizeof(b));
	ck_assert_ptr_nonnull(strstr(b, "EPERM"));
}
END_TEST

/* Queue lists as conf.c parses them (passt.1: "0,2-3") */
START_TEST(test_devmem_queues_str)
{
	char b[192];

	devmem_queues_str(0xd, b, sizeof(b));
	ck_assert_str_eq(b, "0,2-3");
	devmem_queues_str(1, b, sizeof(b));
	ck_assert_str_eq(b, "0");
	devmem_queues_str(1ULL << 63, b, sizeof(b));
	ck_assert_str_eq(b, "63");
	devmem_queues_str(~0ULL, b, sizeof(b));
	ck_assert_str_eq(b, "0-63");
	devmem_queues_str(0x5555555555555555ULL, b, sizeof(b));
	/* 0,2,...,62: 5 one-digit and 27 two-digit numbers, 31 commas */
	ck_assert_uint_eq(strlen(b), 5 + 27 * 2 + 31);
	ck_assert_str_eq(b + strlen(b) - 6, ",60,62");
}
END_TEST

/**
 * devmem_suite() - Build the suite
 *
 * Return: suite
 */
static Suite *devmem_suite(void)
{
	Suite *s = suite_create("devmem");
	TCase *tc = tcase_create("netlink");

	tcase_add_test(tc, test_devmem_bind_msg_layout);
	tcase_add_test(tc, test_devmem_family_has_bind_rx);
	tcase_add_test(tc, test_devmem_family_without_bind_rx);
	tcase_add_test(tc, test_devmem_bind_reply);
	tcase_add_test(tc, test_devmem_err_parse);
	tcase_add_test(tc, test_devmem_reasons);
	tcase_add_test(tc, test_devmem_queues_str);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - Run the suite
 *
 * Return: 0 if all tests pass
 */
int main(void)
{
	SRunner *sr = srunner_create(devmem_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
