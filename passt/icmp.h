/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/icmp.h - ICMP and ICMPv6 echo through ping sockets, and ICMP
 * destination unreachable errors to the guest
 */
#ifndef PASST_ICMP_H
#define PASST_ICMP_H

#include <stdbool.h>
#include <stdint.h>

#include "../tap/frame.h"
#include "epoll_ref.h"
#include "flow.h"

/**
 * struct icmp_stats - Counters of ICMP echo (--stats, SIGUSR1)
 * @echo_to_host:	Echo requests sent by ping sockets
 * @echo_from_host:	Echo replies to the guest
 * @errors_to_guest:	ICMP errors about the guest's requests relayed
 */
struct icmp_stats {
	uint64_t echo_to_host, echo_from_host, errors_to_guest;
};

extern struct icmp_stats icmp_stats;

struct ctx;
struct sock_extended_err;

bool icmp_tap_handler(struct ctx *ctx, const struct frame *f);
void icmp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events);
bool icmp_err_relayable(const struct sock_extended_err *ee, bool v4,
			uint32_t *mtu);
bool icmp_unreach_code(bool v4, int err, uint8_t *type, uint8_t *code);
bool icmp_unreach_to_guest(struct ctx *ctx, const struct flow_key *k,
			   int err, const uint8_t *quote, size_t qlen);
bool icmp_sock_err_to_guest(struct ctx *ctx, int s, const struct flow_key *k,
			    const union inany *hdst, const uint8_t *quote,
			    size_t qlen);

#endif /* PASST_ICMP_H */
