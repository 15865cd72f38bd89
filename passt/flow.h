/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/flow.h - Flow table: common header, keys and lifecycle
 *
 * A flow is one connection (TCP), one spliced connection pair, one UDP
 * "connection" or one ICMP echo identifier.  Every entry of the table starts
 * with struct flow_common.  Flows with a guest side are found from frames
 * by their guest-side 5-tuple (struct flow_key) in a hash table; from host
 * sockets they are found by the index stored in the epoll reference.
 *
 * Lifecycle: FLOW_NONE (free) -> flow_alloc() -> typed by the caller, which
 * fills the key and calls flow_hash_add() if it has a guest side ->
 * flow_free() (removes the key if hashed) -> FLOW_NONE.  Only the module
 * owning the type writes its fields.
 */
#ifndef PASST_FLOW_H
#define PASST_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "../conf/util.h"

enum flow_type {
	FLOW_NONE = 0,
	FLOW_TCP,
	FLOW_TCP_SPLICE,
	FLOW_UDP,
	FLOW_PING,
	FLOW_TYPE_COUNT
};

extern const char *const flow_type_str[FLOW_TYPE_COUNT];

/**
 * struct flow_key - Guest-side 5-tuple, as the guest sees it
 * @gaddr:	Guest address
 * @faddr:	Far-end address as the guest sees it (before translation)
 * @gport:	Guest port (ICMP: echo identifier), host order
 * @fport:	Far-end port (ICMP: 0), host order
 * @proto:	IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP or IPPROTO_ICMPV6
 */
struct flow_key {
	union inany gaddr;
	union inany faddr;
	uint16_t gport;
	uint16_t fport;
	uint8_t proto;
	uint8_t pad[3];
};

/**
 * struct flow_common - Header of every flow table entry
 * @type:	enum flow_type
 * @hashed:	@key is in the hash table
 * @key:	Guest-side tuple (flows with a guest side)
 */
struct flow_common {
	uint8_t type;
	bool hashed;
	struct flow_key key;
};

union flow;

int flow_init(unsigned max);
union flow *flow_alloc(void);
void flow_free(union flow *flow);
void flow_free_flush(void);
void flow_free_reuse_now(const union flow *flow);
unsigned flow_idx(const union flow *flow);
union flow *flow_at(unsigned idx);
unsigned flow_max(void);
unsigned flow_hwm(void);
unsigned flow_count(void);
int flow_hash_add(union flow *flow);
union flow *flow_lookup(const struct flow_key *key);
void flow_key_fill(struct flow_key *k, uint8_t proto, const union inany *g,
		   uint16_t gport, const union inany *f, uint16_t fport);

int flow_sock_meminfo(int s, uint32_t *sndbuf, uint32_t *queued);

#endif /* PASST_FLOW_H */
