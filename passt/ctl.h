/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/ctl.h - Port forwarding changes at run time: the -c socket
 *
 * Shared with pesto(1) (pesto/pesto.c), which speaks the protocol: one
 * SOCK_SEQPACKET message per request, one per reply, text.
 *
 * A request is lines, one operation each, applied all or nothing:
 *	show			the tables, nothing changed
 *	set OPT SPEC		OPT (t, u, T or U) gets SPEC in place of
 *				its rules and "auto"
 *	add OPT SPEC		SPEC added to OPT
 *	del OPT SPEC		the ports of SPEC (or "auto") taken out of OPT
 *	clear PIF		every rule and "auto" of one side: "host"
 *				(-t, -u) or "ns" (-T, -U)
 * A reply's first line is "ok" or "error", text follows.
 */
#ifndef PASST_CTL_H
#define PASST_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTL_REQ_MAX	16384	/* bytes in a request */
#define CTL_REP_MAX	65536	/* bytes in a reply */

struct ctx;
struct conf;
struct fwd_table;

void ctl_init(struct ctx *ctx);
void ctl_listen_handler(struct ctx *ctx);
void ctl_handler(struct ctx *ctx, uint32_t events);
void ctl_process(struct ctx *ctx);
int ctl_parse(const struct conf *c, char *req, struct fwd_table *tbls,
	      bool *show, bool *change, char *err, size_t len);

#endif /* PASST_CTL_H */
