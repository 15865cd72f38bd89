/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/ctl.h - Port forwarding changes at run time: the -c socket
 *
 * A SOCK_STREAM socket speaking upstream's pesto protocol (conf/wire.h):
 * the server greets each client with a hello and its tables; the client
 * sends replacement tables, or, ours, a text request, which gets a reply.
 * Shared with pesto(1) (pesto/pesto.c).
 *
 * A text request is lines, one operation each, applied all or nothing:
 *	show			the tables, nothing changed
 *	set OPT SPEC		OPT (t, u, T or U) gets SPEC in place of
 *				its rules and "auto"
 *	add OPT SPEC		SPEC added to OPT
 *	del OPT SPEC		the ports of SPEC (or "auto") taken out of OPT
 *	clear PIF		every rule and "auto" of one side: "host"
 *				(-t, -u) or "ns" (-T, -U)
 * The client ends its side of the stream after the request
 * (shutdown(SHUT_WR)).  A reply's first line is "ok" or "error", text
 * follows; the server closes the stream after it.
 */
#ifndef PASST_CTL_H
#define PASST_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../conf/ctl_ops.h"

#define CTL_REQ_MAX	16384	/* bytes in a text request */
#define CTL_REP_MAX	65536	/* bytes in a reply */
#define CTL_CLIENT_TIMEOUT_S	10	/* a client is closed after that */

struct ctx;

void ctl_init(struct ctx *ctx);
void ctl_listen_handler(struct ctx *ctx);
void ctl_handler(struct ctx *ctx, uint32_t events);
void ctl_process(struct ctx *ctx);
void ctl_timer(struct ctx *ctx);
void ctl_adopt(struct ctx *ctx, int s);

#endif /* PASST_CTL_H */
