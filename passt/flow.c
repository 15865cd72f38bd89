// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/flow.c - Flow table: allocation, free list and guest-tuple hash
 *
 * DOC: Theory of Operation
 *
 * The table is one array of union flow with a capacity fixed at start-up
 * (--flow-max, default CONF_FLOW_MAX_DEFAULT), allocated once by
 * flow_init() and never resized: a full table makes flow_alloc() return
 * NULL and the caller refuses the new connection cleanly, without touching
 * the existing ones.  Free entries are kept on a stack, so allocation and
 * release are O(1); flow_hwm() bounds the indices ever used, for scans.
 *
 * Flows with a guest side are also in an open-addressing hash table keyed
 * by their guest-side 5-tuple (struct flow_key), twice as large as the flow
 * table and rounded to a power of two, with linear probing and backward-
 * shift deletion (no tombstones, so lookups never degrade).  The hash is
 * SipHash-2-4 under a random key, so a guest can't aim for collisions.
 */
#include <errno.h>
#include <linux/sock_diag.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "../conf/log.h"
#include "flow_table.h"
#include "siphash.h"

const char *const flow_type_str[FLOW_TYPE_COUNT] = {
	[FLOW_NONE] = "free", [FLOW_TCP] = "TCP", [FLOW_TCP_SPLICE] = "spliced TCP",
	[FLOW_UDP] = "UDP", [FLOW_PING] = "ICMP echo",
};

static union flow *flowtab;
static unsigned flowtab_max;
static unsigned *flow_free_stack;
static unsigned flow_free_n;
static unsigned *flow_deferred;	/* freed in this batch, not yet reusable */
static unsigned flow_deferred_n;
static unsigned flow_hwm_n;	/* highest index ever allocated, + 1 */
static uint32_t *flow_hash;	/* flow index + 1, 0 = empty */
static unsigned flow_hash_mask;
static uint8_t flow_hash_key[16];

/**
 * flow_init() - Allocate the table (set-up only)
 * @max:	Capacity, flows (1..65536)
 *
 * Return: 0, or -ENOMEM
 */
int flow_init(unsigned max)
{
	unsigned hsize = 1, i;

	while (hsize < max * 2)
		hsize <<= 1;

	flowtab = calloc(max, sizeof(*flowtab));
	flow_free_stack = calloc(max, sizeof(*flow_free_stack));
	flow_deferred = calloc(max, sizeof(*flow_deferred));
	flow_hash = calloc(hsize, sizeof(*flow_hash));
	if (!flowtab || !flow_free_stack || !flow_hash || !flow_deferred)
		return -ENOMEM;

	flowtab_max = max;
	flow_hash_mask = hsize - 1;
	for (i = 0; i < max; i++)
		flow_free_stack[i] = max - 1 - i;	/* lowest index on top */
	flow_free_n = max;
	flow_deferred_n = 0;
	flow_hwm_n = 0;

	if (getrandom(flow_hash_key, sizeof(flow_hash_key), 0) !=
	    sizeof(flow_hash_key))
		return -errno;
	return 0;
}

/**
 * flow_alloc() - Take a free entry
 *
 * Return: zeroed entry with type FLOW_NONE (the caller sets it), or NULL if
 *	   the table is full
 */
union flow *flow_alloc(void)
{
	unsigned idx;

	if (!flow_free_n)
		return NULL;
	idx = flow_free_stack[--flow_free_n];
	if (idx + 1 > flow_hwm_n)
		flow_hwm_n = idx + 1;
	memset(&flowtab[idx], 0, sizeof(flowtab[idx]));
	return &flowtab[idx];
}

/**
 * flow_key_hash() - Bucket of a key
 * @k:		Key
 *
 * Return: bucket index
 */
static unsigned flow_key_hash(const struct flow_key *k)
{
	return (unsigned)siphash24(flow_hash_key, k, sizeof(*k)) &
	       flow_hash_mask;
}

/**
 * flow_hash_del() - Remove a flow's key from the hash table
 * @flow:	Flow, hashed
 */
static void flow_hash_del(union flow *flow)
{
	unsigned b = flow_key_hash(&flow->f.key), idx = flow_idx(flow), j;

	while (flow_hash[b] && flow_hash[b] != idx + 1)
		b = (b + 1) & flow_hash_mask;
	if (!flow_hash[b])
		return;

	/* Backward-shift: move later entries of the run into the hole if
	 * their home bucket isn't between the hole and their position.
	 */
	j = b;
	for (;;) {
		unsigned home;

		flow_hash[b] = 0;
		do {
			j = (j + 1) & flow_hash_mask;
			if (!flow_hash[j])
				return;
			home = flow_key_hash(&flowtab[flow_hash[j] - 1].f.key);
		} while (b <= j ? (b < home && home <= j) :
				  (b < home || home <= j));
		flow_hash[b] = flow_hash[j];
		b = j;
	}
}

/**
 * flow_free() - Release an entry (and its hash key)
 * @flow:	Flow; its sockets must be closed already
 *
 * The key leaves the hash table at once, and the entry becomes FLOW_NONE,
 * but its index only goes back on the free stack at flow_free_flush(),
 * after the current batch of epoll events: an event for the closed socket
 * still queued in that batch names this index, and must find a dead entry
 * there, not a new flow that happens to have the same fd number.
 */
void flow_free(union flow *flow)
{
	if (flow->f.type == FLOW_NONE)
		return;
	if (flow->f.hashed)
		flow_hash_del(flow);
	flow->f.type = FLOW_NONE;
	flow->f.hashed = false;
	flow_deferred[flow_deferred_n++] = flow_idx(flow);
}

/**
 * flow_free_reuse_now() - Make a just-freed entry reusable at once
 * @flow:	Entry freed by flow_free() in this batch (type FLOW_NONE)
 *
 * For eviction (udp_evict_idle()): the entry is taken again right away by
 * a new flow.  An event of this batch for the old flow may then find the
 * new one: handlers check the type and the socket of the flow they get, and
 * a wrong but open socket only costs a read that returns EAGAIN.
 */
void flow_free_reuse_now(const union flow *flow)
{
	unsigned idx = flow_idx(flow), i;

	for (i = flow_deferred_n; i--; ) {
		if (flow_deferred[i] != idx)
			continue;
		flow_deferred[i] = flow_deferred[--flow_deferred_n];
		flow_free_stack[flow_free_n++] = idx;
		return;
	}
}

/**
 * flow_free_flush() - Make entries freed since the last call reusable
 *
 * Context: main loop, after each batch of epoll events and timers
 */
void flow_free_flush(void)
{
	while (flow_deferred_n)
		flow_free_stack[flow_free_n++] = flow_deferred[--flow_deferred_n];
}

/**
 * flow_idx() - Index of an entry
 * @flow:	Entry
 *
 * Return: index in the table
 */
unsigned flow_idx(const union flow *flow)
{
	return (unsigned)(flow - flowtab);
}

/**
 * flow_at() - Entry at an index
 * @idx:	Index (< flow_max())
 *
 * Return: entry
 */
union flow *flow_at(unsigned idx)
{
	return &flowtab[idx];
}

/**
 * flow_max() - Capacity
 *
 * Return: number of entries
 */
unsigned flow_max(void)
{
	return flowtab_max;
}

/**
 * flow_hwm() - One past the highest index ever allocated (for scans)
 *
 * Return: bound
 */
unsigned flow_hwm(void)
{
	return flow_hwm_n;
}

/**
 * flow_count() - Entries in use
 *
 * Return: count
 */
unsigned flow_count(void)
{
	return flowtab_max - flow_free_n - flow_deferred_n;
}

/**
 * flow_key_fill() - Build a key, padding zeroed (keys are hashed as bytes)
 * @k:		Key to fill
 * @proto:	L4 protocol
 * @g:		Guest address
 * @gport:	Guest port, host order
 * @f:		Far-end address as the guest sees it
 * @fport:	Far-end port, host order
 */
void flow_key_fill(struct flow_key *k, uint8_t proto, const union inany *g,
		   uint16_t gport, const union inany *f, uint16_t fport)
{
	memset(k, 0, sizeof(*k));
	k->gaddr = *g;
	k->faddr = *f;
	k->gport = gport;
	k->fport = fport;
	k->proto = proto;
}

/**
 * flow_hash_add() - Insert a flow's key (already in flow->f.key)
 * @flow:	Flow
 *
 * Return: 0, or -EEXIST if another flow has the same key
 */
int flow_hash_add(union flow *flow)
{
	unsigned b = flow_key_hash(&flow->f.key);

	while (flow_hash[b]) {
		if (!memcmp(&flowtab[flow_hash[b] - 1].f.key, &flow->f.key,
			    sizeof(flow->f.key)))
			return -EEXIST;
		b = (b + 1) & flow_hash_mask;
	}
	flow_hash[b] = flow_idx(flow) + 1;
	flow->f.hashed = true;
	return 0;
}

/**
 * flow_lookup() - Find a flow by guest-side tuple
 * @key:	Key, built with flow_key_fill()
 *
 * Return: flow, or NULL
 */
union flow *flow_lookup(const struct flow_key *key)
{
	unsigned b = flow_key_hash(key);

	while (flow_hash[b]) {
		union flow *f = &flowtab[flow_hash[b] - 1];

		if (!memcmp(&f->f.key, key, sizeof(*key)))
			return f;
		b = (b + 1) & flow_hash_mask;
	}
	return NULL;
}

#ifndef SO_MEMINFO
#define SO_MEMINFO		55	/* include/uapi/asm-generic/socket.h */
#endif

/**
 * flow_sock_meminfo() - Send buffer size and queued bytes of a socket
 * @s:		Socket
 * @sndbuf:	Result: sk_sndbuf, bytes
 * @queued:	Result: sk_wmem_queued, bytes of truesize in the write and
 *		retransmission queues: 0 once the peer has ACKed every byte
 *		written, and the FIN
 *
 * Both come from SO_MEMINFO (include/uapi/linux/sock_diag.h), the two
 * numbers tcp_sendmsg() compares.
 *
 * #syscalls getsockopt
 * Return: 0, or -errno (-EINVAL if the kernel's answer is too short)
 */
int flow_sock_meminfo(int s, uint32_t *sndbuf, uint32_t *queued)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t sl = sizeof(mi);

	if (getsockopt(s, SOL_SOCKET, SO_MEMINFO, mi, &sl) < 0)
		return -errno;
	if (sl < sizeof(uint32_t) * (SK_MEMINFO_WMEM_QUEUED + 1))
		return -EINVAL;
	*sndbuf = mi[SK_MEMINFO_SNDBUF];
	*queued = mi[SK_MEMINFO_WMEM_QUEUED];
	return 0;
}
