/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/wire.h - pesto's wire protocol (upstream passt's, version 2): frames
 * of the -c control socket, and their translation to our rule tables
 *
 * A SOCK_STREAM UNIX socket.  On connect, the server (passt, pasta) sends:
 *
 *	hello		magic "basil:s\0" (8 bytes), then three big-endian
 *			u32: protocol version (2), pif name size (128),
 *			IFNAMSIZ (16): 20 bytes
 *	per table	u8 pif id (HOST 1, TAP 2, SPLICE 3), name (128 bytes,
 *			NUL-terminated), u32 capabilities, u32 rule count,
 *			then the rules, 56 bytes each
 *	end		u8 0
 *
 * A client that changes nothing just closes.  One that does sends every
 * table it wants, as replacements, in the same framing without name and
 * capabilities (u8 id, u32 count, rules), then u8 0; no reply comes.  A
 * rule is: bind address (16 bytes, IPv4-mapped for IPv4), target address
 * (16, all zero or ::ffff:0.0.0.0 for the default one), interface name (16,
 * NUL-terminated), first, last and target port (big-endian u16), IP
 * protocol (u8: 6 or 17), flags (u8: WIRE_F_*).
 *
 * Ours on top, negotiated: the server sets WIRE_CAP_X_TEXT in the
 * capabilities of its tables; a client that sees it may send, instead of
 * binary tables, a text request of passt/ctl.h (its first byte a letter,
 * never a pif id), end its side with shutdown(SHUT_WR), and read a text
 * reply up to the end of the stream.  Clients that don't know the bit
 * ignore it, as upstream's pesto does with capabilities it doesn't know.
 *
 * Everything here is pure: no system call, static scratch only.
 */
#ifndef CONF_WIRE_H
#define CONF_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../lib/inany.h"
#include "conf.h"

#define WIRE_MAGIC		"basil:s"	/* with its NUL: 8 bytes */
#define WIRE_MAGIC_LEN		8
#define WIRE_VERSION		2
#define WIRE_PIF_NAME_SIZE	128
#define WIRE_IFNAMSIZ		16
#define WIRE_HELLO_LEN		20
#define WIRE_INFO_LEN		(WIRE_PIF_NAME_SIZE + 8)	/* name, caps, count */
#define WIRE_RULE_LEN		56

/* pif ids (upstream's enum pif_type) */
#define WIRE_PIF_NONE		0
#define WIRE_PIF_HOST		1	/* -t, -u: listen on the host */
#define WIRE_PIF_TAP		2	/* never has a table */
#define WIRE_PIF_SPLICE		3	/* -T, -U: listen in the namespace */
#define WIRE_PIF_MAX		3

/* Capabilities of a table */
#define WIRE_CAP_IPV4		(1U << 0)
#define WIRE_CAP_IPV6		(1U << 1)
#define WIRE_CAP_TCP		(1U << 2)
#define WIRE_CAP_UDP		(1U << 3)
#define WIRE_CAP_SCAN		(1U << 4)	/* "auto" */
#define WIRE_CAP_IFNAME		(1U << 5)	/* SO_BINDTODEVICE */
#define WIRE_CAP_X_TEXT		(1U << 31)	/* ours: text requests */

/* Rule flags */
#define WIRE_F_DUAL_STACK_ANY	(1U << 0)	/* both families, address :: */
#define WIRE_F_WEAK		(1U << 1)	/* bind failures are no error */
#define WIRE_F_SCAN		(1U << 2)	/* only while it listens there */
#define WIRE_F_ALL		(WIRE_F_DUAL_STACK_ANY | WIRE_F_WEAK | \
				 WIRE_F_SCAN)

#define WIRE_MAX_RULES		1024	/* per table, accepted from a peer */
/* Rules of one pif (TCP and UDP together) that upstream's pasta and pesto
 * take: its rule index has 8 bits (FWD_RULE_BITS in its fwd_rule.h), and
 * a table, or a count read from the socket, above it is refused
 */
#define WIRE_PIF_RULES_MAX	255
#define WIRE_MAX_FRAME		(WIRE_HELLO_LEN + 1 + WIRE_PIF_MAX * \
				 (1 + WIRE_INFO_LEN + \
				  WIRE_MAX_RULES * WIRE_RULE_LEN))

/**
 * struct wire_rule - One rule, decoded (ports in host order)
 * @addr:	Bind address, IPv4-mapped for IPv4, :: with the dual flag
 * @taddr:	Target address, unspecified for the default one
 * @ifname:	Bind interface, NUL-terminated, "" for none
 * @first:	First port
 * @last:	Last port (inclusive)
 * @to:		Target port of @first
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @flags:	WIRE_F_*
 */
struct wire_rule {
	union inany addr;
	union inany taddr;
	char ifname[WIRE_IFNAMSIZ];
	uint16_t first;
	uint16_t last;
	uint16_t to;
	uint8_t proto;
	uint8_t flags;
};

/**
 * struct wire_pif - One table of a frame
 * @id:		pif id, WIRE_PIF_*
 * @name:	Name (server frames only), NUL-terminated
 * @caps:	Capabilities (server frames only)
 * @n:		Number of @rules
 * @rules:	Rules, in frame order
 */
struct wire_pif {
	uint8_t id;
	char name[WIRE_PIF_NAME_SIZE];
	uint32_t caps;
	unsigned n;
	struct wire_rule rules[WIRE_MAX_RULES];
};

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
size_t wire_hello_put(uint8_t *buf);
#endif
int wire_hello_check(const uint8_t *buf, char *err, size_t errlen);
void wire_rule_put(uint8_t *p, const struct wire_rule *r);
ssize_t wire_frame_get(const uint8_t *buf, size_t len, bool server,
		       struct wire_pif *pifs, unsigned *npifs, char *err,
		       size_t errlen);
int wire_table_rules(const struct fwd_table *t, uint8_t proto, bool ns_side,
		     struct wire_rule *out, unsigned max);
int wire_tables_fit(const struct fwd_table *tbls, bool pasta, char *err,
		    size_t errlen);
ssize_t wire_tables_put(uint8_t *buf, size_t size,
			const struct fwd_table *tbls, bool pasta,
			bool server, uint32_t caps);
int wire_pifs_apply(const struct wire_pif *pifs, unsigned npifs,
		    const struct fwd_table *cur, struct fwd_table *out,
		    bool pasta, char *err, size_t errlen);

#endif /* CONF_WIRE_H */
