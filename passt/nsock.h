/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/nsock.h - TCP and UDP sockets made inside the target namespace
 */
#ifndef PASST_NSOCK_H
#define PASST_NSOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define NSOCK_POOL		32	/* sockets kept ready, per family */
#define NSOCK_WAIT_MS		1000	/* longest wait for the helper */

struct ctx;

int nsock_init(struct ctx *ctx, bool tcp, bool udp);
bool nsock_ready(void);
int nsock_get(int af);
int nsock_get_type(int af, bool udp);
void nsock_refill(void);
bool nsock_refill_due(void);
void nsock_handler(struct ctx *ctx, uint32_t events);
unsigned nsock_avail(int af);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
pid_t nsock_pid(void);
#endif

#endif /* PASST_NSOCK_H */
