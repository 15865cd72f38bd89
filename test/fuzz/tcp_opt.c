// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/tcp_opt.c - Harness: TCP option parser (passt/tcp_opt.c)
 *
 * Input: the option bytes of a TCP header (RFC 9293 3.2), at most 40 as
 * the data offset allows, parsed by tcp_opt_parse().  Parsed values are
 * written back with tcp_opt_syn_fill(), as for our SYN-ACK, into a buffer
 * of exactly TCP_SYN_OPT_LEN bytes.
 */
#include "fuzz.h"
#include "../../passt/tcp_opt.h"

/**
 * LLVMFuzzerTestOneInput() - One option area
 * @data:	Options
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[TCP_SYN_OPT_LEN];
	uint8_t opt[40];
	struct tcp_opts o;

	if (size > sizeof(opt))
		return 0;
	memcpy(opt, data, size);	/* no reading past the header */
	if (tcp_opt_parse(opt, size, &o) < 0)
		return 0;
	if (o.ws > TCP_WS_MAX)
		abort();
	tcp_opt_syn_fill(out, o.mss, o.ws);
	return 0;
}
