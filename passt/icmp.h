/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/icmp.h - ICMP and ICMPv6 echo through ping sockets, and ICMP
 * destination unreachable errors to the guest
 */
#ifndef PASST_ICMP_H
#define PASST_ICMP_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "../lib/inany.h"
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


/* Control buffer for one error from a socket's error queue: the
 * IP_RECVERR or IPV6_RECVERR message, struct sock_extended_err and the
 * offender's address (ip(7), ipv6(7))
 */
#define ICMP_ERRQUEUE_CBUF	CMSG_SPACE(sizeof(struct sock_extended_err) + \
					   sizeof(struct sockaddr_in6))

struct conf;
struct ctx;

void icmp_flow_register(void);
bool icmp_tap_handler(struct ctx *ctx, const struct frame *f);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
void icmp_sock_handler(struct ctx *ctx, union epoll_ref ref, uint32_t events);
#endif
bool icmp_err_relayable(const struct sock_extended_err *ee, bool v4,
			uint32_t *mtu);
ssize_t icmp_errqueue_recv(int s, struct msghdr *mh,
			   const struct sock_extended_err **ee);
bool icmp_err_source(const struct conf *c, const struct sock_extended_err *ee,
		     bool v4, const union inany *hdst, const union inany *gdst,
		     union inany *src);
bool icmp_err_send(const struct conf *c, const union inany *src,
		   const union inany *dst, uint8_t type, uint8_t code,
		   uint32_t info, const uint8_t *quote, size_t qlen);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
bool icmp_unreach_code(bool v4, int err, uint8_t *type, uint8_t *code);
#endif
bool icmp_unreach_to_guest(struct ctx *ctx, const struct flow_key *k,
			   int err, const uint8_t *quote, size_t qlen);
bool icmp_sock_err_to_guest(struct ctx *ctx, int s, const struct flow_key *k,
			    const union inany *hdst, const uint8_t *quote,
			    size_t qlen);

#endif /* PASST_ICMP_H */
