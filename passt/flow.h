/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/flow.h - The flow layer: table, keys, lifecycle, per-type operations
 *
 * A flow is one connection (TCP), one spliced connection pair, one UDP
 * "connection" or one ICMP echo identifier.  Every entry of the table starts
 * with struct flow_common.  Flows with a guest side are found from frames
 * by their guest-side 5-tuple (struct flow_key) in a hash table; from host
 * sockets they are found by the index stored in the epoll reference.
 *
 * Each flow type is implemented by one module (passt/tcp.c, passt/udp.c,
 * passt/icmp.c, splice/tcp_splice.c), which registers a struct flow_ops
 * with flow_ops_register() from its register function (tcp_flow_register(),
 * ...), called by name from the entry point (entry/main.c) before any
 * set-up, as the kernel's inet_init() calls proto_register().  The flow
 * layer calls
 * those operations, and nothing else of the module: the main loop, the
 * timers, eviction, the exit drain and the guest's comings and goings all
 * reach a type through its table, so the core never names a module that
 * depends on it (splice/).
 *
 * Lifecycle of an entry (f.state, enum flow_state; changed only by
 * flow_set_state(), which asserts the transition and logs it at debug level
 * as "flow N TYPE: OLD -> NEW"):
 *
 *   FREE --flow_alloc()--> NEW (zeroed, type FLOW_NONE, owned by the
 *	caller, not yet visible to any walk)
 *   NEW --flow_activate(): the module sets f.type--> ACTIVE (seen by
 *	flow_timer(), flow_drain(), flow_abort_all(), epoll events naming
 *	its index, and eviction if its type allows it); the module fills
 *	f.key and calls flow_hash_add() after that
 *   ACTIVE --module closes its sockets, flow_free()--> DEAD (type back to
 *	FLOW_NONE, key removed; the index is not reusable yet, so a queued
 *	epoll event for a closed socket finds a dead entry)
 *   DEAD --flow_free_flush(), after the batch--> FREE
 *   (eviction: ACTIVE --ops->evict()--> DEAD --flow_free_reuse_now()-->
 *	FREE, inside flow_alloc())
 *   NEW --flow_free()--> DEAD, for a caller that gives up half-way.
 *
 * Nothing else is allowed (flow_state_allowed()).  An entry has a type if
 * and only if it is ACTIVE: the walks assert it.  flow_free() of a DEAD
 * entry does nothing (a second close in the same batch).
 *
 * Only the module owning the type writes its fields.
 */
#ifndef PASST_FLOW_H
#define PASST_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/inany.h"
#include "../lib/log.h"
#include "../lib/util.h"

enum flow_type {
	FLOW_NONE = 0,
	FLOW_TCP,
	FLOW_TCP_SPLICE,
	FLOW_UDP,
	FLOW_PING,
	FLOW_TYPE_COUNT
};


/* Lifecycle of a table entry: see above */
enum flow_state {
	FLOW_STATE_FREE = 0,	/* on the free stack (a zeroed table is) */
	FLOW_STATE_NEW,		/* taken by flow_alloc(), no type yet */
	FLOW_STATE_ACTIVE,	/* typed, seen by the walks */
	FLOW_STATE_DEAD,	/* freed in this batch, not reusable yet */
	FLOW_STATE_COUNT
};

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
extern const char *const flow_state_str[FLOW_STATE_COUNT];
#endif

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
 * @state:	enum flow_state, written by flow_set_state() only
 * @hashed:	@key is in the hash table
 * @key:	Guest-side tuple (flows with a guest side)
 */
struct flow_common {
	uint8_t type;
	uint8_t state;
	bool hashed;
	struct flow_key key;
};

union flow;
union epoll_ref;
struct ctx;
struct restart_buf;
struct restart_rec;

/**
 * struct flow_accept - A socket accepted on a forwarded-port listener, for
 *			the @accept operation of the type that takes it
 * @proto:	IPPROTO_TCP (no other protocol accepts today)
 * @s:		Accepted socket
 * @peer:	Its peer address
 * @peer_port:	Its peer port, host order
 * @port:	Listening port, host order
 * @to_port:	Target port, host order
 * @from_ns:	The listener is in the namespace (-T)
 */
struct flow_accept {
	uint8_t proto;
	int s;
	union inany peer;
	uint16_t peer_port;
	uint16_t port;
	uint16_t to_port;
	bool from_ns;
};

/**
 * struct flow_ops - What the flow layer calls for one type
 * @name:	Type name in logs: "flow N @name: ..." (flow_type_name())
 * @epoll_type:	enum epoll_type of the type's sockets, 0 if none
 * @sock:	epoll event on one of the type's sockets (main loop)
 * @init:	Set-up of the type, after the namespace exists and after
 *		daemonizing (flow_types_init()); 0, or -errno if the type
 *		is off (its flows then aren't made)
 * @timer:	Timer pass, for each flow of the type: do what is due
 *		(ctx->now), return the flow's next deadline (ms, INT64_MAX
 *		for none); the flow may be freed
 * @tick:	Timer pass, once for the type before its flows' @timer
 * @idle_since:	Eviction: time of the flow's last activity (ms), or -1 if
 *		it may not be evicted; NULL: the type never is.  Only flows
 *		put on the eviction list with flow_lru_touch() are candidates
 * @evict:	Close a flow chosen for eviction (flow table full)
 * @drain:	Exit drain: close the flow if it has finished; @abort: the
 *		soft deadline passed, give up on it; return true if it is
 *		still open
 * @abort:	Exit: reset the flow (RFC 9293 3.6 ABORT), free it
 * @guest_gone:	The guest went away (passt stream client); @ms: how long
 *		host peers may take to ACK what we ACKed, 0 if we are
 *		exiting (the exit drain follows)
 * @guest_attached: A guest attached (passt stream client)
 * @host_changed: The host's addresses changed (passt/follow.c): reset the
 *		flow if its host-side address is no longer one for which
 *		@has_addr() (address family, address in network order)
 *		returns true
 * @accept:	A connection accepted on a forwarded-port listener that
 *		the forwarding decision (fwd_tcp_path()) sent to this type,
 *		described by @a (struct flow_accept: protocol, socket,
 *		source, ports); return true if taken (or refused and
 *		closed), false to leave it to the caller (the tap path)
 * @stats_print: Print the type's counters (passt_stats_dump())
 * @counters:	The type's counters: an array of uint64_t ...
 * @ncounters:	... of this many elements (flow_stats_sum())
 */
struct flow_ops {
	const char *name;
	uint8_t epoll_type;
	void (*sock)(struct ctx *ctx, union epoll_ref ref, uint32_t events);
	int (*init)(struct ctx *ctx);
	int64_t (*timer)(struct ctx *ctx, union flow *flow);
	void (*tick)(struct ctx *ctx);
	int64_t (*idle_since)(const union flow *flow);
	void (*evict)(struct ctx *ctx, union flow *flow);
	bool (*drain)(struct ctx *ctx, union flow *flow, bool abort);
	void (*abort)(struct ctx *ctx, union flow *flow);
	void (*guest_gone)(struct ctx *ctx, union flow *flow, unsigned ms);
	void (*guest_attached)(struct ctx *ctx, union flow *flow);
	void (*host_changed)(struct ctx *ctx, union flow *flow,
			     bool (*has_addr)(int af, const void *addr));
	bool (*accept)(struct ctx *ctx, const struct flow_accept *a);
	void (*stats_print)(void);
	const uint64_t *counters;
	unsigned ncounters;
	void (*describe)(const union flow *flow, char *buf, size_t len);
};

/**
 * struct flow_restart_ops - A flow type's part in a hitless restart
 * @save:	Old process: append a record per flow of the type to the
 *		stream, and its descriptors (passt/restart.h)
 * @check:	New process, before it confirms: can a record be made into
 *		a flow (its states and flags consistent)?
 * @adopt:	New process: make a flow from one of those records, with
 *		its descriptors (-1 for none), already checked by
 *		restart_parse()
 *
 * Registered apart from struct flow_ops (flow_restart_register()), by the
 * file that holds them, so that a type's hand-over code may live beside
 * its data path without the two files naming each other.
 */
struct flow_restart_ops {
	void (*save)(struct restart_buf *b, int *fds, size_t max);
	bool (*check)(const struct restart_rec *r);
	void (*adopt)(struct ctx *ctx, const struct restart_rec *r,
		      const int *fds);
};

/**
 * struct flow_stats - Counters of the flow layer
 * @refused_nofile:	New flows refused: out of descriptors or memory
 * @evicted:		Flows evicted for a new one (table full)
 * @tcp_refused_full:	TCP connections refused, tap or splice: table full
 */
struct flow_stats {
	uint64_t refused_nofile;
	uint64_t evicted;
	uint64_t tcp_refused_full;
};

extern struct flow_stats flow_stats;

void flow_refused_nofile(void);
void flow_tcp_refused_full(void);

void flow_restart_save(struct restart_buf *b, int *fds, size_t max);
bool flow_restart_check(enum flow_type t, const struct restart_rec *r);
bool flow_restart_adopt(struct ctx *ctx, enum flow_type t,
			const struct restart_rec *r, const int *fds);
void flow_ops_register(enum flow_type t, const struct flow_ops *ops);
void flow_restart_register(enum flow_type t,
			   const struct flow_restart_ops *ops);
void flow_types_init(struct ctx *ctx);
bool flow_type_on(enum flow_type t);
void flow_sock_event(struct ctx *ctx, union epoll_ref ref, uint32_t events);
void flow_timer(struct ctx *ctx);
unsigned flow_drain(struct ctx *ctx, bool abort);
void flow_abort_all(struct ctx *ctx);
void flow_host_changed(struct ctx *ctx,
		       bool (*has_addr)(int af, const void *addr));
bool flow_addr_gone(const union inany *a,
		    bool (*has_addr)(int af, const void *addr));
bool flow_sock_addr_gone(int s, bool (*has_addr)(int af, const void *addr));
void flow_guest_gone(struct ctx *ctx, unsigned ms);
void flow_guest_attached(struct ctx *ctx);
bool flow_accept(struct ctx *ctx, enum flow_type t,
		 const struct flow_accept *a);
void flow_stats_print(void);
uint64_t flow_stats_sum(void);

void flow_describe_key(const union flow *flow, char *buf, size_t len);
void flow_log(int prio, const void *entry, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * flow_dbg() - Debug message prefixed with "flow N TYPE [DETAIL]: "
 * @entry:	Entry (any pointer to its start: union flow, a type's struct)
 * @fmt:	printf() format, then its arguments
 *
 * DETAIL is what the type's describe operation says of the flow (TCP and
 * UDP: the guest-side tuple; spliced TCP: the ports).  The arguments are
 * evaluated only at debug level.  flow_warn(), flow_err() and the
 * *_ratelimit() forms are the same at their levels (flow_log()).
 */
#define flow_dbg(entry, ...)						\
	do {								\
		if (log_level >= LOG_DEBUG)				\
			flow_log(LOG_DEBUG, (entry), __VA_ARGS__);	\
	} while (0)
#define flow_info(entry, ...)	flow_log(LOG_INFO, (entry), __VA_ARGS__)
#define flow_warn(entry, ...)	flow_log(LOG_WARNING, (entry), __VA_ARGS__)
#define flow_err(entry, ...)	flow_log(LOG_ERR, (entry), __VA_ARGS__)

/**
 * flow_warn_ratelimit() - flow_warn() at most LOG_RL_BURST times per second
 *			   per call site (lib/log.h, warn_ratelimit())
 * @now:	Current time, ms (CLOCK_MONOTONIC)
 * @entry:	Entry, as for flow_dbg()
 */
#define flow_warn_ratelimit(now, entry, ...)				\
	do {								\
		static int64_t rl_last_;				\
		static unsigned rl_count_;				\
		if (log_ratelimit_ok(&rl_last_, &rl_count_, (now)))	\
			flow_log(LOG_WARNING, (entry), __VA_ARGS__);	\
	} while (0)

/**
 * flow_dbg_ratelimit() - flow_dbg() at most LOG_RL_BURST times per second
 *			  per call site
 * @now:	Current time, ms (CLOCK_MONOTONIC)
 * @entry:	Entry, as for flow_dbg()
 */
#define flow_dbg_ratelimit(now, entry, ...)				\
	do {								\
		static int64_t rl_last_;				\
		static unsigned rl_count_;				\
		if (log_level >= LOG_DEBUG &&				\
		    log_ratelimit_ok(&rl_last_, &rl_count_, (now)))	\
			flow_log(LOG_DEBUG, (entry), __VA_ARGS__);	\
	} while (0)

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
bool flow_state_allowed(enum flow_state from, enum flow_state to);
void flow_set_state(union flow *flow, enum flow_state state);
#endif
void flow_activate(union flow *flow, enum flow_type type);

int flow_init(unsigned max);
void flow_lru_touch(const union flow *flow);
union flow *flow_alloc(struct ctx *ctx);
void flow_free(union flow *flow);
void flow_free_flush(void);
unsigned flow_idx(const union flow *flow);
union flow *flow_at(unsigned idx);
unsigned flow_max(void);
unsigned flow_hwm(void);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
unsigned flow_count(void);
#endif
unsigned flow_count_type(enum flow_type t);
int flow_hash_add(union flow *flow);
union flow *flow_lookup(const struct flow_key *key);
void flow_key_fill(struct flow_key *k, uint8_t proto, const union inany *g,
		   uint16_t gport, const union inany *f, uint16_t fport);

int flow_sock_meminfo(int s, uint32_t *sndbuf, uint32_t *queued);
bool flow_sock_rqueue_empty(int s);

#endif /* PASST_FLOW_H */
