/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/devstate.h - passt's device state stream for vhost-user migration
 *
 * What a source passt hands to the destination through QEMU
 * (VHOST_USER_SET_DEVICE_STATE_FD), in upstream passt's layout so that
 * either side may be upstream's: version 2, all fields big-endian.
 *
 *   offset  size  field
 *        0     8  magic 0xB1BB1D1B0BB1D1B0
 *        8     4  version (2): the highest the source knows
 *       12     4  compat_version (2): the lowest that can read it
 *       16    16  guest IPv6 address seen (struct in6_addr)
 *       32    16  guest IPv6 link-local address seen
 *       48     4  guest IPv4 address seen (struct in_addr)
 *       52     6  guest MAC address seen
 *       58     4  count of TCP flows
 *       62        then per flow its data, then per flow its extended data
 *
 * A reader takes the stream if its version is in [compat_version,
 * version].  The TCP flows' section (passt/tcp_migrate.h) is opaque here:
 * tap/ hands it to the daemon (passt/tcp_mig_flows.c), which checks it.
 */
#ifndef TAP_DEVSTATE_H
#define TAP_DEVSTATE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEVSTATE_MAGIC		0xB1BB1D1B0BB1D1B0ULL
#define DEVSTATE_VERSION	2
#define DEVSTATE_HDR_LEN	16
#define DEVSTATE_ADDRS_LEN	42	/* 16 + 16 + 4 + 6 */
#define DEVSTATE_V2_LEN		(DEVSTATE_HDR_LEN + DEVSTATE_ADDRS_LEN + 4)

/**
 * struct devstate - Contents of a version 2 stream without flow data
 * @addr6:	Guest IPv6 address seen (:: if none)
 * @addr6_ll:	Guest IPv6 link-local address seen (:: if none)
 * @addr4:	Guest IPv4 address seen (0.0.0.0 if none)
 * @mac:	Guest MAC address (ff:ff:ff:ff:ff:ff or zero: not known)
 * @nflows:	TCP flows that follow
 * @flows:	Their section: from the byte after the count to the end of
 *		the stream (NULL if @nflows is 0)
 * @flows_len:	Its length, bytes
 */
struct devstate {
	struct in6_addr addr6;
	struct in6_addr addr6_ll;
	struct in_addr addr4;
	uint8_t mac[6];
	uint32_t nflows;
	const uint8_t *flows;
	size_t flows_len;
};

/* Results of devstate_parse(), negative */
enum devstate_err {
	DEVSTATE_OK = 0,
	DEVSTATE_E_MORE,	/* not complete yet: read more */
	DEVSTATE_E_MAGIC,	/* not a passt state stream */
	DEVSTATE_E_VERSION,	/* version 0, or compat above version */
	DEVSTATE_E_UNSUPPORTED,	/* valid, but no version we read */
	DEVSTATE_E_TRUNCATED,	/* ended before its last field */
	DEVSTATE_E_ADDR,	/* an address no guest uses as its own */
	DEVSTATE_E_MAC,		/* a multicast MAC other than broadcast */
	DEVSTATE_E_FLOWS,	/* TCP flows without a section, or too long */
	DEVSTATE_E_TRAILING,	/* bytes after the last field */
	DEVSTATE_E_COUNT
};

extern const char *const devstate_err_str[DEVSTATE_E_COUNT];

size_t devstate_encode(const struct devstate *s, uint8_t *buf, size_t room);
int devstate_parse(const uint8_t *buf, size_t len, bool eof,
		   struct devstate *s, uint32_t *version);

#endif /* TAP_DEVSTATE_H */
