// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/flow.c - The flow layer: table, free list, guest-tuple hash, and the
 *		  walks that reach every flow through its type's operations
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
 *
 * Everything that concerns all flows walks the table once, here, and
 * calls the operations each type registered (struct flow_ops, flow.h):
 * the timer pass (flow_timer()), the exit drain (flow_drain()) and abort
 * (flow_abort_all()), the guest leaving or attaching (passt), and the one
 * eviction policy of a full table in flow_alloc(): the flow idle the
 * longest among the types that allow it (today UDP, as conntrack's early
 * drop), however recently, makes room for the new one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/sock_diag.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/visible.h"
#include "epoll_ref.h"
#include "flow_table.h"
#include "ctx.h"
#include "siphash.h"

VISIBLE_IF_UNIT
const char *const flow_state_str[FLOW_STATE_COUNT] = {
	[FLOW_STATE_FREE] = "FREE", [FLOW_STATE_NEW] = "NEW",
	[FLOW_STATE_ACTIVE] = "ACTIVE", [FLOW_STATE_DEAD] = "DEAD",
};

struct flow_stats flow_stats;

static void flow_free_reuse_now(const union flow *flow);

static const struct flow_ops *flow_ops_tab[FLOW_TYPE_COUNT];
static const struct flow_restart_ops *flow_restart_tab[FLOW_TYPE_COUNT];
static const struct flow_ops *flow_ops_epoll[EPOLL_TYPE_COUNT];
static bool flow_type_off[FLOW_TYPE_COUNT];	/* @init failed */
static union flow *flowtab;
static unsigned flowtab_max;
static unsigned *flow_free_stack;
static unsigned flow_free_n;
static unsigned *flow_deferred;	/* freed in this batch, not yet reusable */
static unsigned flow_deferred_n;
static unsigned flow_hwm_n;	/* highest index ever allocated, + 1 */
static uint32_t *flow_hash;	/* flow index + 1, 0 = empty */
/* Eviction order (flow_lru_touch()): a doubly-linked list through two
 * arrays beside the table, flow index + 1, 0 = none; head: least recently
 * used
 */
static uint32_t *flow_lru_prev, *flow_lru_next;
static uint32_t flow_lru_head, flow_lru_tail;
static unsigned flow_hash_mask;
static uint8_t flow_hash_key[16];

/**
 * flow_state_allowed() - May an entry go from one lifecycle state to another?
 * @from:	Current state
 * @to:		Next state
 *
 * The transitions of the lifecycle in flow.h, and no others (nor a state
 * to itself).
 *
 * Return: true if allowed
 */
VISIBLE_IF_UNIT
bool flow_state_allowed(enum flow_state from, enum flow_state to)
{
	switch (from) {
	case FLOW_STATE_FREE:
		return to == FLOW_STATE_NEW;
	case FLOW_STATE_NEW:
		return to == FLOW_STATE_ACTIVE || to == FLOW_STATE_DEAD;
	case FLOW_STATE_ACTIVE:
		return to == FLOW_STATE_DEAD;
	case FLOW_STATE_DEAD:
		return to == FLOW_STATE_FREE;
	default:
		return false;
	}
}

/**
 * flow_set_state() - Move an entry along its lifecycle: the only writer
 * @flow:	Entry
 * @state:	Next state, allowed from the current one (asserted)
 *
 * Logs "flow N TYPE: OLD -> NEW" at debug level.
 */
VISIBLE_IF_UNIT
void flow_set_state(union flow *flow, enum flow_state state)
{
	enum flow_state old = (enum flow_state)flow->f.state;

	ASSERT(old < FLOW_STATE_COUNT && state < FLOW_STATE_COUNT &&
	       flow_state_allowed(old, state));
	flow_dbg(flow, "%s -> %s", flow_state_str[old], flow_state_str[state]);
	flow->f.state = (uint8_t)state;
}

/**
 * flow_activate() - A module makes a new entry one of its flows
 * @flow:	Entry from flow_alloc(), in state NEW
 * @type:	The module's flow type
 *
 * From here on the walks and epoll events reach the flow through the
 * type's operations.
 */
void flow_activate(union flow *flow, enum flow_type type)
{
	ASSERT(type > FLOW_NONE && type < FLOW_TYPE_COUNT &&
	       flow->f.type == FLOW_NONE);
	flow->f.type = (uint8_t)type;
	flow_set_state(flow, FLOW_STATE_ACTIVE);
}

/**
 * flow_walk_check() - A walk met an entry with a type: it must be ACTIVE
 * @flow:	Entry
 *
 * Return: the operations of its type, NULL for an untyped entry
 */
static const struct flow_ops *flow_walk_check(const union flow *flow)
{
	if (flow->f.type == FLOW_NONE)
		return NULL;
	ASSERT(flow->f.state == FLOW_STATE_ACTIVE);
	return flow_ops_tab[flow->f.type];
}

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
	flow_lru_prev = calloc(max, sizeof(*flow_lru_prev));
	flow_lru_next = calloc(max, sizeof(*flow_lru_next));
	if (!flowtab || !flow_free_stack || !flow_hash || !flow_deferred ||
	    !flow_lru_prev || !flow_lru_next)
		return -ENOMEM;
	flow_lru_head = flow_lru_tail = 0;

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
 * flow_lru_on() - Is an entry on the eviction list?
 * @idx:	Flow index
 *
 * Return: true if it is
 */
static bool flow_lru_on(unsigned idx)
{
	return flow_lru_prev[idx] || flow_lru_head == idx + 1;
}

/**
 * flow_lru_unlink() - Take an entry off the eviction list, if it is on it
 * @idx:	Flow index
 */
static void flow_lru_unlink(unsigned idx)
{
	uint32_t p = flow_lru_prev[idx], n = flow_lru_next[idx];

	if (!flow_lru_on(idx))
		return;
	if (p)
		flow_lru_next[p - 1] = n;
	else
		flow_lru_head = n;
	if (n)
		flow_lru_prev[n - 1] = p;
	else
		flow_lru_tail = p;
	flow_lru_prev[idx] = flow_lru_next[idx] = 0;
}

/**
 * flow_lru_touch() - A flow of an evictable type was just used
 * @flow:	Flow, ACTIVE, of a type with @idle_since and @evict
 *
 * Moves the flow to the most recently used end of the eviction list, so
 * that the list stays in the order of the flows' last activity, and the
 * head is the flow flow_evict() takes: O(1), for every datagram.  Types
 * call it wherever they stamp a flow's last activity (as @idle_since
 * reports it), with a clock that never goes back (ctx->now).
 */
void flow_lru_touch(const union flow *flow)
{
	unsigned idx = flow_idx(flow);

	if (flow_lru_tail == idx + 1)
		return;
	flow_lru_unlink(idx);
	flow_lru_prev[idx] = flow_lru_tail;
	if (flow_lru_tail)
		flow_lru_next[flow_lru_tail - 1] = idx + 1;
	else
		flow_lru_head = idx + 1;
	flow_lru_tail = idx + 1;
}

/**
 * flow_evict() - Make room in a full table: evict the flow idle the longest
 * @ctx:	Context
 *
 * A program that opens a new socket for each DNS query leaves one idle
 * flow per query for the whole UDP timeout: without eviction, such
 * traffic alone fills the table and every new flow is refused until they
 * expire.  Like conntrack's early drop, the flow with the oldest activity
 * among the types that allow eviction (@idle_since) goes, however recent
 * that activity: a burst of queries, each from a new source port, fills
 * the table faster than any minimum idle time would free it, and the
 * least recently used flow is the one whose exchange is over (a DNS query
 * answered in milliseconds leaves its flow idle from then on).  So a new
 * flow is never refused while an evictable one exists.  With F entries
 * and Q new flows per second, a flow lives F / Q seconds at least before
 * it can go: 8192 entries keep a query 80 ms at 100 000 queries per
 * second, 1.6 s at 5 000.
 *
 * The candidates are the flows on the eviction list (flow_lru_touch()),
 * least recently used first: O(1) per new flow, however large the table
 * (a walk of 8,192 entries for each new flow of a DNS burst took 40 % of
 * the daemon's time).  A flow whose type says it may not go now
 * (@idle_since < 0) leaves the list until its next activity.
 *
 * Return: true if an entry was freed and is reusable now
 */
static bool flow_evict(struct ctx *ctx)
{
	union flow *old = NULL;

	while (flow_lru_head) {
		union flow *cand = &flowtab[flow_lru_head - 1];
		const struct flow_ops *ops = flow_walk_check(cand);

		if (ops && ops->idle_since && ops->evict &&
		    ops->idle_since(cand) >= 0) {
			old = cand;
			break;
		}
		flow_lru_unlink(flow_lru_head - 1);
	}
	if (!old)
		return false;
	flow_stats.evicted++;
	flow_ops_tab[old->f.type]->evict(ctx, old);
	flow_free_reuse_now(old);
	return true;
}

/**
 * flow_alloc() - Take a free entry, evicting an idle flow if the table is full
 * @ctx:	Context, for eviction (flow_evict()); NULL: never evict
 *
 * Return: zeroed entry with type FLOW_NONE (the caller sets it), or NULL if
 *	   the table is full and nothing could be evicted
 */
union flow *flow_alloc(struct ctx *ctx)
{
	unsigned idx;

	if (!flow_free_n && (!ctx || !flow_evict(ctx)))
		return NULL;
	idx = flow_free_stack[--flow_free_n];
	if (idx + 1 > flow_hwm_n)
		flow_hwm_n = idx + 1;
	ASSERT(flowtab[idx].f.state == FLOW_STATE_FREE);
	memset(&flowtab[idx], 0, sizeof(flowtab[idx]));
	flow_set_state(&flowtab[idx], FLOW_STATE_NEW);
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
 * flow_free() - Release an entry (and its hash key): NEW or ACTIVE -> DEAD
 * @flow:	Flow; its sockets must be closed already
 *
 * The key leaves the hash table at once, and the entry becomes FLOW_NONE,
 * DEAD, but its index only goes back on the free stack at
 * flow_free_flush(), after the current batch of epoll events: an event for
 * the closed socket still queued in that batch names this index, and must
 * find a dead entry there, not a new flow that happens to have the same fd
 * number.  A DEAD entry is left as it is; a FREE one is a bug (asserted).
 */
void flow_free(union flow *flow)
{
	if (flow->f.state == FLOW_STATE_DEAD)
		return;
	if (flow->f.hashed)
		flow_hash_del(flow);
	flow_lru_unlink(flow_idx(flow));
	flow_set_state(flow, FLOW_STATE_DEAD);
	flow->f.type = FLOW_NONE;
	flow->f.hashed = false;
	flow_deferred[flow_deferred_n++] = flow_idx(flow);
}

/**
 * flow_free_reuse_now() - Make a just-freed entry reusable at once
 * @flow:	Entry freed by flow_free() in this batch (type FLOW_NONE)
 *
 * For eviction (flow_evict()): the entry is taken again right away by
 * a new flow.  An event of this batch for the old flow may then find the
 * new one: handlers check the type and the socket of the flow they get, and
 * a wrong but open socket only costs a read that returns EAGAIN.
 */
static void flow_free_reuse_now(const union flow *flow)
{
	unsigned idx = flow_idx(flow), i;

	for (i = flow_deferred_n; i--; ) {
		if (flow_deferred[i] != idx)
			continue;
		flow_deferred[i] = flow_deferred[--flow_deferred_n];
		flow_set_state(&flowtab[idx], FLOW_STATE_FREE);
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
	while (flow_deferred_n) {
		unsigned idx = flow_deferred[--flow_deferred_n];

		flow_set_state(&flowtab[idx], FLOW_STATE_FREE);
		flow_free_stack[flow_free_n++] = idx;
	}
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
VISIBLE_IF_UNIT
unsigned flow_count(void)
{
	return flowtab_max - flow_free_n - flow_deferred_n;
}

/**
 * flow_count_type() - Active entries of one type
 * @t:		enum flow_type
 *
 * Context: any time (a scan up to flow_hwm(): not for the data path)
 * Return: count
 */
unsigned flow_count_type(enum flow_type t)
{
	unsigned i, n = 0;

	for (i = 0; i < flow_hwm(); i++) {
		const union flow *f = flow_at(i);

		if (f->f.state == FLOW_STATE_ACTIVE && f->f.type == t)
			n++;
	}
	return n;
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

	ASSERT(flow->f.state == FLOW_STATE_ACTIVE && !flow->f.hashed);
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

		if (!memcmp(&f->f.key, key, sizeof(*key))) {
			ASSERT(f->f.state == FLOW_STATE_ACTIVE);
			return f;
		}
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

/**
 * flow_ops_register() - Register the operations of a flow type
 * @t:		Flow type
 * @ops:	Its operations (static storage)
 *
 * Context: start of main(), from the type's register function
 *	    (tcp_flow_register(), ...), before any set-up
 */
void flow_ops_register(enum flow_type t, const struct flow_ops *ops)
{
	if (t <= FLOW_NONE || t >= FLOW_TYPE_COUNT)
		return;
	flow_ops_tab[t] = ops;
	if (ops->epoll_type && ops->epoll_type < EPOLL_TYPE_COUNT)
		flow_ops_epoll[ops->epoll_type] = ops;
}

/**
 * flow_restart_register() - Register a flow type's hand-over operations
 * @t:		Flow type
 * @ops:	Its operations (static storage)
 *
 * Context: start of main(), from the type's register function, before any
 *	    set-up
 */
void flow_restart_register(enum flow_type t,
			   const struct flow_restart_ops *ops)
{
	if (t > FLOW_NONE && t < FLOW_TYPE_COUNT)
		flow_restart_tab[t] = ops;
}

/**
 * flow_ops_of() - Operations of a flow type
 * @t:		Flow type
 *
 * Return: its operations, or NULL if no module registered it
 */
static const struct flow_ops *flow_ops_of(enum flow_type t)
{
	return t < FLOW_TYPE_COUNT ? flow_ops_tab[t] : NULL;
}

/**
 * flow_type_name() - Name of a flow type in logs (flow_dbg())
 * @t:		Flow type
 *
 * The name is the one the type registered (struct flow_ops, @name): the
 * flow layer keeps no second table of names.
 *
 * Return: "TCP", "spliced TCP", "UDP", "ICMP echo"...; "none" for
 *	   FLOW_NONE (an entry not typed yet), "?" for a type nobody
 *	   registered
 */
static const char *flow_type_name(enum flow_type t)
{
	const struct flow_ops *ops = flow_ops_of(t);

	if (t == FLOW_NONE)
		return "none";
	return ops && ops->name ? ops->name : "?";
}

/**
 * flow_describe_key() - The guest-side tuple of a flow, for flow_log()
 * @flow:	Flow with a key (TCP, UDP)
 * @buf:	Output: "[GADDR]:GPORT <-> [FADDR]:FPORT", NUL-terminated
 * @len:	Size of @buf, bytes
 *
 * The describe operation of the types whose key is the guest's tuple.
 */
void flow_describe_key(const union flow *flow, char *buf, size_t len)
{
	char g[INET6_ADDRSTRLEN], f[INET6_ADDRSTRLEN];

	snprintf(buf, len, "[%s]:%u <-> [%s]:%u",
		 inany_ntop(&flow->f.key.gaddr, g), flow->f.key.gport,
		 inany_ntop(&flow->f.key.faddr, f), flow->f.key.fport);
}

/**
 * flow_log() - Log a message about a flow: "flow N TYPE [DETAIL]: message"
 * @prio:	Syslog priority (LOG_DEBUG, LOG_WARNING...)
 * @entry:	Entry (any pointer to its start: union flow, a type's struct)
 * @fmt:	printf() format, then its arguments
 *
 * The one prefix of every message about one flow (flow_dbg(), flow_warn(),
 * flow_err() and their *_ratelimit() forms call this): the index, the
 * type's registered name, and what the type's describe operation says of
 * it, if it has one.  A message longer than 255 bytes is cut.
 *
 * Context: any, after flow_init()
 */
void flow_log(int prio, const void *entry, const char *fmt, ...)
{
	const union flow *flow = entry;
	enum flow_type t = (enum flow_type)flow->f.type;
	const struct flow_ops *ops = flow_ops_of(t);
	char detail[128] = "", msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t != FLOW_NONE && ops && ops->describe) {
		detail[0] = ' ';
		ops->describe(flow, detail + 1, sizeof(detail) - 1);
	}
	log_msg(prio, false, "flow %u %s%s: %s", flow_idx(flow),
		flow_type_name(t), detail, msg);
}

/**
 * flow_ops_by_epoll() - The flow type whose sockets have an epoll type
 * @epoll_type:	enum epoll_type
 *
 * Return: operations of that type, or NULL
 */
static const struct flow_ops *flow_ops_by_epoll(unsigned epoll_type)
{
	return epoll_type < EPOLL_TYPE_COUNT ? flow_ops_epoll[epoll_type] : NULL;
}

/**
 * flow_restart_save() - Hitless restart: every type's records of its flows
 * @b:		Stream being written (passt/restart.h)
 * @fds:	Descriptors to send
 * @max:	Room in @fds
 *
 * For the types that registered hand-over operations
 * (flow_restart_register(): the splice path, UDP): the core doesn't name
 * them.
 *
 * Context: restart_give()
 */
void flow_restart_save(struct restart_buf *b, int *fds, size_t max)
{
	unsigned t;

	for (t = FLOW_NONE + 1; t < FLOW_TYPE_COUNT; t++)
		if (flow_restart_tab[t] && flow_restart_tab[t]->save)
			flow_restart_tab[t]->save(b, fds, max);
}

/**
 * flow_restart_check() - Hitless restart: may a type make a flow of a record?
 * @t:		Flow type the record is for
 * @r:		Record, fields in range (restart_parse())
 *
 * Context: restart_take(), before the hand-over is confirmed
 * Return: true if so; false also if no module of that type is here
 */
bool flow_restart_check(enum flow_type t, const struct restart_rec *r)
{
	const struct flow_restart_ops *ops = t < FLOW_TYPE_COUNT ?
					     flow_restart_tab[t] : NULL;

	return ops && ops->check && ops->check(r);
}

/**
 * flow_restart_adopt() - Hitless restart: a flow of a type from a record
 * @ctx:	Context
 * @t:		Flow type the record is for
 * @r:		Record, checked
 * @fds:	Its descriptors, in the order of the type's record
 *
 * Context: restart_adopt()
 * Return: true if the type took them (each one is its to close), false if
 *	   no module of that type is here (the caller closes them)
 */
bool flow_restart_adopt(struct ctx *ctx, enum flow_type t,
			const struct restart_rec *r, const int *fds)
{
	const struct flow_restart_ops *ops = t < FLOW_TYPE_COUNT ?
					     flow_restart_tab[t] : NULL;

	if (!ops || !ops->adopt)
		return false;
	ops->adopt(ctx, r, fds);
	return true;
}

/**
 * flow_types_init() - Set up the types that have an @init operation
 * @ctx:	Context, after the namespace is set up and after daemonizing
 *
 * A type whose @init fails is off: flow_type_on() says so.
 *
 * Context: set-up
 */
void flow_types_init(struct ctx *ctx)
{
	unsigned t;

	for (t = FLOW_NONE + 1; t < FLOW_TYPE_COUNT; t++)
		if (flow_ops_tab[t] && flow_ops_tab[t]->init &&
		    flow_ops_tab[t]->init(ctx) < 0)
			flow_type_off[t] = true;
}

/**
 * flow_type_on() - Is a flow type registered, and did its set-up work?
 * @t:		Flow type
 *
 * Return: true if flows of this type can be made
 */
bool flow_type_on(enum flow_type t)
{
	return flow_ops_of(t) && !flow_type_off[t];
}

/**
 * flow_sock_event() - An epoll event on a flow's socket: to its type
 * @ctx:	Context
 * @ref:	epoll reference (the epoll type names the flow type)
 * @events:	epoll events
 *
 * Context: main loop
 */
void flow_sock_event(struct ctx *ctx, union epoll_ref ref, uint32_t events)
{
	const struct flow_ops *ops = flow_ops_by_epoll(ref.type);

	if (ops && ops->sock)
		ops->sock(ctx, ref, events);
}

/**
 * flow_timer() - The timer pass: each type's @tick, then each flow's @timer
 * @ctx:	Context; @ctx->now is current
 *
 * One walk of the table for all types; the earliest deadline any flow
 * returns is asked for with timer_want().
 *
 * Context: main loop, when ctx->timer_next is reached
 */
void flow_timer(struct ctx *ctx)
{
	int64_t next = INT64_MAX;
	unsigned i, t;

	for (t = FLOW_NONE + 1; t < FLOW_TYPE_COUNT; t++)
		if (flow_ops_tab[t] && flow_ops_tab[t]->tick)
			flow_ops_tab[t]->tick(ctx);

	for (i = 0; i < flow_hwm_n; i++) {
		const struct flow_ops *ops = flow_walk_check(&flowtab[i]);
		int64_t at;

		if (!ops || !ops->timer)
			continue;
		at = ops->timer(ctx, &flowtab[i]);
		if (at < next)
			next = at;
	}
	if (next != INT64_MAX)
		timer_want(ctx, next);
}

/**
 * flow_drain() - Exit drain: close the flows that have finished
 * @ctx:	Context, with @ctx->drain_soft and @ctx->drain_hard set
 * @abort:	The soft deadline passed: give up on the others too (each
 *		type's @drain says what giving up means for it)
 *
 * Context: main loop, while @ctx->draining
 * Return: flows still open, of the types that drain
 */
unsigned flow_drain(struct ctx *ctx, bool abort)
{
	unsigned i, left = 0;

	for (i = 0; i < flow_hwm_n; i++) {
		const struct flow_ops *ops = flow_walk_check(&flowtab[i]);

		if (ops && ops->drain && ops->drain(ctx, &flowtab[i], abort))
			left++;
	}
	return left;
}

/**
 * flow_abort_all() - Exit: reset every flow of the types that can be reset
 * @ctx:	Context
 *
 * What is still open is aborted, not complete: the peers see a reset, not
 * the end of the stream (RFC 9293 3.6, ABORT vs CLOSE).
 *
 * Context: after the main loop
 */
void flow_abort_all(struct ctx *ctx)
{
	unsigned i;

	for (i = 0; i < flow_hwm_n; i++) {
		const struct flow_ops *ops = flow_walk_check(&flowtab[i]);

		if (ops && ops->abort)
			ops->abort(ctx, &flowtab[i]);
	}
}

/**
 * flow_addr_gone() - Is this a host-side address the host no longer has?
 * @a:		Local address of a flow's host side (IPv4-mapped for IPv4)
 * @has_addr:	Does the host have this address (family, network order)?
 *
 * The wildcard and loopback addresses are never gone: a socket bound to
 * them doesn't depend on an address of a link.
 *
 * Return: true if @a is a specific, non-loopback address for which
 *	   @has_addr() returns false
 */
bool flow_addr_gone(const union inany *a,
		    bool (*has_addr)(int af, const void *addr))
{
	const struct in_addr *a4 = inany_v4(a);

	if (inany_is_unspecified(a) || inany_is_loopback(a))
		return false;
	if (a4)
		return !has_addr(AF_INET, a4);
	return !has_addr(AF_INET6, &a->a6);
}

/**
 * flow_sock_addr_gone() - Is a socket's local address one the host lost?
 * @s:		TCP, UDP or ping socket of our own, bound or connected
 * @has_addr:	Does the host have this address (family, network order)?
 *
 * After connect(), the local address is the one the kernel chose for the
 * destination (ip(7), ipv6(7): getsockname()).  The kernel keeps it when
 * the host loses it, and every later send from it fails (IPv4: EINVAL,
 * the route lookup refuses a source that isn't local) or leaves with a
 * source the peer can't answer.
 *
 * #syscalls getsockname
 * Return: true if flow_addr_gone() says so for the local address of @s;
 *	   false if @s is -1, of another family, or getsockname() fails
 */
bool flow_sock_addr_gone(int s, bool (*has_addr)(int af, const void *addr))
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	union inany a;
	uint16_t port;

	if (s < 0 || getsockname(s, (struct sockaddr *)&ss, &sl))
		return false;
	if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
		return false;
	inany_from_sockaddr(&a, &port, &ss);
	return flow_addr_gone(&a, has_addr);
}

/**
 * flow_host_changed() - The host's addresses changed: tell every flow that
 *			 cares
 * @ctx:	Context
 * @has_addr:	Does the host have this address (family, network order)?
 *
 * Context: passt/follow.c, once changes settled
 */
void flow_host_changed(struct ctx *ctx,
		       bool (*has_addr)(int af, const void *addr))
{
	unsigned i;

	for (i = 0; i < flow_hwm_n; i++) {
		const struct flow_ops *ops = flow_walk_check(&flowtab[i]);

		if (ops && ops->host_changed)
			ops->host_changed(ctx, &flowtab[i], has_addr);
	}
}

/**
 * flow_guest_gone() - The guest went away: tell every flow that cares
 * @ctx:	Context
 * @ms:		How long host peers may take to ACK what we ACKed, ms; 0 if
 *		we are exiting (--one-off: the exit drain follows)
 *
 * Context: passt, when the stream client disconnects
 */
void flow_guest_gone(struct ctx *ctx, unsigned ms)
{
	unsigned i;

	for (i = 0; i < flow_hwm_n; i++) {
		const struct flow_ops *ops = flow_walk_check(&flowtab[i]);

		if (ops && ops->guest_gone)
			ops->guest_gone(ctx, &flowtab[i], ms);
	}
}

/**
 * flow_guest_attached() - A guest attached: tell every flow that waited
 * @ctx:	Context
 *
 * Context: passt, when a client connects to the UNIX socket
 */
void flow_guest_attached(struct ctx *ctx)
{
	unsigned i;

	for (i = 0; i < flow_hwm_n; i++) {
		const struct flow_ops *ops = flow_walk_check(&flowtab[i]);

		if (ops && ops->guest_attached)
			ops->guest_attached(ctx, &flowtab[i]);
	}
}

/**
 * flow_accept() - Hand an accepted socket to the type forwarding chose
 * @ctx:	Context
 * @t:		Flow type (fwd_tcp_path())
 * @a:		The socket, its protocol, source and ports
 *
 * Return: true if the type took the socket (or refused and closed it),
 *	   false if the caller keeps it (the tap path), also if the type
 *	   has no @accept operation
 */
bool flow_accept(struct ctx *ctx, enum flow_type t,
		 const struct flow_accept *a)
{
	const struct flow_ops *ops = flow_ops_of(t);

	if (!ops || !ops->accept)
		return false;
	return ops->accept(ctx, a);
}

/**
 * flow_stats_print() - Print each type's counters, in type order
 */
void flow_stats_print(void)
{
	unsigned t;

	for (t = FLOW_NONE + 1; t < FLOW_TYPE_COUNT; t++)
		if (flow_ops_tab[t] && flow_ops_tab[t]->stats_print)
			flow_ops_tab[t]->stats_print();
}

/**
 * flow_refused_nofile() - Count a new flow refused for want of descriptors
 *			   or socket memory (EMFILE, ENFILE, ENOBUFS, ENOMEM)
 *
 * Context: any flow type's open path; the flow layer owns the counter
 */
void flow_refused_nofile(void)
{
	flow_stats.refused_nofile++;
}

/**
 * flow_tcp_refused_full() - Count a TCP connection refused, tap or splice,
 *			     because the flow table is full
 *
 * Context: TCP and splice open paths; the flow layer owns the counter
 */
void flow_tcp_refused_full(void)
{
	flow_stats.tcp_refused_full++;
}

/**
 * flow_stats_sum() - Sum of every counter of every type, and the layer's own
 *
 * Return: the sum (it changes when any counter does: --stats DELAY)
 */
uint64_t flow_stats_sum(void)
{
	uint64_t sum = flow_stats.refused_nofile + flow_stats.evicted +
		       flow_stats.tcp_refused_full;
	unsigned t, k;

	for (t = FLOW_NONE + 1; t < FLOW_TYPE_COUNT; t++) {
		const struct flow_ops *ops = flow_ops_tab[t];

		for (k = 0; ops && k < ops->ncounters; k++)
			sum += ops->counters[k];
	}
	return sum;
}

/**
 * flow_sock_rqueue_empty() - Is a socket's receive queue empty?
 * @s:		Socket
 *
 * sk_rmem_alloc (SO_MEMINFO, include/uapi/linux/sock_diag.h) is 0 when
 * nothing waits to be read: close() then ends a TCP socket with a FIN
 * after what it still has to send, instead of a reset (tcp_close()).
 *
 * #syscalls getsockopt
 * Return: true if empty, false if not or if we can't tell
 */
bool flow_sock_rqueue_empty(int s)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t sl = sizeof(mi);

	if (getsockopt(s, SOL_SOCKET, SO_MEMINFO, mi, &sl) < 0 ||
	    sl < sizeof(uint32_t) * (SK_MEMINFO_RMEM_ALLOC + 1))
		return false;
	return !mi[SK_MEMINFO_RMEM_ALLOC];
}
