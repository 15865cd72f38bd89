// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/devstate.c - Write and check passt's device state stream
 *
 * The layout (tap/devstate.h) is upstream passt's version 2 stream, read
 * from its migrate.c and flow.c: a 16-byte header, the guest's addresses
 * and MAC as seen, a TCP flow count, then the flows.  Everything in a
 * stream being loaded comes from the other side of a migration: each
 * field is checked before anything is used, and parsing never reads past
 * the bytes given.  No system calls here: tap/vhost_user.c moves the bytes
 * and test/unit/devstate_test.c drives these on buffers.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "devstate.h"

const char *const devstate_err_str[DEVSTATE_E_COUNT] = {
	[DEVSTATE_OK]		 = "ok",
	[DEVSTATE_E_MORE]	 = "incomplete",
	[DEVSTATE_E_MAGIC]	 = "not a passt device state (bad magic)",
	[DEVSTATE_E_VERSION]	 = "invalid version fields",
	[DEVSTATE_E_UNSUPPORTED] = "unsupported device state version",
	[DEVSTATE_E_TRUNCATED]	 = "device state truncated",
	[DEVSTATE_E_ADDR]	 = "invalid guest address",
	[DEVSTATE_E_MAC]	 = "invalid guest MAC address",
	[DEVSTATE_E_FLOWS]	 = "TCP connections announced but not there",
	[DEVSTATE_E_TRAILING]	 = "unexpected data after the device state",
};

/**
 * devstate_encode() - Write a version 2 stream
 * @s:		What to write: with @s->nflows, @s->flows_len bytes of flow
 *		section at @s->flows, which may be @buf + DEVSTATE_V2_LEN
 *		already (then it isn't copied)
 * @buf:	Destination
 * @room:	Bytes available at @buf
 *
 * Return: bytes written, 0 if @room is too small, or if @s announces
 *	   flows without a section
 */
size_t devstate_encode(const struct devstate *s, uint8_t *buf, size_t room)
{
	uint64_t magic = htobe64(DEVSTATE_MAGIC);
	uint32_t v = htobe32(DEVSTATE_VERSION), n = htobe32(s->nflows);
	size_t flen = s->nflows ? s->flows_len : 0;

	if (room < DEVSTATE_V2_LEN || room - DEVSTATE_V2_LEN < flen ||
	    (s->nflows && !s->flows_len))
		return 0;
	if (flen && s->flows != buf + DEVSTATE_V2_LEN)
		memmove(buf + DEVSTATE_V2_LEN, s->flows, flen);
	memcpy(buf, &magic, 8);
	memcpy(buf + 8, &v, 4);
	memcpy(buf + 12, &v, 4);	/* compat_version: the same */
	memcpy(buf + 16, &s->addr6, 16);
	memcpy(buf + 32, &s->addr6_ll, 16);
	memcpy(buf + 48, &s->addr4, 4);
	memcpy(buf + 52, s->mac, 6);
	memcpy(buf + 58, &n, 4);
	return DEVSTATE_V2_LEN + flen;
}

/**
 * devstate_addr4_ok() - Could a guest use this IPv4 address as its own?
 * @a:		Address, network order
 *
 * Return: false for multicast (224.0.0.0/4) and limited broadcast, which
 *	   no host sends from (RFC 1122 3.2.1.3); 0.0.0.0 (none seen) is fine
 */
static bool devstate_addr4_ok(struct in_addr a)
{
	uint32_t h = be32toh(a.s_addr);

	return (h >> 28) != 0xe && h != 0xffffffff;
}

/**
 * devstate_parse() - Check and read a stream (or what arrived of it)
 * @buf:	Bytes received so far, from the start of the stream
 * @len:	Their count
 * @eof:	The writer closed its end: nothing more will come
 * @s:		Filled on success
 * @version:	Set to the version field once the header is in, else 0
 *
 * Checks, in stream order: magic; version and compat_version non-zero with
 * compat_version <= version (upstream's rule); 2 within [compat_version,
 * version]; IPv6 addresses not multicast (ff00::/8, RFC 4291 2.7), the
 * link-local one :: or in fe80::/10 (RFC 4291 2.5.6); the IPv4 one not
 * multicast or broadcast; the MAC not multicast unless it is broadcast
 * (upstream's "not known yet"); with a flow count of 0, nothing after
 * it; with flows, at least one byte after it, all of which up to the end
 * of the stream is the flows' section (@s->flows: its records have no
 * length of their own, the daemon checks them).  A stream that is already
 * wrong is refused at once, without waiting for the rest.
 *
 * Return: 0, or negative enum devstate_err: -DEVSTATE_E_MORE if it is
 *	   fine so far but incomplete and !@eof
 */
int devstate_parse(const uint8_t *buf, size_t len, bool eof,
		   struct devstate *s, uint32_t *version)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint32_t ver, compat, n;
	uint64_t magic;

	*version = 0;
	if (len < 8)
		goto short_;
	memcpy(&magic, buf, 8);
	if (be64toh(magic) != DEVSTATE_MAGIC)
		return -DEVSTATE_E_MAGIC;
	if (len < DEVSTATE_HDR_LEN)
		goto short_;
	memcpy(&ver, buf + 8, 4);
	memcpy(&compat, buf + 12, 4);
	ver = be32toh(ver);
	compat = be32toh(compat);
	*version = ver;
	if (!ver || !compat || compat > ver)
		return -DEVSTATE_E_VERSION;
	if (ver < DEVSTATE_VERSION || compat > DEVSTATE_VERSION)
		return -DEVSTATE_E_UNSUPPORTED;

	if (len < DEVSTATE_HDR_LEN + DEVSTATE_ADDRS_LEN)
		goto short_;
	memcpy(&s->addr6, buf + 16, 16);
	memcpy(&s->addr6_ll, buf + 32, 16);
	memcpy(&s->addr4, buf + 48, 4);
	memcpy(s->mac, buf + 52, 6);
	if (IN6_IS_ADDR_MULTICAST(&s->addr6) ||
	    (!IN6_IS_ADDR_UNSPECIFIED(&s->addr6_ll) &&
	     !IN6_IS_ADDR_LINKLOCAL(&s->addr6_ll)) ||
	    !devstate_addr4_ok(s->addr4))
		return -DEVSTATE_E_ADDR;
	if ((s->mac[0] & 1) && memcmp(s->mac, bcast, 6))
		return -DEVSTATE_E_MAC;

	if (len < DEVSTATE_V2_LEN)
		goto short_;
	memcpy(&n, buf + 58, 4);
	s->nflows = be32toh(n);
	s->flows = NULL;
	s->flows_len = 0;
	if (s->nflows) {
		if (!eof)
			return -DEVSTATE_E_MORE;
		if (len == DEVSTATE_V2_LEN)
			return -DEVSTATE_E_FLOWS;
		s->flows = buf + DEVSTATE_V2_LEN;
		s->flows_len = len - DEVSTATE_V2_LEN;
		return 0;
	}
	if (len > DEVSTATE_V2_LEN)
		return -DEVSTATE_E_TRAILING;
	return 0;

short_:
	return eof ? -DEVSTATE_E_TRUNCATED : -DEVSTATE_E_MORE;
}
