/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/udp_internal.h - Helpers of passt/udp.c reachable from unit tests
 *
 * Frame builders and size rules of the UDP path (udp_frame.c): pure
 * functions on buffers, no sockets, no context; and the namespace socket
 * pool (udp_pool.c).
 */
#ifndef PASST_UDP_INTERNAL_H
#define PASST_UDP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include "../lib/inany.h"
#include "../lib/util.h"
#include "../tap/hdr.h"		/* UDP_HLEN: sizeof(struct udphdr) */
#include "flow.h"
#include "udp_flow.h"

/* Flow key "protocols" of spliced flows: values from the range RFC 3692
 * reserves for experiments, which the frame path never looks up, so the
 * keys of spliced flows can't collide with guest tuples.
 */
#define UDP_KEY_SPLICE_HOST	254	/* peer sent to a -u port on the host */
#define UDP_KEY_SPLICE_NS	253	/* peer sent to a -U port in the netns */

size_t udp_payload_max(int mtu, bool v4);
bool udp_uso_joins(bool same, unsigned n, size_t seg, size_t last,
		   size_t bytes, size_t len, bool v4);
struct conf;
size_t udp_frame_fill(const struct conf *c, uint8_t *l2,
		      const struct flow_key *k, size_t plen, bool partial);
size_t udp_icmp_unreach_len(bool v4);
size_t udp_icmp_unreach_fill(uint8_t *l2, const uint8_t *mac_dst,
			     const uint8_t *mac_src, const struct flow_key *k,
			     size_t dlen);
#define UDP_QUOTE_MAX		(IP6_HLEN + UDP_HLEN)	/* udp_icmp_quote() */
size_t udp_icmp_quote(uint8_t *q, const struct flow_key *k, size_t dlen);

struct msghdr;
void udp_pktinfo_parse(struct msghdr *mh, union inany *local,
		       union inany *hdr_dst, unsigned *ifindex);

/* UDP segmentation offload on host sockets (udp_gso.c) */
#define UDP_GSO_SEGS_IN_MAX	128	/* datagrams per guest super-frame */
#define UDP_GRO_BUF		65535	/* read buffer of a UDP_GRO socket */
#define UDP_GSO_CMSG_SPACE	CMSG_SPACE(sizeof(uint16_t))
unsigned udp_gso_segs(size_t len, size_t seg);
int udp_gso_in_check(size_t len, size_t seg, size_t pmax);
size_t udp_gro_size(struct msghdr *mh);
size_t udp_gso_cmsg(uint8_t *buf, size_t off, uint16_t seg);
bool udp_seg_enabled(void);

/* The namespace socket pool (udp_pool.c), for passt/udp.c */
#define UDP_POOL		16	/* namespace sockets per family, spare */

struct ctx;
struct udp_flow;
void udp_pool_refill(struct ctx *ctx);
int udp_pool_get(struct ctx *ctx, bool v4, bool *bound);
bool udp_pool_put_used(struct udp_flow *uf);
void udp_flow_touch(struct udp_flow *uf, int64_t now);

/* Flows, for the hand-over of a hitless restart (udp_restart.c) */
struct udp_flow *udp_flow_new(struct ctx *ctx, enum udp_kind kind,
			      const struct flow_key *key);
void udp_flow_close(struct ctx *ctx, struct udp_flow *uf, const char *why);
int udp_flow_epoll_add(struct ctx *ctx, struct udp_flow *uf);

#endif /* PASST_UDP_INTERNAL_H */
