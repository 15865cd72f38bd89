/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_opt.h - TCP header options (RFC 9293 3.2, RFC 7323)
 */
#ifndef PASST_TCP_OPT_H
#define PASST_TCP_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TCP_OPT_EOL		0
#define TCP_OPT_NOP		1
#define TCP_OPT_MSS		2	/* length 4, RFC 9293 3.2 */
#define TCP_OPT_WS		3	/* length 3, RFC 7323 2.2 */
#define TCP_OPT_SACK_PERM	4	/* length 2, RFC 2018 */
#define TCP_OPT_TS		8	/* length 10, RFC 7323 3.2 */

#define TCP_WS_MAX		14	/* RFC 7323 2.3 */
#define TCP_SYN_OPT_LEN		8	/* MSS (4) + NOP (1) + WS (3) */

/**
 * struct tcp_opts - Options we understand, from one segment
 * @mss:	MSS option value, bytes (0: absent)
 * @ws:		Window scale shift, clamped to TCP_WS_MAX (-1: absent)
 * @sack_perm:	SACK-permitted present
 * @ts:		Timestamps option present
 */
struct tcp_opts {
	uint16_t mss;
	int8_t ws;
	bool sack_perm;
	bool ts;
};

int tcp_opt_parse(const uint8_t *opt, size_t len, struct tcp_opts *o);
size_t tcp_opt_syn_fill(uint8_t *p, uint16_t mss, int ws);

#endif /* PASST_TCP_OPT_H */
