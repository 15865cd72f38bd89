/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/fwd.h - Address translation and forwarded-port listeners
 */
#ifndef PASST_FWD_H
#define PASST_FWD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "../lib/inany.h"
#include "../conf/conf.h"

struct ctx;

#define FWD_UDP_RCVBUF	(16 << 20)	/* -u/-U listeners: bytes asked, SO_RCVBUFFORCE or SO_RCVBUF (fwd_udp_rcvbuf()) */

/**
 * fwd_tbl_id() - Table index for a protocol and a side
 * @udp:	UDP rather than TCP
 * @ns:		Namespace side (-T, -U)
 *
 * Return: enum fwd_tbl
 */
static inline enum fwd_tbl fwd_tbl_id(bool udp, bool ns)
{
	return (enum fwd_tbl)((udp ? 1 : 0) + (ns ? 2 : 0));
}

/**
 * struct fwd_lsock - One listening socket of a rule
 * @fd:		Socket
 * @port:	Its port, host order
 */
struct fwd_lsock {
	int fd;
	uint16_t port;
};

/**
 * struct fwd_socks - The listening sockets of a rule
 * @n:		Sockets
 * @cap:	Allocated entries of @s
 * @s:		Sockets, unsorted (two per port in the namespace)
 */
struct fwd_socks {
	unsigned n;
	unsigned cap;
	struct fwd_lsock *s;
};

/**
 * enum fwd_path - Which path carries a new connection
 * @FWD_PATH_TAP:	Frames to and from the guest (tap device or stream)
 * @FWD_PATH_SPLICE:	Loopback splice between two sockets (FLOW_TCP_SPLICE)
 */
enum fwd_path {
	FWD_PATH_TAP,
	FWD_PATH_SPLICE,
};

struct ctx;
enum fwd_path fwd_tcp_path(const struct ctx *ctx, const union inany *peer,
			   bool from_ns);
bool fwd_nat_to_host(const struct conf *c, const union inany *dst,
		     union inany *host);
bool fwd_nat_to_host_port(const struct conf *c, const union inany *dst,
			  uint16_t dport, union inany *host, uint16_t *hport);
bool fwd_nat_to_guest(const struct conf *c, const union inany *peer,
		      union inany *src);
void fwd_guest_addr(const struct conf *c, int af, union inany *addr);
int fwd_splice_ns_target(const struct conf *c, int af, union inany *dst);
uint16_t fwd_port(const struct fwd_table *t, unsigned rule, uint16_t port);
const union inany *fwd_taddr(const struct fwd_table *t, unsigned rule,
			     bool dyn);
int fwd_listen(struct ctx *ctx, uint8_t proto, const struct fwd_table *t,
	       bool ns);
int fwd_listen_port(struct ctx *ctx, uint8_t proto, const struct fwd_rule *r,
		    unsigned rule, uint16_t port, bool ns, bool helper,
		    struct fwd_socks *l);
int fwd_socks_add(struct fwd_socks *l, int fd, uint16_t port);
struct restart_buf;
struct restart_listen;
void fwd_restart_save(struct restart_buf *b, int *fds, size_t max);
void fwd_restart_adopt(struct ctx *ctx, const struct restart_listen *l, int fd);
struct fwd_socks *fwd_socks_of(enum fwd_tbl tbl, unsigned rule);
unsigned long fwd_listen_count(void);
unsigned fwd_listen_close_tbl(enum fwd_tbl tbl);
unsigned long fwd_listen_room(const struct conf *c);
int fwd_listen_dyn(struct ctx *ctx, uint8_t proto, const struct fwd_rule *r,
		   uint16_t port, unsigned idx, bool ns, int fds[2]);
uint16_t fwd_dyn_port(const struct fwd_table *t, unsigned idx,
		      uint16_t port);
struct frame;
bool fwd_src_is_taddr(const struct conf *c, const struct frame *f);
bool fwd_outbound(const struct conf *c, const union inany *host,
		  union inany *baddr, const char **ifname);
int fwd_sock_outbound(const struct conf *c, int s, const union inany *host,
		      bool bind_addr);

#endif /* PASST_FWD_H */
