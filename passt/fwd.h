/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/fwd.h - Address translation and forwarded-port listeners
 */
#ifndef PASST_FWD_H
#define PASST_FWD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "../conf/conf.h"

struct ctx;

#define FWD_UDP_RCVBUF	(4 << 20)	/* -u/-U listeners: bytes asked, SO_RCVBUF */

bool fwd_nat_to_host(const struct conf *c, const union inany *dst,
		     union inany *host);
bool fwd_nat_to_host_port(const struct conf *c, const union inany *dst,
			  uint16_t dport, union inany *host, uint16_t *hport);
void fwd_nat_to_guest(const struct conf *c, const union inany *peer,
		      union inany *src);
void fwd_guest_addr(const struct conf *c, int af, union inany *addr);
uint16_t fwd_port(const struct fwd_table *t, unsigned rule, uint16_t port);
int fwd_listen(struct ctx *ctx, uint8_t proto, const struct fwd_table *t,
	       bool ns);
int fwd_listen_dyn(struct ctx *ctx, uint8_t proto, const struct fwd_rule *r,
		   uint16_t port, bool ns, int fds[2]);
socklen_t sockaddr_from_inany(struct sockaddr_storage *sa,
			      const union inany *a, uint16_t port,
			      unsigned scope_id);
bool fwd_outbound(const struct conf *c, const union inany *host,
		  union inany *baddr, const char **ifname);
int fwd_sock_outbound(const struct conf *c, int s, const union inany *host,
		      bool bind_addr);
void inany_from_sockaddr(union inany *a, uint16_t *port,
			 const struct sockaddr_storage *sa);

#endif /* PASST_FWD_H */
