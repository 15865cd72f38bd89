// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp_opt.c - TCP option parsing and SYN option building
 *
 * Options are a list of kind (1 byte), length (1 byte, counting kind and
 * length) and data, except EOL (0) and NOP (1) which are one byte
 * (RFC 9293 section 3.2).  Unknown kinds are skipped by their length, as the
 * RFC requires; a length below 2 or past the end of the header makes the
 * whole list malformed and the segment is dropped.
 */
#include <errno.h>
#include <string.h>

#include "../lib/util.h"
#include "tcp_opt.h"

/**
 * tcp_opt_parse() - Parse the options of a TCP header
 * @opt:	First option byte (TCP header + 20)
 * @len:	Bytes of options (data offset * 4 - 20)
 * @o:		Result; fields of absent options are 0 / -1 / false
 *
 * An MSS option with a length other than 4, or a window scale option with
 * a length other than 3, is malformed.  A shift above 14 is used as 14
 * (RFC 7323 section 2.3).
 *
 * Return: 0, or -EINVAL if the list is malformed
 */
int tcp_opt_parse(const uint8_t *opt, size_t len, struct tcp_opts *o)
{
	size_t i = 0;

	o->mss = 0;
	o->ws = -1;
	o->sack_perm = false;
	o->ts = false;

	while (i < len) {
		uint8_t kind = opt[i], olen;

		if (kind == TCP_OPT_EOL)
			break;
		if (kind == TCP_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			return -EINVAL;
		olen = opt[i + 1];
		if (olen < 2 || i + olen > len)
			return -EINVAL;

		switch (kind) {
		case TCP_OPT_MSS:
			if (olen != 4)
				return -EINVAL;
			o->mss = get_be16(opt + i + 2);
			break;
		case TCP_OPT_WS:
			if (olen != 3)
				return -EINVAL;
			o->ws = (int8_t)MIN(opt[i + 2], TCP_WS_MAX);
			break;
		case TCP_OPT_SACK_PERM:
			if (olen != 2)
				return -EINVAL;
			o->sack_perm = true;
			break;
		case TCP_OPT_TS:
			if (olen != 10)
				return -EINVAL;
			o->ts = true;
			break;
		default:
			break;
		}
		i += olen;
	}
	return 0;
}

/**
 * tcp_opt_syn_fill() - Write the options of our SYN or SYN-ACK
 * @p:		Where the options go (TCP header + 20)
 * @mss:	MSS to announce, bytes
 * @ws:		Window shift to announce, or -1 to leave window scaling out
 *		(a SYN-ACK must not carry it if the SYN didn't, RFC 7323 1.3)
 *
 * Return: bytes written (TCP_SYN_OPT_LEN: a NOP pads to 4-byte alignment)
 */
size_t tcp_opt_syn_fill(uint8_t *p, uint16_t mss, int ws)
{
	p[0] = TCP_OPT_MSS;
	p[1] = 4;
	put_be16(p + 2, mss);
	if (ws < 0) {
		memset(p + 4, TCP_OPT_NOP, 4);
		return TCP_SYN_OPT_LEN;
	}
	p[4] = TCP_OPT_NOP;
	p[5] = TCP_OPT_WS;
	p[6] = 3;
	p[7] = (uint8_t)ws;
	return TCP_SYN_OPT_LEN;
}
